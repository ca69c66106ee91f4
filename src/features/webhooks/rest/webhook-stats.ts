// REST rows — the health of webhook deliveries over a time range (the dashboard's webhook panel).
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import type { Route } from '../../../../rest-shim/route-table.js';

export const webhookStatsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/stats/webhooks',
    operation: 'WebhookStats',
    surface: 'v1',
    result: 'webhookStats',
    variables: (req) => ({ from: req.queryDate('from'), to: req.queryDate('to'), bucket: req.query('bucket') }),
  },
];
