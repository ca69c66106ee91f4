// REST rows — The caller's workspace.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import type { Route } from '../../../../rest-shim/route-table.js';

export const workspaceRoutes: Route[] = [
  { method: 'GET', path: '/api/v1/workspace', operation: 'WorkspaceGet', surface: 'v1', result: 'workspace' },
  {
    method: 'PATCH',
    path: '/api/v1/workspace',
    operation: 'WorkspaceUpdate',
    surface: 'v1',
    variables: (req) => ({ ifMatch: req.header('if-match') }),
    body: { input: 'input', required: true },
    result: 'updateWorkspace.workspace',
  },
];
