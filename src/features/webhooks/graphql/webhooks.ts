// Webhook subscriptions and their deliveries (every operation needs `admin`). The signing secret is
// write-never, read-once: `secret` is set only in the answers of create and rotate-secret.
import type { WebhookDelivery } from '../../../generated/prisma/client.js';
import { builder } from '../../../graphql/builder.js';
import { connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { flagPayload, payloadOf } from '../../../graphql/modules/payloads.js';
import { idMutation, resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, objectQuery, watchSubscription } from '../../../graphql/modules/query-fields.js';
import { withLabelList } from '../../../graphql/modules/labels.js';
import {
  createSubscription,
  deleteSubscription,
  getDelivery,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  pingSubscription,
  redeliver,
  rotateSubscriptionSecret,
  updateSubscription,
  type SubscriptionWithSecret,
} from '../webhook-subscriptions.js';
import { attemptLogOf, type AttemptRecord } from '../webhook-delivery.js';
import { listWebhookEventKinds } from '../webhook-events.js';
import { watchWebhookDeliveries } from '../webhook-delivery-watch.js';

const WebhookSubscriptionRef = builder.prismaObject('WebhookSubscription', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    id: t.exposeID('id'),
    workspaceId: t.exposeString('workspaceId'),
    url: t.exposeString('url'),
    eventKinds: t.exposeStringList('eventKinds'),
    description: t.exposeString('description'),
    enabled: t.exposeBoolean('enabled'),
    labels: t.expose('labels', { type: 'JSON' }),
    disabledReason: t.string({
      nullable: true,
      description: 'why the service disabled the subscription (repeated failed deliveries); null otherwise',
      resolve: (s) => s.disabledReason,
    }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
    consecutiveFailures: t.exposeInt('consecutiveFailures', { description: 'deliveries in a row that failed every attempt' }),
    previousSecretExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'until then deliveries carry a signature with the secret the last rotation replaced too',
      resolve: (s) =>
        s.previousSecretCiphertext && s.previousSecretExpiresAt && s.previousSecretExpiresAt > new Date()
          ? s.previousSecretExpiresAt
          : null,
    }),
    secret: t.string({
      nullable: true,
      description: 'the signing secret (`whsec_…`): only in the answers of create and rotate-secret, null elsewhere',
      resolve: (s) => (s as Partial<SubscriptionWithSecret>).secret ?? null,
    }),
  }),
});
withLabelList(WebhookSubscriptionRef);

const WebhookDeliveryAttemptRef = builder.objectRef<AttemptRecord>('WebhookDeliveryAttempt').implement({
  fields: (t) => ({
    attempt: t.exposeInt('attempt'),
    at: t.field({ type: 'DateTime', resolve: (a) => new Date(a.at) }),
    statusCode: t.int({ nullable: true, description: "the receiver's HTTP status (null: no answer)", resolve: (a) => a.status_code }),
    latencyMs: t.int({ resolve: (a) => a.latency_ms }),
    error: t.string({ nullable: true, description: 'why the attempt failed; null when it succeeded', resolve: (a) => a.error }),
    response: t.string({ nullable: true, description: "the start of the receiver's answer (at most 1 KiB)", resolve: (a) => a.response }),
  }),
});

const WebhookDeliveryRef = builder.prismaObject('WebhookDelivery', {
  fields: (t) => ({
    id: t.exposeID('id'),
    subscriptionId: t.exposeString('subscriptionId'),
    eventId: t.exposeString('eventId', { description: 'the `webhook-id` header of every attempt' }),
    eventKind: t.exposeString('eventKind'),
    status: t.exposeString('status', { description: 'pending | succeeded | failed' }),
    attemptCount: t.exposeInt('attempts', { description: 'attempts since the delivery was (re)scheduled' }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'when the next attempt is due (pending only)',
      resolve: (d) => (d.status === 'pending' ? d.nextAttemptAt : null),
    }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true }),
    lastError: t.exposeString('lastError', { nullable: true }),
    lastLatencyMs: t.exposeInt('lastLatencyMs', { nullable: true }),
    attempts: t.field({
      type: [WebhookDeliveryAttemptRef],
      description: 'every attempt, oldest first',
      resolve: (d: WebhookDelivery) => attemptLogOf(d),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
  }),
});

const WebhookEventKindRef = builder.objectRef<ReturnType<typeof listWebhookEventKinds>[number]>('WebhookEventKind').implement({
  description: 'An event kind a subscription can ask for (its `eventKinds`), with what it reports.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'the value a subscription names, e.g. `run.completed`' }),
    description: t.exposeString('description', { description: 'when events of this kind are sent' }),
  }),
});

const WebhookSubscriptionConnection = connectionOf('WebhookSubscription', WebhookSubscriptionRef);
const WebhookDeliveryConnection = connectionOf('WebhookDelivery', WebhookDeliveryRef);

const CreateWebhookSubscriptionInput = builder.inputType('CreateWebhookSubscriptionInput', {
  fields: (t) => ({
    url: t.string({ required: true, description: 'https (plain http only where the deployment allows it)' }),
    eventKinds: t.stringList({ required: true, description: 'the event kinds to receive (docs/api/webhooks.md)' }),
    description: t.string(),
    enabled: t.boolean(),
    labels: t.field({ type: 'Labels' }),
  }),
});
const UpdateWebhookSubscriptionInput = builder.inputType('UpdateWebhookSubscriptionInput', {
  fields: (t) => ({
    url: t.string(),
    eventKinds: t.stringList(),
    description: t.string(),
    enabled: t.boolean({ description: 'true also clears a reason the service disabled it for' }),
    labels: t.field({ type: 'Labels' }),
  }),
});
const RotateWebhookSecretInput = builder.inputType('RotateWebhookSecretInput', {
  fields: (t) => ({
    overlapSeconds: t.int({ description: 'how long the replaced secret still signs deliveries (default 86400, 0 to 604800)' }),
  }),
});

connectionQuery('webhookSubscriptions', WebhookSubscriptionConnection, {
  description: 'Needs `admin`.',
  args: (arg) => ({ label: arg.stringList(), q: arg.string(), enabled: arg.boolean() }),
  list: listSubscriptions,
});
objectQuery('webhookSubscription', WebhookSubscriptionRef, getSubscription, 'Needs `admin`.');
connectionQuery('webhookDeliveries', WebhookDeliveryConnection, {
  description: "A subscription's deliveries, newest first. Needs `admin`.",
  args: (arg) => ({ subscriptionId: arg.id({ required: true }), status: arg.string() }),
  list: (call, args) => listDeliveries(call, String(args.subscriptionId), args),
});

const subscriptionMutations = resourceMutations('webhookSubscription', WebhookSubscriptionRef);
subscriptionMutations.create(CreateWebhookSubscriptionInput, createSubscription, {
  description: 'Needs `admin`. The answer carries the signing secret, shown only this once.',
});
idMutation('testWebhookSubscription', payloadOf('testWebhookSubscription', 'delivery', WebhookDeliveryRef), pingSubscription, {
  description: 'Needs `admin`. Queues a `webhook.ping` event for this subscription alone and answers its delivery.',
});
subscriptionMutations.update(UpdateWebhookSubscriptionInput, updateSubscription, { description: 'Needs `admin` and If-Match.' });

builder.queryFields((t) => ({
  webhookEventKinds: t.field({
    type: [WebhookEventKindRef],
    description:
      'Every event kind a subscription can ask for, in a stable order (`webhook.ping` is not one: only the test action sends it). Any authenticated caller may read it.',
    resolve: async (_r, _a, ctx) => {
      await ctx.call();
      return listWebhookEventKinds();
    },
  }),
  webhookDelivery: t.field({
    type: WebhookDeliveryRef,
    description: 'Needs `admin`.',
    args: {
      id: t.arg.id({ required: true }),
      subscriptionId: t.arg.id({ description: 'when given, the delivery must be of this subscription' }),
    },
    resolve: async (_r, a, ctx) => getDelivery(await ctx.call(), String(a.id), a.subscriptionId == null ? null : String(a.subscriptionId)),
  }),
}));

builder.mutationFields((t) => ({
  deleteWebhookSubscription: t.field({
    type: flagPayload('deleteWebhookSubscription', 'deleted', 'true: the subscription and its deliveries are gone'),
    description: 'Needs `admin`. If-Match is optional.',
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, a, ctx) => deleteSubscription(await ctx.call(), String(a.id), a.ifMatch),
  }),
  rotateWebhookSubscriptionSecret: t.field({
    type: payloadOf('rotateWebhookSubscriptionSecret', 'webhookSubscription', WebhookSubscriptionRef),
    description: 'Needs `admin`. A new secret, shown only this once; the old one signs too until the overlap ends.',
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: RotateWebhookSecretInput }) },
    resolve: async (_r, a, ctx) => rotateSubscriptionSecret(await ctx.call(), String(a.id), a.ifMatch, a.input?.overlapSeconds),
  }),
  redeliverWebhookDelivery: t.field({
    type: payloadOf('redeliverWebhookDelivery', 'delivery', WebhookDeliveryRef),
    description: 'Needs `admin`. Sends the same event (same `webhook-id`) again with a fresh retry schedule.',
    args: {
      id: t.arg.id({ required: true }),
      subscriptionId: t.arg.id({ description: 'when given, the delivery must be of this subscription' }),
    },
    resolve: async (_r, a, ctx) => redeliver(await ctx.call(), String(a.id), a.subscriptionId == null ? null : String(a.subscriptionId)),
  }),
}));

watchSubscription(
  'webhookDeliveryUpdated',
  WebhookDeliveryRef,
  'subscriptionId',
  watchWebhookDeliveries,
  "Emits a delivery of the subscription each time it is created or queued again (test event, redelivery) and each time an attempt is recorded (succeeded, retry scheduled, failed), as it is then. Nothing at the start: read `webhookDeliveries` for the list. Needs `admin`; another workspace's subscription is not found.",
);
