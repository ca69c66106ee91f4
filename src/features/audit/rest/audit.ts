// REST rows — The audit trail.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { pageArgs, type Route } from '../../../../rest-shim/route-table.js';

export const auditRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/audit-events',
    operation: 'AuditEventsList',
    surface: 'v1',
    result: 'auditEvents',
    connection: true,
    variables: (req) => ({
      resourceId: req.query('resource_id'),
      resourceKind: req.query('resource_kind'),
      principalId: req.query('principal_id'),
      action: req.query('action'),
      createdAfter: req.queryDate('created_after'),
      createdBefore: req.queryDate('created_before'),
      ...pageArgs(req),
    }),
  },
];
