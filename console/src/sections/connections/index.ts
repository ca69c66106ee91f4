// The connections section: the workspace's MCP connections.
import type { ConsoleRoute } from '../../routes';
import { ConnectionPage } from './ConnectionPage';
import { ConnectionsPage } from './ConnectionsPage';

export const connectionsRoutes: ConsoleRoute[] = [
  { path: '/connections', component: ConnectionsPage, nav: 'Connections' },
  { path: '/connections/:id', component: ConnectionPage },
];
