// The live tail of a running run's items: the latest state of every item its current attempt has
// changed, kept until the attempt's items are committed. The item writer streams changes first and
// writes the database behind them, so a subscriber that arrives mid-run reads the tail (what is not
// yet written) and then the database (what is) — no waiting for the writer.
//
// Every change goes through `publish`: the tail records it, then the event bus carries it
// (`runItem:{runId}`). In process both happen synchronously. With REDIS_URL the tail is a Redis hash
// (`wsa:run-tail:{runId}`, field = ordinal) written with HSET on the event bus's own publish
// connection right before the PUBLISH: Redis runs one connection's commands in order, so a change
// whose PUBLISH a subscriber missed is already in the hash the subscriber reads afterwards.
import type { Redis } from 'ioredis';
import { redisClientsOf, redisSender } from '../../lib/events.js';
import type { Events, ItemView } from '../../services/event-topics.js';

type RedisSend = NonNullable<ReturnType<typeof redisSender>>;

/** An item state as published (the public item view). */
export type TailItem = ItemView;

export interface RunTail {
  /** Records the item's latest state, then publishes it on the event bus (topic `runItem`). */
  publish(runId: string, item: TailItem): void;
  /** The latest state of every item the run's current attempt changed (some may already be committed). */
  read(runId: string): Promise<TailItem[]>;
  /** The attempt's items are committed (sealed, handed back, requeued): the tail is no longer needed. */
  forget(runId: string): void;
}

/** A crashed writer never forgets its tail: Redis drops it after this long. */
const REDIS_TAIL_TTL_MS = 60 * 60 * 1000;
const tailKey = (runId: string) => `wsa:run-tail:${runId}`;

const tails = new WeakMap<Events, RunTail>();

/** The run tail that belongs to this event bus (one per bus: in process, or in its Redis). */
export function runTail(events: Events): RunTail {
  let tail = tails.get(events);
  if (!tail) {
    const redis = redisClientsOf(events);
    const send = redisSender(events);
    tail = redis && send ? redisTail(redis.publish, send) : processTail(events);
    tails.set(events, tail);
  }
  return tail;
}

function processTail(events: Events): RunTail {
  const runs = new Map<string, Map<number, TailItem>>();
  return {
    publish(runId, item) {
      let items = runs.get(runId);
      if (!items) runs.set(runId, (items = new Map()));
      items.set(item.ordinal, item);
      events.publish('runItem', runId, item);
    },
    async read(runId) {
      return [...(runs.get(runId)?.values() ?? [])];
    },
    forget(runId) {
      runs.delete(runId);
    },
  };
}

function redisTail(client: Redis, send: RedisSend): RunTail {
  // Runs whose hash already has its expiry set by this process.
  const expiring = new Set<string>();
  return {
    publish(runId, item) {
      const json = JSON.stringify(item);
      const key = tailKey(runId);
      const setExpiry = !expiring.has(runId);
      // One bounded send (lib/events.ts): while Redis is away the connection holds these commands up
      // to a limit, then drops them together — the change is in the database by the time Redis is
      // back, and followers read it there then.
      const sent = send((redis) => [
        redis.hset(key, String(item.ordinal), json),
        ...(setExpiry ? [redis.pexpire(key, REDIS_TAIL_TTL_MS)] : []),
        // The channel and encoding the event bus's Redis event target uses for `runItem`.
        redis.publish(`runItem:${runId}`, json),
      ]);
      if (sent && setExpiry) expiring.add(runId);
    },
    async read(runId) {
      // Redis away: nothing to add to the database now. Its followers read the tail again once it
      // is back (onReconnected in lib/events.ts), and the changes written meanwhile wait to be sent.
      if (client.status !== 'ready') return [];
      const fields = await client.hvals(tailKey(runId));
      return fields.map((json) => JSON.parse(json) as TailItem);
    },
    forget(runId) {
      expiring.delete(runId);
      send((redis) => redis.del(tailKey(runId)));
    },
  };
}
