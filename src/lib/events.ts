// Typed pubsub for live updates (graphql-yoga's createPubSub). In-process by default; with
// REDIS_URL the events travel through Redis, so every instance (service or worker process) sees
// every event — a subscriber on one instance follows a run executed by another.
import { createPubSub } from 'graphql-yoga';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';

export type Events = ReturnType<typeof createEvents>;

type EventTopics = {
  workspaceUpdated: [workspaceId: string, payload: any];
  /** A run was accepted: wakes the workers (no polling on the run path). */
  runAccepted: [payload: { runId: string }];
  /** Cancellation of a running run was requested: its worker aborts the model call. */
  runCancelRequested: [payload: { runId: string }];
  /** A run item was opened, grew or was committed (full item state, with its stream sequence). */
  runItem: [runId: string, payload: any];
  /** A run's row changed (status, pending, output…). */
  runChanged: [runId: string, payload: any];
  presenceChanged: [workspaceId: string, payload: any];
};

function typedPubSub(config?: { eventTarget: ReturnType<typeof createRedisEventTarget> }) {
  return createPubSub<EventTopics>(config as never);
}

const redisClients = new WeakMap<object, Redis[]>();

export function createEvents(options: { redisUrl?: string | null } = {}) {
  if (!options.redisUrl) return typedPubSub();
  const publishClient = new Redis(options.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(options.redisUrl, { lazyConnect: false });
  const events = typedPubSub({ eventTarget: createRedisEventTarget({ publishClient, subscribeClient }) });
  redisClients.set(events, [publishClient, subscribeClient]);
  return events;
}

/** The Redis connections of an event bus (publish, subscribe), or null in process. */
export function redisClientsOf(events: object): { publish: Redis; subscribe: Redis } | null {
  const clients = redisClients.get(events);
  return clients ? { publish: clients[0]!, subscribe: clients[1]! } : null;
}

/**
 * Resolves once every subscription started so far receives events. In process a subscription
 * listens as soon as its iterator's first `next()` is called; through Redis the SUBSCRIBE is sent
 * without waiting, so a PING on the same connection answers only after Redis has processed it.
 */
export async function subscriptionsActive(events: object): Promise<void> {
  await redisClients.get(events)?.[1]?.ping();
}

/** Closes the Redis connections of an event bus (no-op in-process). */
export async function closeEvents(events: object): Promise<void> {
  for (const client of redisClients.get(events) ?? []) await client.quit().catch(() => client.disconnect());
}
