// REST rows — the usage report.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import type { Route } from '../../../../rest-shim/route-table.js';

export const usageRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/usage',
    operation: 'UsageReport',
    surface: 'v1',
    result: 'usage',
    variables: (req) => ({
      from: req.queryDate('from'),
      to: req.queryDate('to'),
      groupBy: req.query('group_by'),
      agentId: req.query('agent_id'),
      model: req.query('model'),
    }),
  },
];
