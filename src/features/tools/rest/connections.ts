// REST rows — Connections (MCP servers and other tool sources).
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { actionRow, guardedActionRow, kindRows, type Route } from '../../../../rest-shim/route-table.js';

export const connectionRoutes: Route[] = [
  ...kindRows('/api/v1/connections', 'connection_id', 'Connection', {
    filters: (req) => ({
      label: req.queryList('label'),
      q: req.query('q'),
      enabled: req.queryBool('enabled'),
      providerId: req.query('provider_id'),
    }),
  }),
  guardedActionRow('POST', '/api/v1/connections/:connection_id/revoke', 'ConnectionRevoke', 'revokeConnection.connection'),
  actionRow('POST', '/api/v1/connections/:connection_id/test', 'ConnectionTest', 'testConnection'),
  actionRow('POST', '/api/v1/connections/:connection_id/authorize', 'ConnectionAuthorize', 'startConnectionAuthorization', {
    body: { input: 'input' },
  }),
];
