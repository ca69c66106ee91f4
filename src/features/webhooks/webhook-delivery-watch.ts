// Following a webhook subscription's deliveries live: the webhookDeliveryUpdated subscription. Two
// kinds of change are announced, each after it committed, and a follower reads the deliveries named
// when it hears them (never on a timer):
//
// - A delivery becomes due — created by the outbox (`webhook_enqueue`, inside whatever statement made
//   the event: a run's seal, an audit row…), by the test action, or pending again after a redelivery.
//   Each of these already sends `NOTIFY webhook_deliveries` with the event's id at commit, to wake the
//   deliverers, and every process hears it on its LISTEN connection. So each process relays it to
//   its own followers (`relayDueDeliveries`): one read of the event's deliveries to the subscriptions
//   followed here, only when something here follows one. Nothing crosses Redis: every process heard
//   the notification itself.
// - An attempt is recorded (succeeded, retry scheduled, failed for good): the deliverer that made it
//   publishes `webhookDeliveryChanged` on the event bus (through Redis with REDIS_URL, so a follower
//   on another instance hears a worker process's attempt).
import type { WebhookDelivery } from '../../generated/prisma/client.js';
import { subscriptionsActive } from '../../lib/events.js';
import { closableStream, onClose } from '../../lib/closable-stream.js';
import { listenTo } from '../../services/event-topics.js';
import type { CallContext } from '../../services/call-context.js';
import type { Deps } from '../../services/deps.js';
import { getSubscription } from './webhook-subscriptions.js';
import { Wakeup } from '../../lib/wakeup.js';

/** Delivery states remembered per follower, to drop a repeat; the oldest are forgotten beyond this. */
const REMEMBERED_STATES = 1_000;

interface DueFollower {
  /** A delivery of the followed subscription became due. */
  heard(deliveryId: string): void;
  /** The LISTEN connection was lost and is back: notifications may have been missed. */
  resync(): void;
}

/** The followers of this process, by webhook subscription id. */
const followersByApp = new WeakMap<object, Map<string, Set<DueFollower>>>();

function followersOf(deps: Deps): Map<string, Set<DueFollower>> {
  let followers = followersByApp.get(deps);
  if (!followers) followersByApp.set(deps, (followers = new Map()));
  return followers;
}

/** How many followers of `subscriptionId` this process has (what the relay reads for). */
export function dueDeliveryFollowers(deps: Deps, subscriptionId: string): number {
  return followersByApp.get(deps)?.get(subscriptionId)?.size ?? 0;
}

function followDueDeliveries(deps: Deps, subscriptionId: string, follower: DueFollower): () => void {
  const followers = followersOf(deps);
  let set = followers.get(subscriptionId);
  if (!set) followers.set(subscriptionId, (set = new Set()));
  set.add(follower);
  return () => {
    set.delete(follower);
    if (!set.size && followers.get(subscriptionId) === set) followers.delete(subscriptionId);
  };
}

/**
 * The outbox announced event `eventId` (its `NOTIFY webhook_deliveries`): tells this process's
 * followers of the subscriptions it went to. Reads nothing when nobody here follows deliveries.
 */
export async function relayDueDeliveries(deps: Deps, eventId: string): Promise<void> {
  const followers = followersByApp.get(deps);
  if (!followers?.size || !eventId) return;
  try {
    const rows = await deps.db.webhookDelivery.findMany({
      where: { eventId, subscriptionId: { in: [...followers.keys()] } },
      select: { id: true, subscriptionId: true },
    });
    for (const row of rows) for (const follower of followers.get(row.subscriptionId) ?? []) follower.heard(row.id);
  } catch (error) {
    deps.logger.warn({ err: error, eventId }, 'relaying webhook deliveries to their followers failed');
  }
}

/** After a lost LISTEN connection: every follower reads what changed since it started. */
export function resyncDeliveryFollowers(deps: Deps): void {
  for (const set of followersByApp.get(deps)?.values() ?? []) for (const follower of set) follower.resync();
}

/** What a follower emits again only when it changed: a claim (a new lease) changes none of it. */
function stateOf(delivery: WebhookDelivery): string {
  const log = Array.isArray(delivery.attemptLog) ? delivery.attemptLog.length : 0;
  return `${delivery.status}|${delivery.attempts}|${log}`;
}

/**
 * Emits a delivery of the subscription each time it is created or becomes due again (a redelivery)
 * and each time an attempt is recorded, as it is when read after the announcement. Needs `admin`, as
 * the deliveries query; another workspace's subscription is not found (before anything listens).
 * Emits nothing at the start: a client that needs the list reads `webhookDeliveries`.
 */
export async function watchWebhookDeliveries(call: CallContext, subscriptionId: string): Promise<AsyncGenerator<WebhookDelivery>> {
  await getSubscription(call, subscriptionId);
  const { deps } = call;
  return closableStream(async function* (closed) {
    const named = new Set<string>();
    let resync = false;
    const wakeup = new Wakeup();
    const { wake } = wakeup;
    const heard = (deliveryId: string) => {
      named.add(deliveryId);
      wake();
    };
    const startedAt = new Date();
    const stopBus = listenTo(deps.events, 'webhookDeliveryChanged', subscriptionId, ({ deliveryId }) => heard(deliveryId));
    const stopDue = followDueDeliveries(deps, subscriptionId, {
      heard,
      resync: () => {
        resync = true;
        wake();
      },
    });
    const stopClose = onClose(closed, wake);
    const sent = new Map<string, string>();
    try {
      await subscriptionsActive(deps.events);
      while (!closed.aborted) {
        if (!named.size && !resync) {
          await wakeup.wait();
          continue;
        }
        const ids = [...named];
        named.clear();
        const since = resync ? startedAt : null;
        resync = false;
        // Reads one at a time, so each emission is the delivery as it is after the one before.
        const rows = await call.db.webhookDelivery.findMany({
          where: { subscriptionId, OR: [{ id: { in: ids } }, ...(since ? [{ updatedAt: { gte: since } }] : [])] },
          orderBy: { id: 'asc' },
        });
        for (const row of rows) {
          const state = stateOf(row);
          // An announcement read after a later change already showed that change: no repeat.
          if (sent.get(row.id) === state) continue;
          sent.delete(row.id);
          sent.set(row.id, state);
          if (sent.size > REMEMBERED_STATES) sent.delete(sent.keys().next().value!);
          yield row;
        }
      }
    } finally {
      stopClose();
      stopDue();
      stopBus();
    }
  });
}
