// REST rows — the dashboards' aggregates: runs and webhook deliveries over a time range.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import type { Route } from '../../../../rest-shim/route-table.js';

export const runStatsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/stats/runs',
    operation: 'RunStats',
    surface: 'v1',
    result: 'runStats',
    variables: (req) => ({
      from: req.queryDate('from'),
      to: req.queryDate('to'),
      bucket: req.query('bucket'),
      agentId: req.query('agent_id'),
      model: req.query('model'),
    }),
  },
];
