// Typed pubsub for live updates (graphql-yoga's createPubSub). In-process by default; with
// REDIS_URL the events travel through Redis, so every instance (service or worker process) sees
// every event — a subscriber on one instance follows a run executed by another. The topics and
// their payloads are declared by the services (src/services/event-topics.ts): this module is only
// the mechanism.
//
// Redis may go away (a restart, a failover, a network blip); no process ends for it. Both
// connections keep their commands while they reconnect (no per-command retry limit), so events
// published meanwhile are delayed, not lost, and reach Redis in order once it is back — up to a
// bound (`maxWaitingCommands`): past it, a long outage under load would hold every streamed change
// in memory, so further events are dropped until Redis is back, which the catch-up below makes
// good (every follower's state is in the database). Events
// Redis delivered while this process's subscribing connection was away are lost to it, though: when
// a connection is back (resubscribed), `onReconnected` handlers run, and each follower reads what it
// follows again from the database (see run-items.ts, run-watch.ts).
import { createPubSub, type PubSub, type PubSubEventTarget } from 'graphql-yoga';
import { Redis } from 'ioredis';
import type { Logger } from './logger.js';

/** Topic → the arguments of `publish`: an optional id the subscription filters on, then the payload. */
export type TopicMap = { [topic: string]: [payload: unknown] | [id: string, payload: unknown] };

export type EventBus<Topics extends TopicMap> = PubSub<Topics>;

interface RedisBus {
  publish: Redis;
  subscribe: Redis;
  reconnected: Set<() => void>;
  /** Commands sent on the publishing connection and not yet answered (held while Redis is away). */
  waiting: number;
  /** Commands dropped because Redis was away and `maxWaitingCommands` were already waiting. */
  dropped: number;
  maxWaitingCommands: number;
  logger: Logger | undefined;
}

/**
 * How many commands the publishing connection holds while Redis is away before it drops new ones.
 * A streamed change is a few commands of at most a few kilobytes, so this keeps an outage's backlog
 * to tens of megabytes while a restart or failover of some seconds loses nothing.
 */
export const MAX_WAITING_COMMANDS = 20_000;

const redisBuses = new WeakMap<object, RedisBus>();
const eventTargets = new WeakMap<object, PubSubEventTarget<TopicMap>>();

export function createEvents<Topics extends TopicMap>(
  options: { redisUrl?: string | null; logger?: Logger; maxWaitingCommands?: number } = {},
): EventBus<Topics> {
  if (!options.redisUrl) {
    // The same target createPubSub would make itself, kept so that `listen` can reach it.
    const eventTarget = new EventTarget() as PubSubEventTarget<Topics>;
    const events = createPubSub<Topics>({ eventTarget });
    eventTargets.set(events, eventTarget as PubSubEventTarget<TopicMap>);
    return events;
  }
  // maxRetriesPerRequest: null — a command waits for its connection to come back however long that
  // takes, instead of failing after a few reconnection attempts (which, unhandled, ended the process).
  const connection = { lazyConnect: false, maxRetriesPerRequest: null };
  const bus: RedisBus = {
    publish: new Redis(options.redisUrl, { ...connection, connectionName: 'wsa-publish' }),
    subscribe: new Redis(options.redisUrl, { ...connection, connectionName: 'wsa-subscribe' }),
    reconnected: new Set(),
    waiting: 0,
    dropped: 0,
    maxWaitingCommands: options.maxWaitingCommands ?? MAX_WAITING_COMMANDS,
    logger: options.logger,
  };
  const logger = options.logger;
  watchConnection(bus, bus.publish, 'publish', logger);
  watchConnection(bus, bus.subscribe, 'subscribe', logger);
  const eventTarget = redisEventTarget(bus, logger) as PubSubEventTarget<Topics>;
  const events = createPubSub<Topics>({ eventTarget });
  redisBuses.set(events, bus);
  eventTargets.set(events, eventTarget as PubSubEventTarget<TopicMap>);
  return events;
}

/**
 * Logs a connection's loss once (not at each reconnection attempt) and its return, and after a
 * return runs the bus's `onReconnected` handlers — once the connection has sent again what it kept
 * (the publisher's waiting commands, the subscriber's SUBSCRIBEs): a PING sent after them answers
 * after Redis ran them. ioredis emits `ready` before it resubscribes, hence the deferred PING.
 */
function watchConnection(bus: RedisBus, client: Redis, role: string, logger: Logger | undefined) {
  let lost = false;
  let connectedOnce = false;
  client.on('error', (error: Error) => {
    if (lost) return;
    lost = true;
    logger?.warn({ err: error, connection: role }, 'Redis connection lost; reconnecting (events across instances wait meanwhile)');
  });
  client.on('close', () => {
    if (connectedOnce) lost = true;
  });
  client.on('ready', () => {
    // The count of an outage's dropped events starts again: nothing is dropped while connected.
    const dropped = bus.dropped;
    if (client === bus.publish) bus.dropped = 0;
    const returning = connectedOnce && lost;
    connectedOnce = true;
    lost = false;
    if (!returning) return;
    setImmediate(() => {
      client
        .ping()
        .then(() => {
          logger?.info(
            { connection: role, ...(client === bus.publish ? { droppedEvents: dropped } : {}) },
            'Redis connection back; followers catch up from the database',
          );
          for (const handler of bus.reconnected) handler();
        })
        .catch(() => undefined); // lost again: the next `ready` runs the handlers
    });
  });
}

/**
 * The Redis event target: one channel per topic (`topic:id`), JSON payloads — what
 * @graphql-yoga/redis-event-target does, with its failures handled: that target drops the promises
 * of its PUBLISH and SUBSCRIBE, so a command that failed was an unhandled rejection ending the
 * process, and a listener that threw escaped into ioredis' event handler.
 */
function redisEventTarget(bus: RedisBus, logger: Logger | undefined): PubSubEventTarget<TopicMap> {
  const listeners = new Map<string, Set<EventListener>>();
  const failed = (what: string) => (error: unknown) => logger?.debug({ err: error }, `Redis ${what} failed`);
  bus.subscribe.on('message', (channel: string, message: string) => {
    const callbacks = listeners.get(channel);
    if (!callbacks) return;
    let detail: unknown;
    try {
      detail = message === '' ? null : JSON.parse(message);
    } catch (error) {
      logger?.warn({ err: error, channel }, 'an event that is not JSON was ignored');
      return;
    }
    const event = new CustomEvent(channel, { detail });
    for (const callback of callbacks) {
      try {
        callback(event);
      } catch (error) {
        logger?.error({ err: error, channel }, 'an event listener failed');
      }
    }
  });
  const callbackOf = (listener: EventListenerOrEventListenerObject) =>
    'handleEvent' in listener ? listener.handleEvent.bind(listener) : listener;
  const byListener = new WeakMap<EventListenerOrEventListenerObject, EventListener>();
  return {
    addEventListener(topic: string, listener: EventListenerOrEventListenerObject | null) {
      if (!listener) return;
      let callbacks = listeners.get(topic);
      if (!callbacks) {
        listeners.set(topic, (callbacks = new Set()));
        bus.subscribe.subscribe(topic).catch(failed('SUBSCRIBE'));
      }
      const callback = byListener.get(listener) ?? callbackOf(listener);
      byListener.set(listener, callback);
      callbacks.add(callback);
    },
    removeEventListener(topic: string, listener: EventListenerOrEventListenerObject | null) {
      const callbacks = listeners.get(topic);
      const callback = listener && byListener.get(listener);
      if (!callbacks || !callback) return;
      callbacks.delete(callback);
      if (callbacks.size) return;
      listeners.delete(topic);
      bus.subscribe.unsubscribe(topic).catch(failed('UNSUBSCRIBE'));
    },
    dispatchEvent(event: Event) {
      const detail = (event as CustomEvent).detail;
      const message = detail === undefined ? '' : JSON.stringify(detail);
      sendBounded(bus, (client) => client.publish(event.type, message));
      return true;
    },
  } as PubSubEventTarget<TopicMap>;
}

/**
 * Sends commands on the bus's publishing connection, unless Redis is away and the connection already
 * holds `maxWaitingCommands`: then nothing is sent and false is returned (the first drop of an
 * outage is logged). A command's failure is logged at debug level: it fails only when the process
 * closes the connection, and then nobody is left to tell.
 */
function sendBounded(bus: RedisBus, send: (client: Redis) => Promise<unknown>[] | Promise<unknown>): boolean {
  const logger = bus.logger;
  if (bus.publish.status !== 'ready' && bus.waiting >= bus.maxWaitingCommands) {
    if (bus.dropped++ === 0 || bus.dropped % bus.maxWaitingCommands === 0)
      logger?.warn(
        { dropped: bus.dropped, waiting: bus.waiting },
        'Redis is away and its backlog is full: events are dropped until it is back (followers catch up from the database)',
      );
    return false;
  }
  const sent = send(bus.publish);
  for (const command of Array.isArray(sent) ? sent : [sent]) {
    bus.waiting++;
    command.catch((error: unknown) => logger?.debug({ err: error }, 'Redis command failed')).finally(() => bus.waiting--);
  }
  return true;
}

/**
 * The bounded sender of an event bus's publishing connection (see `sendBounded`), for modules that
 * write to Redis beside the events (the run tail), or null in process. Commands given in one call
 * are sent, or dropped, together.
 */
export function redisSender(events: object): ((send: (client: Redis) => Promise<unknown>[] | Promise<unknown>) => boolean) | null {
  const bus = redisBuses.get(events);
  return bus ? (send) => sendBounded(bus, send) : null;
}

/** What the publishing connection holds while Redis is away, and what it dropped (null in process). */
export function redisBacklog(events: object): { waiting: number; dropped: number } | null {
  const bus = redisBuses.get(events);
  return bus ? { waiting: bus.waiting, dropped: bus.dropped } : null;
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

/**
 * Calls `handler` each time a Redis connection of the bus is back after a loss, resubscribed and
 * caught up with what it kept: events published meanwhile may have been missed, so a follower reads
 * its state again. Never called in process (nothing is ever lost there).
 */
export function onReconnected(events: object, handler: () => void): () => void {
  const bus = redisBuses.get(events);
  if (!bus) return () => undefined;
  bus.reconnected.add(handler);
  return () => bus.reconnected.delete(handler);
}

/** The Redis connections of an event bus (publish, subscribe), or null in process. */
export function redisClientsOf(events: object): { publish: Redis; subscribe: Redis } | null {
  const bus = redisBuses.get(events);
  return bus ? { publish: bus.publish, subscribe: bus.subscribe } : null;
}

/** Whether both Redis connections of the bus are up (null in process: there is no Redis to reach). */
export function redisReady(events: object): boolean | null {
  const bus = redisBuses.get(events);
  return bus ? bus.publish.status === 'ready' && bus.subscribe.status === 'ready' : null;
}

/**
 * Resolves once every subscription started so far receives events. In process a subscription
 * listens as soon as its iterator's first `next()` is called; through Redis the SUBSCRIBE is sent
 * without waiting, so a PING on the same connection answers only after Redis has processed it.
 * While the subscribing connection is away it resolves at once: the SUBSCRIBE waits for the
 * connection, and followers read their state again when it is back (`onReconnected`).
 */
export async function subscriptionsActive(events: object): Promise<void> {
  const subscribe = redisBuses.get(events)?.subscribe;
  if (!subscribe || subscribe.status !== 'ready') return;
  await subscribe.ping();
}

/** Closes the Redis connections of an event bus (no-op in-process). */
export async function closeEvents(events: object): Promise<void> {
  const bus = redisBuses.get(events);
  if (!bus) return;
  bus.reconnected.clear();
  // QUIT would wait for a connection that is away (commands wait for it): only a connected one says goodbye.
  for (const client of [bus.publish, bus.subscribe]) {
    if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
  }
}
