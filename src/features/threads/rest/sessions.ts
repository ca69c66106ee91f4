// REST rows — Sessions.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { pageArgs, ifMatch, type Route } from '../../../../rest-shim/route-table.js';

export const sessionRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/sessions',
    operation: 'SessionCreate',
    surface: 'v1',
    body: { input: 'input' },
    result: 'createSession.session',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/sessions',
    operation: 'SessionsList',
    surface: 'v1',
    variables: (req) => ({ label: req.queryList('label'), ...pageArgs(req) }),
    result: 'sessions',
    connection: true,
  },
  {
    method: 'GET',
    path: '/api/v1/sessions/:session_id',
    operation: 'SessionGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('session_id') }),
    result: 'session',
  },
  {
    method: 'PATCH',
    path: '/api/v1/sessions/:session_id',
    operation: 'SessionUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('session_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateSession.session',
  },
];
