// REST rows — Connections (MCP servers and other tool sources).
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { pageArgs, ifMatch, type Route } from '../../../../rest-shim/route-table.js';

export const connectionRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/connections',
    operation: 'ConnectionCreate',
    surface: 'v1',
    body: { input: 'input', required: true },
    result: 'createConnection.connection',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/connections',
    operation: 'ConnectionsList',
    surface: 'v1',
    result: 'connections',
    connection: true,
    variables: (req) => ({
      label: req.queryList('label'),
      q: req.query('q'),
      enabled: req.queryBool('enabled'),
      providerId: req.query('provider_id'),
      ...pageArgs(req),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/connections/:connection_id',
    operation: 'ConnectionGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('connection_id') }),
    result: 'connection',
  },
  {
    method: 'PATCH',
    path: '/api/v1/connections/:connection_id',
    operation: 'ConnectionUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('connection_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateConnection.connection',
  },
  {
    method: 'POST',
    path: '/api/v1/connections/:connection_id/revoke',
    operation: 'ConnectionRevoke',
    surface: 'v1',
    variables: (req) => ({ id: req.path('connection_id'), ...ifMatch(req) }),
    body: 'none',
    result: 'revokeConnection.connection',
  },
  {
    method: 'POST',
    path: '/api/v1/connections/:connection_id/test',
    operation: 'ConnectionTest',
    surface: 'v1',
    variables: (req) => ({ id: req.path('connection_id') }),
    body: 'none',
    result: 'testConnection',
  },
];
