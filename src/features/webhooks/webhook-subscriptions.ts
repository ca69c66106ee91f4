// Webhook subscriptions: a workspace's HTTP endpoints that receive its events, signed per Standard
// Webhooks. A live resource (changed in place, stopped by DELETE); every operation, reads included,
// needs `admin`. The signing secret (`whsec_…`) is sealed at rest like provider credentials and
// shown once: in the answer of create and of rotate-secret.
import { randomBytes } from 'node:crypto';
import type { WebhookDelivery, WebhookSubscription } from '../../generated/prisma/client.js';
import { checkIfMatch } from '../../lib/etag.js';
import { AppError, invalidArgument, notFound } from '../../lib/errors.js';
import { looksLikeId, newId } from '../../lib/ids.js';
import { validateLabels } from '../../lib/labels.js';
import { validateDescription } from '../../lib/text-fields.js';
import { REDACTED, recordAudit, recordCreation } from '../audit/audit.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { checkEndpointUrl } from '../models/providers.js';
import { changeVersioned, updateVersioned, type VersionedPatch, type VersionedTable } from '../../services/versioned.js';
import { PING_KIND, WEBHOOK_CHANNEL, WEBHOOK_EVENT_KINDS } from './webhook-events.js';
import { listQuery, newestFirst } from '../../services/list-query.js';

const RESOURCE_KIND = 'webhook_subscription';
const MAX_URL_LENGTH = 2048;
/** How long a rotated-out secret still signs deliveries, unless the caller says otherwise. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;
const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;

export interface SubscriptionInput {
  url?: unknown;
  eventKinds?: readonly string[] | null;
  description?: unknown;
  enabled?: boolean | null;
  labels?: unknown;
}

/** A subscription with its secret in clear: only create and rotate-secret answer one. */
export type SubscriptionWithSecret = WebhookSubscription & { secret: string | null };

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function validateUrl(call: CallContext, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URL_LENGTH)
    throw invalidArgument(`url must be 1 to ${MAX_URL_LENGTH} characters`, 'url');
  const url = checkEndpointUrl(call.deps, value, 'url');
  if (url.username || url.password) throw invalidArgument('url must not carry credentials', 'url');
  return url.toString();
}

function validateEventKinds(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidArgument('event_kinds must list at least one event kind', 'event_kinds');
  const known = new Set<string>(WEBHOOK_EVENT_KINDS);
  for (const kind of value)
    if (typeof kind !== 'string' || !known.has(kind))
      throw invalidArgument(`event_kinds: unknown event kind (known: ${WEBHOOK_EVENT_KINDS.join(', ')})`, 'event_kinds');
  return [...new Set(value as string[])].sort();
}

export async function getSubscription(call: CallContext, id: string): Promise<WebhookSubscription> {
  requirePermission(call.actor, 'admin');
  const row = looksLikeId('webhookSubscription', id) ? await call.db.webhookSubscription.findUnique({ where: { id } }) : null;
  if (!row || row.workspaceId !== call.actor.workspaceId) throw notFound('webhook subscription', id);
  return row;
}

export async function createSubscription(call: CallContext, input: SubscriptionInput): Promise<SubscriptionWithSecret> {
  const { actor } = call;
  requirePermission(actor, 'admin');
  const url = validateUrl(call, input.url);
  const eventKinds = validateEventKinds(input.eventKinds);
  const description = validateDescription(input.description);
  const labels = input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels);
  const secret = newWebhookSecret();
  return inTransaction(call, async (bound) => {
    const row = await bound.db.webhookSubscription.create({
      data: {
        id: newId('webhookSubscription'),
        workspaceId: actor.workspaceId,
        url,
        eventKinds,
        description,
        labels,
        secretCiphertext: call.secrets.encrypt(secret),
        enabled: input.enabled ?? true,
        createdById: actor.principalId,
        updatedById: actor.principalId,
      },
    });
    await recordCreation(bound, RESOURCE_KIND, row.id, {
      url: { from: null, to: url },
      event_kinds: { from: null, to: eventKinds },
      enabled: { from: null, to: row.enabled },
      secret: { from: REDACTED, to: REDACTED },
    });
    return { ...row, secret };
  });
}

export async function listSubscriptions(
  call: CallContext,
  args: { label?: readonly string[] | null; q?: string | null; enabled?: boolean | null; limit?: number | null; cursor?: string | null },
) {
  requirePermission(call.actor, 'admin');
  // A subscription has no name: `q` reads its URL.
  const query = listQuery(newestFirst('webhook-subscriptions', { search: ['url', 'description'] }), call, args);
  const rows = await call.db.webhookSubscription.findMany(query.findArgs(args.enabled != null ? { enabled: args.enabled } : {}));
  return query.page(rows);
}

/** PATCH: If-Match required. Enabling a subscription the service disabled clears its reason and failure count. */
const SUBSCRIPTIONS: VersionedTable<WebhookSubscription> = {
  resourceKind: RESOURCE_KIND,
  read: getSubscription,
  delegate: (bound) => bound.db.webhookSubscription,
};

export const updateSubscription: VersionedPatch<SubscriptionInput, WebhookSubscription> = (call, id, ifMatch, patch) =>
  updateVersioned(call, SUBSCRIPTIONS, { permission: 'admin', id, ifMatch }, (_bound, row) => {
    const data: Record<string, unknown> = {};
    if (patch.url !== undefined && patch.url !== null) data.url = validateUrl(call, patch.url);
    if (patch.eventKinds !== undefined && patch.eventKinds !== null) data.eventKinds = validateEventKinds(patch.eventKinds);
    if (patch.description !== undefined) data.description = validateDescription(patch.description);
    if (patch.labels !== undefined) data.labels = validateLabels(patch.labels ?? {});
    if (patch.enabled !== undefined && patch.enabled !== null) {
      data.enabled = patch.enabled;
      if (patch.enabled && !row.enabled) Object.assign(data, { disabledReason: null, disabledAt: null, consecutiveFailures: 0 });
    }
    return data;
  });

/** DELETE: the subscription and its deliveries (pending ones are never sent). If-Match is optional. */
export async function deleteSubscription(call: CallContext, id: string, ifMatch: string | null | undefined): Promise<boolean> {
  requirePermission(call.actor, 'admin');
  return inTransaction(call, async (bound) => {
    const row = await getSubscription(bound, id);
    checkIfMatch(ifMatch, row.id, row.version, false);
    await bound.db.webhookDelivery.deleteMany({ where: { subscriptionId: row.id } });
    const deleted = await bound.db.webhookSubscription.deleteMany({ where: { id: row.id, version: row.version } });
    if (deleted.count !== 1) throw new AppError('precondition_failed', 'the resource was changed concurrently; read it again');
    await recordAudit(bound, { action: 'delete', resourceKind: RESOURCE_KIND, resourceId: row.id, version: row.version });
    return true;
  });
}

/**
 * A new signing secret, shown once. The one it replaces keeps signing deliveries beside it for the
 * overlap (default 24 hours, at most 7 days; 0 ends it at once), so receivers can switch without a gap.
 */
export async function rotateSubscriptionSecret(
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  overlapSeconds: number | null | undefined,
): Promise<SubscriptionWithSecret> {
  requirePermission(call.actor, 'admin');
  const overlap = overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
  if (!Number.isInteger(overlap) || overlap < 0 || overlap > MAX_ROTATION_OVERLAP_SECONDS)
    throw invalidArgument(`overlap_seconds must be an integer from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}`, 'overlap_seconds');
  const secret = newWebhookSecret();
  return inTransaction(call, async (bound) => {
    const row = await getSubscription(bound, id);
    const updated = await changeVersioned({
      call: bound,
      delegate: bound.db.webhookSubscription,
      row,
      ifMatch,
      ifMatchRequired: false,
      resourceKind: RESOURCE_KIND,
      action: 'rotate_secret',
      data: {
        secretCiphertext: call.secrets.encrypt(secret),
        previousSecretCiphertext: overlap > 0 ? row.secretCiphertext : null,
        previousSecretExpiresAt: overlap > 0 ? new Date(Date.now() + overlap * 1000) : null,
      },
      secretFields: ['secretCiphertext', 'previousSecretCiphertext'],
    });
    return { ...updated, secret };
  });
}

/** Test: a `webhook.ping` event for this subscription alone, delivered like any other (enabled or not). */
export async function pingSubscription(call: CallContext, id: string): Promise<WebhookDelivery> {
  requirePermission(call.actor, 'admin');
  return inTransaction(call, async (bound) => {
    const row = await getSubscription(bound, id);
    const event = await bound.db.webhookEvent.create({
      data: {
        id: newId('webhookEvent'),
        workspaceId: row.workspaceId,
        kind: PING_KIND,
        payload: { subscription_id: row.id, actor_id: call.actor.principalId, request_id: call.requestId },
      },
    });
    const delivery = await bound.db.webhookDelivery.create({
      data: { id: newId('webhookDelivery'), workspaceId: row.workspaceId, subscriptionId: row.id, eventId: event.id, eventKind: PING_KIND },
    });
    await bound.db.$executeRaw`SELECT pg_notify(${WEBHOOK_CHANNEL}, ${event.id})`;
    return delivery;
  });
}

export async function listDeliveries(
  call: CallContext,
  subscriptionId: string,
  args: { status?: string | null; limit?: number | null; cursor?: string | null },
) {
  await getSubscription(call, subscriptionId);
  if (args.status != null && !['pending', 'succeeded', 'failed'].includes(args.status))
    throw invalidArgument('status must be pending, succeeded or failed', 'status');
  // Scoped by the subscription, found in the caller's workspace above; `status` is checked before the page arguments.
  const shape = newestFirst('webhook-deliveries', { workspaceScoped: false });
  const query = listQuery(shape, call, { limit: args.limit, cursor: args.cursor });
  const rows = await call.db.webhookDelivery.findMany(query.findArgs({ subscriptionId, ...(args.status ? { status: args.status } : {}) }));
  return query.page(rows);
}

/** A delivery of the caller's workspace (of `subscriptionId`, when named: REST paths name both). */
export async function getDelivery(call: CallContext, id: string, subscriptionId?: string | null): Promise<WebhookDelivery> {
  requirePermission(call.actor, 'admin');
  const row = looksLikeId('webhookDelivery', id) ? await call.db.webhookDelivery.findUnique({ where: { id } }) : null;
  if (!row || row.workspaceId !== call.actor.workspaceId || (subscriptionId != null && row.subscriptionId !== subscriptionId))
    throw notFound('webhook delivery', id);
  return row;
}

/**
 * Sends a delivery again, with the same event and so the same `webhook-id`: the delivery is pending
 * again with a fresh retry schedule (its attempt log keeps every earlier attempt). A delivery still
 * pending is left as it is; a disabled subscription refuses (`disabled`).
 */
export async function redeliver(call: CallContext, id: string, subscriptionId?: string | null): Promise<WebhookDelivery> {
  requirePermission(call.actor, 'admin');
  return inTransaction(call, async (bound) => {
    // Locked first: retention (which skips locked rows) cannot delete it under the update; one it
    // deleted just before is not found here, as any unknown id.
    await bound.db.$queryRaw`SELECT id FROM webhook_deliveries WHERE id = ${id} FOR UPDATE`;
    const delivery = await getDelivery(bound, id, subscriptionId);
    const subscription = await getSubscription(bound, delivery.subscriptionId);
    if (!subscription.enabled) throw new AppError('disabled', 'the subscription is disabled; enable it first');
    if (delivery.status === 'pending') return delivery;
    const updated = await bound.db.webhookDelivery.update({
      where: { id },
      data: { status: 'pending', attempts: 0, nextAttemptAt: new Date(), leaseExpiresAt: null, completedAt: null, updatedAt: new Date() },
    });
    await recordAudit(bound, { action: 'redeliver', resourceKind: 'webhook_delivery', resourceId: id });
    await bound.db.$executeRaw`SELECT pg_notify(${WEBHOOK_CHANNEL}, ${delivery.eventId})`;
    return updated;
  });
}
