// The agents section: the list, creating an agent (by hand or with the composer), and one agent's page.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { AgentPage } from './AgentPage';
export { AgentsListPage } from './AgentsListPage';
export { NewAgentPage } from './NewAgentPage';
