// The connections section: the workspace's MCP connections.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { ConnectionPage } from './ConnectionPage';
export { ConnectionsPage } from './ConnectionsPage';
