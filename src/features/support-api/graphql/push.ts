// Web push (support API /api/push): the VAPID configuration, the caller's browser subscriptions,
// activity that mutes run notifications, and test notifications.
import { builder } from '../../../graphql/builder.js';
import { flagPayload, payloadOf } from '../../../graphql/modules/payloads.js';
import { idMutation } from '../../../graphql/modules/mutation-fields.js';
import { callerQuery } from '../../../graphql/modules/query-fields.js';
import {
  deletePushSubscription,
  getPushConfiguration,
  listPushSubscriptions,
  recordPushActivity,
  sendTestNotification,
  upsertPushSubscription,
  type PushOutcome,
} from '../push.js';
import type { PushSubscription as PushSubscriptionRow } from '../../../generated/prisma/client.js';

const PushConfiguration = builder.objectRef<Awaited<ReturnType<typeof getPushConfiguration>>>('PushConfiguration').implement({
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    publicKey: t.exposeString('publicKey', {
      description: 'VAPID application server key (base64url), for PushManager.subscribe({applicationServerKey}).',
    }),
    activeWindowSeconds: t.exposeInt('activeWindowSeconds', {
      description: 'A user active in the UI within this window gets no run notifications.',
    }),
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

const PushTestResult = builder.objectRef<PushOutcome>('TestPushSubscriptionPayload').implement({
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

callerQuery('pushConfiguration', PushConfiguration, getPushConfiguration);

builder.queryField('pushSubscriptions', (t) =>
  t.field({
    type: [PushSubscriptionView],
    description: "The caller's own browser subscriptions in this workspace, newest first (at most 200).",
    resolve: async (_root, _args, ctx) => listPushSubscriptions(await ctx.call()),
  }),
);

builder.mutationField('upsertPushSubscription', (t) =>
  t.field({
    type: payloadOf('upsertPushSubscription', 'subscription', PushSubscriptionView),
    description: "Creates or updates the caller's subscription for this endpoint.",
    args: { input: t.arg({ type: PushSubscriptionInput, required: true }) },
    resolve: async (_root, args, ctx) => upsertPushSubscription(await ctx.call(), args.input),
  }),
);

// The support API names a browser subscription by its stored id, as a String.
idMutation(
  'deletePushSubscription',
  flagPayload('deletePushSubscription', 'deleted', 'true: the subscription is gone'),
  deletePushSubscription,
  {
    idType: 'String',
  },
);
idMutation('recordPushActivity', flagPayload('recordPushActivity', 'recorded', 'true: the activity is recorded'), recordPushActivity, {
  idType: 'String',
  description: 'The user is active in the UI on this browser: no run notifications within the active window.',
});
idMutation('testPushSubscription', PushTestResult, sendTestNotification, {
  idType: 'String',
  description: "Sends a test notification and reports the push service's outcome.",
});
