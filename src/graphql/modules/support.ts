// The support API (served under /api by the REST shim): web push, listener status, presence,
// device pairing and devices. Resolvers only parse arguments and call src/support/.
import { builder } from '../builder.js';
import { PUBLIC_FIELD } from '../access.js';
import { requirePermission } from '../../services/permissions.js';
import {
  deletePushSubscription, getPushConfiguration, recordPushActivity, sendTestNotification, upsertPushSubscription, type PushOutcome,
} from '../../support/push.js';
import { getListenerStatus } from '../../support/status.js';
import { currentPresence, touchPresence, type PresenceFrame } from '../../support/presence.js';
import { approvePairing, listPairings, pairingChallenge, pollPairing, rejectPairing, requestPairing } from '../../support/pairing.js';
import { deviceInfo, deviceSummary, getDevice, listDevices, listDeviceDirectories, revokeDevice, type DirectoryListing } from '../../support/devices.js';
import type { PushSubscription as PushSubscriptionRow } from '../../generated/prisma/client.js';

// ── web push ──

const PushConfiguration = builder.objectRef<Awaited<ReturnType<typeof getPushConfiguration>>>('PushConfiguration').implement({
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    publicKey: t.exposeString('publicKey', { description: 'VAPID application server key (base64url), for PushManager.subscribe({applicationServerKey}).' }),
    activeWindowSeconds: t.exposeInt('activeWindowSeconds', { description: 'A user active in the UI within this window gets no run notifications.' }),
    notificationKinds: t.exposeStringList('notificationKinds'),
  }),
});

const PushSubscriptionView = builder.objectRef<PushSubscriptionRow>('PushSubscription').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    endpoint: t.exposeString('endpoint'),
    expirationTime: t.expose('expirationTime', { type: 'DateTime', nullable: true }),
    lastActiveAt: t.expose('lastActiveAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const PushTestResult = builder.objectRef<PushOutcome>('PushTestResult').implement({
  fields: (t) => ({
    subscriptionId: t.exposeID('subscriptionId'),
    delivered: t.exposeBoolean('delivered'),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    removed: t.exposeBoolean('removed'),
    error: t.exposeString('error', { nullable: true }),
  }),
});

const PushSubscriptionKeysInput = builder.inputType('PushSubscriptionKeysInput', {
  fields: (t) => ({
    p256dh: t.string({ required: true, description: 'base64url P-256 public key of the browser (65 bytes)' }),
    auth: t.string({ required: true, description: 'base64url authentication secret (16 bytes)' }),
  }),
});

const PushSubscriptionInput = builder.inputType('PushSubscriptionInput', {
  fields: (t) => ({
    endpoint: t.string({ required: true }),
    keys: t.field({ type: PushSubscriptionKeysInput, required: true }),
    expirationTime: t.float({ required: false, description: 'milliseconds since the epoch (PushSubscription.expirationTime), or null' }),
  }),
});

builder.queryField('pushConfiguration', (t) =>
  t.field({ type: PushConfiguration, resolve: async (_root, _args, ctx) => getPushConfiguration(ctx.deps, await ctx.actor()) }),
);

builder.mutationField('upsertPushSubscription', (t) =>
  t.field({
    type: PushSubscriptionView,
    description: "Creates or updates the caller's subscription for this endpoint.",
    args: { input: t.arg({ type: PushSubscriptionInput, required: true }) },
    resolve: async (_root, args, ctx) => upsertPushSubscription(ctx.deps, await ctx.actor(), args.input, ctx.requestId),
  }),
);

builder.mutationField('deletePushSubscription', (t) =>
  t.boolean({
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => deletePushSubscription(ctx.deps, await ctx.actor(), args.id, ctx.requestId),
  }),
);

builder.mutationField('recordPushActivity', (t) =>
  t.boolean({
    description: 'The user is active in the UI on this browser: no run notifications within the active window.',
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => recordPushActivity(ctx.deps, await ctx.actor(), args.id),
  }),
);

builder.mutationField('testPushSubscription', (t) =>
  t.field({
    type: PushTestResult,
    description: "Sends a test notification and reports the push service's outcome.",
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => sendTestNotification(ctx.deps, await ctx.actor(), args.id),
  }),
);

// ── listener status ──

type Status = Awaited<ReturnType<typeof getListenerStatus>>;
const RunWorkersStatus = builder.objectRef<Status['runWorkers']>('RunWorkersStatus').implement({
  fields: (t) => ({ up: t.exposeBoolean('up'), count: t.exposeInt('count') }),
});
const EventStreamStatus = builder.objectRef<Status['eventStream']>('EventStreamStatus').implement({
  fields: (t) => ({ up: t.exposeBoolean('up'), transports: t.exposeStringList('transports') }),
});
const ListenerStatus = builder.objectRef<Status>('ListenerStatus').implement({
  fields: (t) => ({
    status: t.exposeString('status'),
    version: t.exposeString('version'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    uptimeSeconds: t.exposeInt('uptimeSeconds'),
    runWorkers: t.field({ type: RunWorkersStatus, resolve: (status) => status.runWorkers }),
    eventStream: t.field({ type: EventStreamStatus, resolve: (status) => status.eventStream }),
    queueDepth: t.exposeInt('queueDepth', { description: 'Runs waiting for a worker, in the whole service.' }),
    workspaceQueueDepth: t.exposeInt('workspaceQueueDepth', { description: "Runs waiting for a worker, in the caller's workspace." }),
    connectedDevices: t.exposeInt('connectedDevices', { description: "Devices of the caller's workspace with a live connection to this instance." }),
  }),
});

builder.queryField('listenerStatus', (t) =>
  t.field({ type: ListenerStatus, resolve: async (_root, _args, ctx) => getListenerStatus(ctx.deps, await ctx.actor()) }),
);

// ── presence ──

const PresenceParticipant = builder.objectRef<PresenceFrame['participants'][number]>('PresenceParticipant').implement({
  fields: (t) => ({
    participantId: t.exposeString('participantId'),
    principalId: t.exposeString('principalId'),
    principalKind: t.exposeString('principalKind'),
    firstSeenAt: t.expose('firstSeenAt', { type: 'DateTime' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

const PresenceFrameRef = builder.objectRef<PresenceFrame>('PresenceFrame').implement({
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    participantId: t.exposeString('participantId', { description: 'The participant this frame answers (empty in frames published on expiry).' }),
    ttlSeconds: t.exposeInt('ttlSeconds'),
    serverTime: t.expose('serverTime', { type: 'DateTime' }),
    participants: t.field({ type: [PresenceParticipant], resolve: (frame) => frame.participants }),
  }),
});

builder.queryField('presence', (t) =>
  t.field({
    type: PresenceFrameRef,
    description: 'Who is present in the workspace (registers nobody).',
    resolve: async (_root, _args, ctx) => currentPresence(ctx.deps, await ctx.actor()),
  }),
);

builder.mutationField('touchPresence', (t) =>
  t.field({
    type: PresenceFrameRef,
    description: "Registers the caller's participant (default: the caller's principal id) as present and returns the frame.",
    args: { participantId: t.arg.string({ required: false, description: 'at most 80 characters' }) },
    resolve: async (_root, args, ctx) => touchPresence(ctx.deps, await ctx.actor(), args.participantId),
  }),
);

builder.subscriptionField('presenceChanged', (t) =>
  t.field({
    type: PresenceFrameRef,
    description: "Emits the workspace's presence frame whenever a participant arrives or expires.",
    subscribe: async (_root, _args, ctx) => {
      const actor = await ctx.actor();
      requirePermission(actor, 'read');
      return ctx.deps.events.subscribe('presenceChanged', actor.workspaceId);
    },
    resolve: (frame) => frame as PresenceFrame,
  }),
);

// ── device pairing ──

type PairingResponse = Awaited<ReturnType<typeof requestPairing>>;
const PairingResponseRef = builder.objectRef<PairingResponse>('PairingResponse').implement({
  fields: (t) => ({
    pairingId: t.exposeID('pairingId'),
    userCode: t.exposeString('userCode', { description: 'Shown by the daemon; the user checks it before approving.' }),
    pollSecret: t.exposeString('pollSecret', { description: 'wsp_… secret the daemon polls with; shown once.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    pollIntervalSeconds: t.exposeInt('pollIntervalSeconds'),
  }),
});

type PollResult = Awaited<ReturnType<typeof pollPairing>>;
const PairingPollResult = builder.objectRef<PollResult>('PairingPollResult').implement({
  fields: (t) => ({
    pairingId: t.exposeID('pairingId'),
    status: t.exposeString('status', { description: 'pending | approved | rejected | expired | claimed' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    deviceId: t.exposeString('deviceId', { nullable: true }),
    workspaceId: t.exposeString('workspaceId', { nullable: true }),
    deviceCredential: t.exposeString('deviceCredential', { nullable: true, description: 'wsd_… credential, in the first poll after approval only.' }),
  }),
});

const PairingChallenge = builder.objectRef<ReturnType<typeof pairingChallenge>>('PairingChallenge').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    userCode: t.exposeString('userCode'),
    deviceName: t.exposeString('deviceName'),
    platform: t.exposeString('platform'),
    publicKeyFingerprint: t.exposeString('publicKeyFingerprint'),
    status: t.exposeString('status'),
    workspaceId: t.exposeString('workspaceId', { nullable: true, description: 'The workspace the daemon asked for, or null (any workspace may answer).' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const PairingRequestInput = builder.inputType('PairingRequestInput', {
  fields: (t) => ({
    deviceName: t.string({ required: true, description: '1 to 100 characters' }),
    platform: t.string({ required: true, description: 'e.g. linux-x64; 1 to 64 characters' }),
    publicKey: t.string({ required: true, description: "the daemon's public key (PEM or base64), at most 4096 characters" }),
    workspaceId: t.string({ required: false, description: 'address the challenge to one workspace only' }),
  }),
});

builder.mutationField('requestDevicePairing', (t) =>
  t.field({
    type: PairingResponseRef,
    description: 'Open (no credential), rate-limited per client address: a daemon asks to pair.',
    extensions: PUBLIC_FIELD,
    args: { input: t.arg({ type: PairingRequestInput, required: true }) },
    resolve: (_root, args, ctx) => requestPairing(ctx.deps, args.input, ctx.clientAddress),
  }),
);

builder.mutationField('pollDevicePairing', (t) =>
  t.field({
    type: PairingPollResult,
    description: 'Open (no credential; the poll secret authorises it): the daemon polls; after approval the first poll carries the device credential.',
    extensions: PUBLIC_FIELD,
    args: { pollSecret: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => pollPairing(ctx.deps, args.pollSecret),
  }),
);

builder.queryField('devicePairings', (t) =>
  t.field({
    type: [PairingChallenge],
    description: "Pending challenges addressed to the caller's workspace; an unaddressed one appears only when its userCode is given.",
    args: { userCode: t.arg.string({ required: false, description: 'the code the daemon printed (any case, hyphen optional)' }) },
    resolve: async (_root, args, ctx) => listPairings(ctx.deps, await ctx.actor(), args.userCode),
  }),
);

// ── devices ──

type Summary = ReturnType<typeof deviceSummary>;
const DeviceSummary = builder.objectRef<Summary>('DeviceSummary').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    platform: t.exposeString('platform'),
    status: t.exposeString('status', { description: 'active | revoked' }),
    online: t.exposeBoolean('online'),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const DeviceInfo = builder.objectRef<ReturnType<typeof deviceInfo>>('DeviceInfo').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    platform: t.exposeString('platform'),
    status: t.exposeString('status'),
    online: t.exposeBoolean('online'),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    workspaceId: t.exposeString('workspaceId'),
    approvedById: t.exposeString('approvedById'),
    publicKey: t.exposeString('publicKey'),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const DirectoryEntry = builder.objectRef<DirectoryListing['entries'][number]>('DirectoryEntry').implement({
  fields: (t) => ({ name: t.exposeString('name'), path: t.exposeString('path') }),
});

const DirectoryListingRef = builder.objectRef<DirectoryListing>('DirectoryListing').implement({
  fields: (t) => ({
    deviceId: t.exposeID('deviceId'),
    path: t.exposeString('path', { nullable: true, description: 'The listed directory; null when the roots were listed.' }),
    entries: t.field({ type: [DirectoryEntry], resolve: (listing) => listing.entries }),
    truncated: t.exposeBoolean('truncated'),
  }),
});

builder.mutationField('approveDevicePairing', (t) =>
  t.field({
    type: DeviceSummary,
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => approvePairing(ctx.deps, await ctx.actor(), args.id, ctx.requestId),
  }),
);

builder.mutationField('rejectDevicePairing', (t) =>
  t.boolean({
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => rejectPairing(ctx.deps, await ctx.actor(), args.id, ctx.requestId),
  }),
);

builder.queryField('devices', (t) =>
  t.field({ type: [DeviceSummary], resolve: async (_root, _args, ctx) => listDevices(ctx.deps, await ctx.actor()) }),
);

builder.queryField('device', (t) =>
  t.field({
    type: DeviceInfo,
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => getDevice(ctx.deps, await ctx.actor(), args.id),
  }),
);

builder.mutationField('revokeDevice', (t) =>
  t.field({
    type: DeviceSummary,
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => revokeDevice(ctx.deps, await ctx.actor(), args.id, ctx.requestId),
  }),
);

builder.queryField('deviceDirectories', (t) =>
  t.field({
    type: DirectoryListingRef,
    description: "Lists directories on the device (no path: its roots), relayed over the device's connection.",
    args: { id: t.arg.string({ required: true }), path: t.arg.string({ required: false }) },
    resolve: async (_root, args, ctx) => listDeviceDirectories(ctx.deps, await ctx.actor(), args.id, args.path),
  }),
);
