// While Redis is away, the event bus's publishing connection holds what is published, up to a bound:
// a long outage under streaming load must not keep every change in memory. Past the bound, events
// are dropped (the followers catch up from the database when Redis is back, see the outage tests);
// held ones are sent once Redis is back, and the count of dropped ones starts again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeEvents,
  createEvents,
  listen,
  onReconnected,
  redisBacklog,
  redisClientsOf,
  subscriptionsActive,
} from '../../src/lib/events.js';
import { startOwnRedis, type OwnRedis } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

type Topics = { tick: [id: string, payload: { n: number }] };

let redis: OwnRedis;
beforeAll(async () => {
  redis = await startOwnRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe('the Redis event bus while Redis is away', () => {
  it('holds at most its bound of commands, drops the rest without throwing, and sends what it held once Redis is back', async () => {
    const publisher = createEvents<Topics>({ redisUrl: redis.url, maxWaitingCommands: 50 });
    const subscriber = createEvents<Topics>({ redisUrl: redis.url });
    try {
      const received: number[] = [];
      const stop = listen(subscriber, 'tick', 'a', (payload) => received.push((payload as { n: number }).n));
      await waitFor(
        async () => redisClientsOf(publisher)!.publish.status,
        (status) => status === 'ready',
        'the publisher connected',
      );
      // subscriptionsActive answers at once while the subscribing connection is still connecting (its
      // SUBSCRIBE then waits for the connection): wait for it to be up, so the PING proves the SUBSCRIBE.
      await waitFor(
        async () => redisClientsOf(subscriber)!.subscribe.status,
        (status) => status === 'ready',
        'the subscriber connected',
      );
      await subscriptionsActive(subscriber);
      publisher.publish('tick', 'a', { n: 0 });
      await waitFor(
        async () => received.length,
        (count) => count === 1,
        'the first event',
      );

      await redis.stop();
      await waitFor(
        async () => redisClientsOf(publisher)!.publish.status,
        (status) => status !== 'ready',
        'the publisher to notice the outage',
      );
      for (let n = 1; n <= 200; n++) publisher.publish('tick', 'a', { n });
      expect(redisBacklog(publisher)).toEqual({ waiting: 50, dropped: 150 });

      const back = new Promise<void>((resolve) => onReconnected(subscriber, resolve));
      await redis.start();
      await back;
      // What was held is sent (the backlog empties); the count of dropped events starts again.
      await waitFor(
        async () => redisBacklog(publisher)!.waiting,
        (waiting) => waiting === 0,
        'the held commands to be sent',
      );
      expect(redisBacklog(publisher)!.dropped).toBe(0);
      // The held events reach Redis in order; whether this subscriber had resubscribed by then is a
      // race with its own reconnection (the reason followers read the database again), so only the
      // order and the bound are checked, and that events flow again afterwards.
      const held = received.slice(1);
      expect(held).toEqual([...held].sort((a, b) => a - b));
      expect(held.every((n) => n >= 1 && n <= 50)).toBe(true);
      // The subscriber's own resubscription after the outage is not something the bus reports (a
      // PING can go out ahead of it), so events are published until one arrives: they flow again.
      await subscriptionsActive(subscriber);
      let next = 1000;
      await waitFor(
        async () => {
          publisher.publish('tick', 'a', { n: next++ });
          return received.at(-1) ?? 0;
        },
        (last) => last >= 1000,
        'an event after the outage',
      );
      stop();
    } finally {
      await closeEvents(publisher);
      await closeEvents(subscriber);
    }
  });
});
