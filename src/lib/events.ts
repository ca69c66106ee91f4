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
const eventTargets = new WeakMap<object, PubSubEventTarget<TopicMap>>();

export function createEvents<Topics extends TopicMap>(options: { redisUrl?: string | null } = {}): EventBus<Topics> {
  if (!options.redisUrl) {
    // The same target createPubSub would make itself, kept so that `listen` can reach it.
    const eventTarget = new EventTarget() as PubSubEventTarget<Topics>;
    const events = createPubSub<Topics>({ eventTarget });
    eventTargets.set(events, eventTarget as PubSubEventTarget<TopicMap>);
    return events;
  }
  const publishClient = new Redis(options.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(options.redisUrl, { lazyConnect: false });
  const eventTarget: PubSubEventTarget<Topics> = createRedisEventTarget({ publishClient, subscribeClient });
  const events = createPubSub<Topics>({ eventTarget });
  redisClients.set(events, [publishClient, subscribeClient]);
  eventTargets.set(events, eventTarget as PubSubEventTarget<TopicMap>);
  return events;
}

/**
 * Calls `listener` synchronously with each payload published on `topic` (for `id`), until the
 * returned function is called. Unlike an iterator from `subscribe`, listeners of several topics see
 * their events in the order they were published (in process: as published; through Redis: in the
 * order Redis ran the PUBLISHes, one publishing connection per process) — so a follower of a run's
 * items and of its status can trust that no item published before the status is still on its way.
 * And it costs one function call per event, not a repeater and a promise chain per subscriber.
 */
export function listen(events: object, topic: string, id: string, listener: (payload: unknown) => void): () => void {
  const target = eventTargets.get(events);
  if (!target) throw new Error('listen: this event bus was not made by createEvents');
  const type = `${topic}:${id}`;
  const handler = (event: Event) => listener((event as CustomEvent).detail);
  target.addEventListener(type, handler);
  return () => target.removeEventListener(type, handler);
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
