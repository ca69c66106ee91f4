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
//
// Appended text travels as deltas (`publishDelta`): the bus carries only the new text, so an answer of
// n characters costs O(n) bytes on the bus, not O(n²). In process the tail still records the item's
// whole state (a shallow copy: strings are shared, not copied). In Redis the whole state stays in the
// hash only as of the item's last snapshot; its deltas since are appended to a list
// (`wsa:run-tail-deltas:{runId}`, RPUSH before the PUBLISH on the same connection), and `read` takes
// the hash and the list in one MULTI and applies the deltas — the tail still answers every item's
// latest state, and Redis receives each character once.
import type { Redis } from 'ioredis';
import { redisClientsOf, redisSender } from '../../lib/events.js';
import type { Events, ItemTextDelta, ItemView } from '../../services/event-topics.js';

type RedisSend = NonNullable<ReturnType<typeof redisSender>>;

/** An item state as published (the public item view). */
export type TailItem = ItemView;

export interface RunTail {
  /** Records the item's latest state, then publishes it on the event bus (topic `runItem`). */
  publish(runId: string, item: TailItem): void;
  /** Records text appended to an item (`state`: its whole state after it), then publishes the delta alone. */
  publishDelta(runId: string, delta: ItemTextDelta, state: TailItem): void;
  /** The latest state of every item the run's current attempt changed (some may already be committed). */
  read(runId: string): Promise<TailItem[]>;
  /** As `read`, synchronously, for the in-process tail (null for the Redis one): see local-runs.ts. */
  peek(runId: string): TailItem[] | null;
  /** The attempt's items are committed (sealed, handed back, requeued): the tail is no longer needed. */
  forget(runId: string): void;
}

/** A crashed writer never forgets its tail: Redis drops it after this long. */
const REDIS_TAIL_TTL_MS = 60 * 60 * 1000;
const tailKey = (runId: string) => `wsa:run-tail:${runId}`;
const deltasKey = (runId: string) => `wsa:run-tail-deltas:${runId}`;

/**
 * The item's state after `delta`, or null when `state` is not the state the delta applies to (its
 * lastStreamId is not the delta's previousStreamId). A new object: `state` is left as it was.
 */
export function applyTextDelta(state: TailItem, delta: ItemTextDelta): TailItem | null {
  if (state.lastStreamId !== delta.previousStreamId) return null;
  const content = state.content as Record<string, unknown>;
  const before = typeof content[delta.member] === 'string' ? (content[delta.member] as string) : '';
  if (before.length !== delta.offset) return null;
  return { ...state, content: { ...content, [delta.member]: before + delta.text }, lastStreamId: delta.streamId };
}

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
    publishDelta(runId, delta, state) {
      let items = runs.get(runId);
      if (!items) runs.set(runId, (items = new Map()));
      items.set(state.ordinal, state);
      events.publish('runItem', runId, delta);
    },
    async read(runId) {
      return [...(runs.get(runId)?.values() ?? [])];
    },
    peek(runId) {
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
    publishDelta(runId, delta) {
      const json = JSON.stringify(delta);
      const key = deltasKey(runId);
      const setExpiry = !expiring.has(`${runId}:deltas`);
      const sent = send((redis) => [
        redis.rpush(key, json),
        ...(setExpiry ? [redis.pexpire(key, REDIS_TAIL_TTL_MS)] : []),
        redis.publish(`runItem:${runId}`, json),
      ]);
      if (sent && setExpiry) expiring.add(`${runId}:deltas`);
    },
    async read(runId) {
      // Redis away: nothing to add to the database now. Its followers read the tail again once it
      // is back (onReconnected in lib/events.ts), and the changes written meanwhile wait to be sent.
      if (client.status !== 'ready') return [];
      // One transaction: a snapshot and the deltas after it, never a newer snapshot with older deltas missing.
      const answers = await client.multi().hvals(tailKey(runId)).lrange(deltasKey(runId), 0, -1).exec();
      const [snapshots, deltas] = (answers ?? []).map(([error, value]) => {
        if (error) throw error;
        return value as string[];
      });
      const items = new Map<number, TailItem>();
      for (const json of snapshots ?? []) {
        const item = JSON.parse(json) as TailItem;
        items.set(item.ordinal, item);
      }
      // In publish order: each delta applies to the state before it; older ones (before a snapshot) do not.
      for (const json of deltas ?? []) {
        const delta = JSON.parse(json) as ItemTextDelta;
        const state = items.get(delta.ordinal);
        const next = state && applyTextDelta(state, delta);
        if (next) items.set(delta.ordinal, next);
      }
      return [...items.values()];
    },
    peek: () => null,
    forget(runId) {
      expiring.delete(runId);
      expiring.delete(`${runId}:deltas`);
      send((redis) => redis.del(tailKey(runId), deltasKey(runId)));
    },
  };
}
