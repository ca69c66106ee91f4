// Delivering webhook events: claiming due deliveries, one signed HTTP attempt, and what its outcome
// does to the delivery (succeeded, retried later, or failed for good) and to its subscription
// (disabled after repeated failure). The loop that drives this is src/engine/webhook-deliverer.ts.
//
// Claims take rows with FOR UPDATE SKIP LOCKED and push their due time forward by a lease, so any
// number of service and worker processes share the work; a process killed mid-attempt leaves the
// delivery due again when the lease ends, and its next attempt carries the same event, so the same
// `webhook-id`. A receiver may therefore see an event twice (at least once, never lost), and uses
// the id to drop the repeat.
import { Webhook } from 'standardwebhooks';
import Type, { type Static } from 'typebox';
import type { WebhookDelivery } from '../../generated/prisma/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { SYSTEM_PRINCIPAL, type Deps } from '../../services/deps.js';
import { recordServiceAudit } from '../audit/audit.js';
import { announceWebhookDeliveryChanged } from '../../services/event-topics.js';
import { checkEndpointUrl } from '../models/providers.js';
import { PING_KIND } from './webhook-events.js';
import { AttemptTimeoutError, postWebhook } from './webhook-http.js';
import { outboundPolicy, outboundRefusalOf } from '../../lib/outbound-policy.js';
import { readDocument } from '../../lib/json-documents.js';

/** Kept of a receiver's answer in the attempt log. */
const KEPT_RESPONSE_CHARS = 1024;
/**
 * How long a claim lasts before another process may take the delivery: twice the attempt's time-out
 * and a second (the attempt is bounded by the time-out; the rest covers reading the rows and
 * recording the outcome), so only a process that died leaves a claim to run out.
 */
const leaseMs = (timeoutMs: number) => 2 * timeoutMs + 1_000;

/** One attempt as the delivery's `attempt_log` keeps it (GraphQL's `WebhookDeliveryAttempt`). */
export const AttemptRecord = Type.Object({
  attempt: Type.Integer(),
  at: Type.String(),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  latency_ms: Type.Number(),
  error: Type.Union([Type.String(), Type.Null()]),
  response: Type.Union([Type.String(), Type.Null()]),
});
export type AttemptRecord = Static<typeof AttemptRecord>;
const AttemptLog = Type.Array(AttemptRecord);

/** A delivery's attempts so far, oldest first. */
export const attemptLogOf = (delivery: Pick<WebhookDelivery, 'attemptLog'>): AttemptRecord[] =>
  readDocument(AttemptLog, delivery.attemptLog, 'webhook_deliveries.attempt_log');

/** Claims up to `limit` due deliveries for this process. */
export async function claimDueDeliveries(deps: Deps, limit: number): Promise<WebhookDelivery[]> {
  const lease = leaseMs(deps.config.webhookTimeoutMs);
  const rows = await deps.db.$queryRaw<{ id: string }[]>`
    UPDATE webhook_deliveries SET next_attempt_at = now() + make_interval(secs => ${lease / 1000}),
      lease_expires_at = now() + make_interval(secs => ${lease / 1000}), updated_at = now()
    WHERE id IN (
      SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
      ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    RETURNING id`;
  if (!rows.length) return [];
  return deps.db.webhookDelivery.findMany({ where: { id: { in: rows.map((row) => row.id) } }, orderBy: { id: 'asc' } });
}

/** When the next pending delivery is due (a lease end included), or null when none is pending. */
export async function nextDueAt(deps: Deps): Promise<Date | null> {
  const rows = await deps.db.$queryRaw<{ due: Date | null }[]>`
    SELECT min(next_attempt_at) AS due FROM webhook_deliveries WHERE status = 'pending'`;
  return rows[0]?.due ?? null;
}

/** The retry delay after failed attempt number `attempt` (1-based), jittered by ±20 %; null when the schedule is spent. */
export function retryDelayMs(schedule: readonly number[], attempt: number, random = Math.random): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** The body every attempt of an event sends: the same bytes each time. */
export function eventBody(event: { id: string; kind: string; payload: unknown; createdAt: Date }): string {
  return JSON.stringify({ type: event.kind, timestamp: event.createdAt.toISOString(), data: event.payload });
}

/**
 * One attempt of `delivery` (already claimed). Never throws for the receiver's faults: they are the
 * attempt's outcome. Returns the delivery as it is afterwards, or null when the claim was lost.
 */
export async function attemptDelivery(deps: Deps, delivery: WebhookDelivery): Promise<WebhookDelivery | null> {
  const { config, logger } = deps;
  const subscription = await deps.db.webhookSubscription.findUnique({ where: { id: delivery.subscriptionId } });
  const event = await deps.db.webhookEvent.findUnique({ where: { id: delivery.eventId } });
  const log = attemptLogOf(delivery);
  const number = log.length + 1;
  const started = new Date();
  let statusCode: number | null = null;
  let error: string | null = null;
  let response: string | null = null;
  let permanent = false;
  const t0 = performance.now();
  if (!subscription || !event) {
    // Deleted meanwhile: nothing to record on.
    return null;
  }
  if (!subscription.enabled && delivery.eventKind !== PING_KIND) {
    error = 'the subscription is disabled';
    permanent = true;
  } else {
    try {
      // The endpoint policy applies at every attempt: the deployment's allowance may have changed.
      checkEndpointUrl(deps, subscription.url, 'url');
      const body = eventBody(event);
      const secrets = [subscription.secretCiphertext];
      if (subscription.previousSecretCiphertext && subscription.previousSecretExpiresAt && subscription.previousSecretExpiresAt > started)
        secrets.push(subscription.previousSecretCiphertext);
      // Standard Webhooks: every valid signature, space-separated; receivers accept any one they can verify.
      const signature = secrets.map((sealed) => new Webhook(deps.secrets.decrypt(sealed)).sign(event.id, started, body)).join(' ');
      const answer = await postWebhook(
        new URL(subscription.url),
        {
          'content-type': 'application/json',
          'user-agent': 'workspace-agent-service-webhooks/1',
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(started.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
        {
          timeoutMs: config.webhookTimeoutMs,
          maxBytes: config.webhookMaxResponseBytes,
          policy: outboundPolicy(config.outboundAllowPrivate),
        },
      );
      statusCode = answer.status;
      response = answer.body.slice(0, KEPT_RESPONSE_CHARS) || null;
      if (answer.status < 200 || answer.status >= 300) error = `the receiver answered ${answer.status}`;
    } catch (caught) {
      const err = caught as Error & { code?: string; extensions?: { code?: string } };
      if (err.name === AttemptTimeoutError.name) error = err.message;
      else if (outboundRefusalOf(err) || err.extensions?.code === 'invalid_argument') {
        // The target is refused by the deployment's rules: retrying would not change that.
        error = (outboundRefusalOf(err) ?? err).message;
        permanent = true;
      } else error = `could not reach the receiver: ${err.code ?? err.message}`.slice(0, 500);
    }
  }
  const latency = Math.round(performance.now() - t0);
  const record: AttemptRecord = {
    attempt: number,
    at: started.toISOString(),
    status_code: statusCode,
    latency_ms: latency,
    error,
    response,
  };
  const succeeded = error === null;
  const attempts = delivery.attempts + 1;
  const delay = succeeded || permanent ? null : retryDelayMs(config.webhookRetryDelaysMs, attempts);
  const status = succeeded ? 'succeeded' : delay === null ? 'failed' : 'pending';
  const now = new Date();
  const recorded = await deps.db.$transaction(async (tx) => {
    // Only the holder of the claim records (a lease that ran out let another process take it).
    const rows = await tx.$queryRaw<{ id: string }[]>`
      UPDATE webhook_deliveries SET status = ${status}, attempts = ${attempts}, last_status_code = ${statusCode}::int, last_error = ${error},
        last_latency_ms = ${latency}::int, attempt_log = attempt_log || ${JSON.stringify([record])}::jsonb, updated_at = now(),
        lease_expires_at = NULL, completed_at = ${status === 'pending' ? null : now}::timestamptz,
        next_attempt_at = ${delay === null ? null : new Date(now.getTime() + delay)}::timestamptz
      WHERE id = ${delivery.id} AND status = 'pending' AND lease_expires_at IS NOT DISTINCT FROM ${delivery.leaseExpiresAt}::timestamptz
      RETURNING id`;
    if (!rows.length) return null;
    if (delivery.eventKind !== PING_KIND) {
      if (succeeded)
        await tx.webhookSubscription.updateMany({
          where: { id: subscription.id, consecutiveFailures: { gt: 0 } },
          data: { consecutiveFailures: 0 },
        });
      else if (status === 'failed' && !permanent) await recordFailure(deps, tx, subscription.id);
    }
    logger.info(
      { deliveryId: delivery.id, subscriptionId: subscription.id, attempt: number, statusCode, error, status },
      'webhook delivery attempt',
    );
    return tx.webhookDelivery.findUnique({ where: { id: delivery.id } });
  });
  // Committed: followers of the subscription's deliveries read it now (webhookDeliveryUpdated).
  if (recorded) announceWebhookDeliveryChanged(deps.events, recorded);
  return recorded;
}

/**
 * A delivery failed for good: count it; after too many in a row the subscription is disabled, with
 * the reason, a new version and an audit row by the system principal.
 */
async function recordFailure(deps: Deps, tx: Prisma.TransactionClient, subscriptionId: string) {
  const limit = deps.config.webhookDisableAfterFailures;
  const reason = `disabled after ${limit} deliveries in a row failed every attempt`;
  const rows = await tx.$queryRaw<{ workspaceId: string; version: number; disabledNow: boolean }[]>`
    UPDATE webhook_subscriptions s SET consecutive_failures = s.consecutive_failures + 1,
      enabled = CASE WHEN s.consecutive_failures + 1 >= ${limit}::int THEN false ELSE s.enabled END,
      disabled_reason = CASE WHEN s.enabled AND s.consecutive_failures + 1 >= ${limit}::int THEN ${reason} ELSE s.disabled_reason END,
      disabled_at = CASE WHEN s.enabled AND s.consecutive_failures + 1 >= ${limit}::int THEN now() ELSE s.disabled_at END,
      version = CASE WHEN s.enabled AND s.consecutive_failures + 1 >= ${limit}::int THEN s.version + 1 ELSE s.version END,
      updated_by_id = CASE WHEN s.enabled AND s.consecutive_failures + 1 >= ${limit}::int THEN ${SYSTEM_PRINCIPAL} ELSE s.updated_by_id END,
      updated_at = CASE WHEN s.enabled AND s.consecutive_failures + 1 >= ${limit}::int THEN now() ELSE s.updated_at END
    FROM (SELECT id, enabled AS was_enabled FROM webhook_subscriptions WHERE id = ${subscriptionId} FOR UPDATE) before
    WHERE s.id = before.id
    RETURNING s.workspace_id AS "workspaceId", s.version, (before.was_enabled AND NOT s.enabled) AS "disabledNow"`;
  const row = rows[0];
  if (!row?.disabledNow) return;
  deps.logger.warn({ subscriptionId, reason }, 'webhook subscription disabled');
  await recordServiceAudit(tx, {
    workspaceId: row.workspaceId,
    action: 'disable',
    resourceKind: 'webhook_subscription',
    resourceId: subscriptionId,
    version: row.version,
    changes: { enabled: { from: true, to: false }, disabled_reason: { from: null, to: reason } },
  });
}
