// The agents section: the list, creating an agent (by hand or with the composer), and one agent's page.
import type { ConsoleRoute } from '../../routes';
import { AgentPage } from './AgentPage';
import { AgentsListPage } from './AgentsListPage';
import { NewAgentPage } from './NewAgentPage';

export const agentsRoutes: ConsoleRoute[] = [
  { path: '/agents', component: AgentsListPage, nav: 'Agents' },
  { path: '/agents/new', component: NewAgentPage },
  { path: '/agents/:agentId', component: AgentPage },
];
