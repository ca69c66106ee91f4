// REST rows — Sessions.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { createRow, getRow, listRow, updateRow, type Route } from '../../../../rest-shim/route-table.js';

export const sessionRoutes: Route[] = [
  // A session may start without a body (every member of its input is optional).
  createRow('/api/v1/sessions', 'SessionCreate', 'createSession.session', { body: { input: 'input' } }),
  listRow('/api/v1/sessions', 'SessionsList', 'sessions', (req) => ({ label: req.queryList('label') })),
  getRow('/api/v1/sessions/:session_id', 'SessionGet', 'session'),
  updateRow('/api/v1/sessions/:session_id', 'SessionUpdate', 'updateSession.session'),
];
