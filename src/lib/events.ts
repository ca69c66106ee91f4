// Typed pubsub for live updates (graphql-yoga's createPubSub). In-process by default; with
// REDIS_URL the events travel through Redis, so every instance (service or worker process) sees
// every event — a subscriber on one instance follows a run executed by another. The topics and
// their payloads are declared by the services (src/services/event-topics.ts): this module is only
// the mechanism.
import { createPubSub, type PubSub, type PubSubEventTarget } from 'graphql-yoga';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';

/** Topic → the arguments of `publish`: an optional id the subscription filters on, then the payload. */
export type TopicMap = { [topic: string]: [payload: unknown] | [id: string, payload: unknown] };

export type EventBus<Topics extends TopicMap> = PubSub<Topics>;

const redisClients = new WeakMap<object, Redis[]>();

export function createEvents<Topics extends TopicMap>(options: { redisUrl?: string | null } = {}): EventBus<Topics> {
  if (!options.redisUrl) return createPubSub<Topics>();
  const publishClient = new Redis(options.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(options.redisUrl, { lazyConnect: false });
  const eventTarget: PubSubEventTarget<Topics> = createRedisEventTarget({ publishClient, subscribeClient });
  const events = createPubSub<Topics>({ eventTarget });
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
