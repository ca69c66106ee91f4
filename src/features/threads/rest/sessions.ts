// REST rows — Sessions.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { kindRows, type Route } from '../../../../rest-shim/route-table.js';

export const sessionRoutes: Route[] = [
  ...kindRows('/api/v1/sessions', 'session_id', 'Session', {
    // A session may start without a body (every member of its input is optional).
    create: { body: { input: 'input' } },
    filters: (req) => ({ label: req.queryList('label') }),
  }),
];
