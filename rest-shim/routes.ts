// The REST contract as a table: method + path → a named GraphQL operation in operations/, with
// how the request maps onto its variables and how its result maps onto the response.
// Business rules never live here; the shim only translates.

export type Surface = 'v1' | 'support';

export interface RouteRequest {
  path(name: string): string;
  header(name: string): string | null;
  query(name: string): string | null;
  queryList(name: string): string[] | null;
  queryInt(name: string): number | null;
  queryBool(name: string): boolean | null;
  queryDate(name: string): string | null;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** File name (without .graphql) and operation name in operations/. */
  operation: string;
  surface: Surface;
  /** Variables from path, query and headers. */
  variables?: (req: RouteRequest) => Record<string, unknown>;
  /**
   * How the JSON body maps onto variables: `input` puts the whole object in that variable
   * (top-level keys snake_case → camelCase; values untouched), `fields` maps named keys to
   * variables. `none`: a body is refused.
   */
  body?: { input: string; required?: boolean } | { fields: Record<string, string>; required?: boolean } | 'none';
  /** The top-level field of `data` that is the response. */
  result: string;
  status?: number;
  /** 204 without a body. */
  empty?: boolean;
}

const pageArgs = (req: RouteRequest) => ({ limit: req.queryInt('limit'), cursor: req.query('cursor') });

export const routes: Route[] = [
  // ── authentication (support surface: validation failures answer 422) ──
  { method: 'POST', path: '/api/auth/login', operation: 'AuthLogin', surface: 'support', body: { fields: { email: 'email', password: 'password' }, required: true }, result: 'login' },
  { method: 'POST', path: '/api/auth/logout', operation: 'AuthLogout', surface: 'support', body: 'none', result: 'logout', empty: true },

  // ── the caller's workspace ──
  { method: 'GET', path: '/api/v1/workspace', operation: 'WorkspaceGet', surface: 'v1', result: 'workspace' },
  {
    method: 'PATCH', path: '/api/v1/workspace', operation: 'WorkspaceUpdate', surface: 'v1',
    variables: (req) => ({ ifMatch: req.header('if-match') }), body: { input: 'input', required: true }, result: 'updateWorkspace',
  },

  // ── audit trail ──
  {
    method: 'GET', path: '/api/v1/audit-events', operation: 'AuditEventsList', surface: 'v1', result: 'auditEvents',
    variables: (req) => ({
      resourceId: req.query('resource_id'), resourceKind: req.query('resource_kind'), principalId: req.query('principal_id'),
      action: req.query('action'), createdAfter: req.queryDate('created_after'), createdBefore: req.queryDate('created_before'),
      ...pageArgs(req),
    }),
  },

  // ── support API under /api (UI): web push, status, presence, pairing, devices ──
  { method: 'GET', path: '/api/push/configuration', operation: 'PushConfigurationGet', surface: 'support', result: 'pushConfiguration' },
  { method: 'PUT', path: '/api/push/subscription', operation: 'PushSubscriptionUpsert', surface: 'support', body: { input: 'input', required: true }, result: 'upsertPushSubscription' },
  {
    method: 'DELETE', path: '/api/push/subscriptions/:subscriptionId', operation: 'PushSubscriptionDelete', surface: 'support',
    variables: (req) => ({ id: req.path('subscriptionId') }), body: 'none', result: 'deletePushSubscription', empty: true,
  },
  {
    method: 'POST', path: '/api/push/subscriptions/:subscriptionId/activity', operation: 'PushSubscriptionActivity', surface: 'support',
    variables: (req) => ({ id: req.path('subscriptionId') }), body: 'none', result: 'recordPushActivity', empty: true,
  },
  {
    method: 'POST', path: '/api/push/subscriptions/:subscriptionId/test', operation: 'PushSubscriptionTest', surface: 'support',
    variables: (req) => ({ id: req.path('subscriptionId') }), body: 'none', result: 'testPushSubscription',
  },
  { method: 'GET', path: '/api/status', operation: 'ListenerStatusGet', surface: 'support', result: 'listenerStatus' },
  {
    method: 'GET', path: '/api/presence', operation: 'PresenceTouch', surface: 'support',
    variables: (req) => ({ participantId: req.query('participant_id') }), result: 'touchPresence',
  },
  // Open (no credential) and rate-limited: a daemon asks to pair, then polls with its poll secret.
  { method: 'POST', path: '/api/envd/pair', operation: 'DevicePairingRequest', surface: 'support', body: { input: 'input', required: true }, result: 'requestDevicePairing' },
  { method: 'POST', path: '/api/envd/pair/poll', operation: 'DevicePairingPoll', surface: 'support', body: { fields: { poll_secret: 'pollSecret' }, required: true }, result: 'pollDevicePairing' },
  {
    method: 'GET', path: '/api/device-pairings', operation: 'DevicePairingsList', surface: 'support',
    variables: (req) => ({ userCode: req.query('user_code') }), result: 'devicePairings',
  },
  {
    method: 'POST', path: '/api/device-pairings/:pairingId/approve', operation: 'DevicePairingApprove', surface: 'support',
    variables: (req) => ({ id: req.path('pairingId') }), body: 'none', result: 'approveDevicePairing',
  },
  {
    method: 'POST', path: '/api/device-pairings/:pairingId/reject', operation: 'DevicePairingReject', surface: 'support',
    variables: (req) => ({ id: req.path('pairingId') }), body: 'none', result: 'rejectDevicePairing', empty: true,
  },
  { method: 'GET', path: '/api/devices', operation: 'DevicesList', surface: 'support', result: 'devices' },
  { method: 'GET', path: '/api/devices/:deviceId', operation: 'DeviceGet', surface: 'support', variables: (req) => ({ id: req.path('deviceId') }), result: 'device' },
  {
    method: 'POST', path: '/api/devices/:deviceId/revoke', operation: 'DeviceRevoke', surface: 'support',
    variables: (req) => ({ id: req.path('deviceId') }), body: 'none', result: 'revokeDevice',
  },
  {
    method: 'GET', path: '/api/devices/:deviceId/directories', operation: 'DeviceDirectories', surface: 'support',
    variables: (req) => ({ id: req.path('deviceId'), path: req.query('path') }), result: 'deviceDirectories',
  },
];
