// REST rows — The support API under /api (the UI): web push, status, presence, device pairing and devices.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { actionRow, getRow, type Route } from '../../../../rest-shim/route-table.js';

// The rows about one subscription, pairing or device are the shared ones (their id from the path's
// parameter), on the support surface.
const SUPPORT = { surface: 'support' } as const;

export const supportRoutes: Route[] = [
  { method: 'GET', path: '/api/push/configuration', operation: 'PushConfigurationGet', surface: 'support', result: 'pushConfiguration' },
  {
    method: 'PUT',
    path: '/api/push/subscription',
    operation: 'PushSubscriptionUpsert',
    surface: 'support',
    body: { input: 'input', required: true },
    result: 'upsertPushSubscription.subscription',
  },
  actionRow('DELETE', '/api/push/subscriptions/:subscriptionId', 'PushSubscriptionDelete', 'deletePushSubscription.deleted', {
    ...SUPPORT,
    empty: true,
  }),
  actionRow('POST', '/api/push/subscriptions/:subscriptionId/activity', 'PushSubscriptionActivity', 'recordPushActivity.recorded', {
    ...SUPPORT,
    empty: true,
  }),
  actionRow('POST', '/api/push/subscriptions/:subscriptionId/test', 'PushSubscriptionTest', 'testPushSubscription', SUPPORT),
  { method: 'GET', path: '/api/status', operation: 'ListenerStatusGet', surface: 'support', result: 'listenerStatus' },
  {
    method: 'GET',
    path: '/api/presence',
    operation: 'PresenceTouch',
    surface: 'support',
    variables: (req) => ({ participantId: req.query('participant_id') }),
    result: 'touchPresence.presence',
  },
  {
    method: 'DELETE',
    path: '/api/presence',
    operation: 'PresenceLeave',
    surface: 'support',
    variables: (req) => ({ participantId: req.query('participant_id') }),
    body: 'none',
    result: 'leavePresence.left',
    empty: true,
  },
  {
    method: 'GET',
    path: '/api/push/subscriptions',
    operation: 'PushSubscriptionsList',
    surface: 'support',
    result: 'pushSubscriptions',
    wrapItems: true,
  },
  // Open (no credential) and rate-limited: a daemon asks to pair, then polls with its poll secret.
  {
    method: 'POST',
    path: '/api/envd/pair',
    operation: 'DevicePairingRequest',
    surface: 'support',
    body: { input: 'input', required: true },
    result: 'requestDevicePairing',
  },
  {
    method: 'POST',
    path: '/api/envd/pair/poll',
    operation: 'DevicePairingPoll',
    surface: 'support',
    body: { fields: { poll_secret: 'pollSecret' }, required: true },
    result: 'pollDevicePairing',
  },
  {
    method: 'GET',
    path: '/api/device-pairings',
    operation: 'DevicePairingsList',
    surface: 'support',
    variables: (req) => ({ userCode: req.query('user_code') }),
    result: 'devicePairings',
  },
  actionRow('POST', '/api/device-pairings/:pairingId/approve', 'DevicePairingApprove', 'approveDevicePairing.device', SUPPORT),
  actionRow('POST', '/api/device-pairings/:pairingId/reject', 'DevicePairingReject', 'rejectDevicePairing.rejected', {
    ...SUPPORT,
    empty: true,
  }),
  { method: 'GET', path: '/api/devices', operation: 'DevicesList', surface: 'support', result: 'devices' },
  getRow('/api/devices/:deviceId', 'DeviceGet', 'device', SUPPORT),
  actionRow('POST', '/api/devices/:deviceId/revoke', 'DeviceRevoke', 'revokeDevice.device', SUPPORT),
  {
    method: 'GET',
    path: '/api/devices/:deviceId/directories',
    operation: 'DeviceDirectories',
    surface: 'support',
    variables: (req) => ({ id: req.path('deviceId'), path: req.query('path') }),
    result: 'deviceDirectories',
  },
];
