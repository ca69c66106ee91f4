// REST rows — Connections (MCP servers and other tool sources).
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { actionRow, guardedActionRow, createRow, getRow, listRow, updateRow, type Route } from '../../../../rest-shim/route-table.js';

export const connectionRoutes: Route[] = [
  createRow('/api/v1/connections', 'ConnectionCreate', 'createConnection.connection'),
  listRow('/api/v1/connections', 'ConnectionsList', 'connections', (req) => ({
    label: req.queryList('label'),
    q: req.query('q'),
    enabled: req.queryBool('enabled'),
    providerId: req.query('provider_id'),
  })),
  getRow('/api/v1/connections/:connection_id', 'ConnectionGet', 'connection'),
  updateRow('/api/v1/connections/:connection_id', 'ConnectionUpdate', 'updateConnection.connection'),
  guardedActionRow('POST', '/api/v1/connections/:connection_id/revoke', 'ConnectionRevoke', 'revokeConnection.connection'),
  actionRow('POST', '/api/v1/connections/:connection_id/test', 'ConnectionTest', 'testConnection'),
];
