// A client that unsubscribes from a run that is not moving (queued: no worker has claimed it) stops
// following it at once: the service drops its listeners then, not when the run next changes. Seen
// from outside through Redis (REDIS_URL): the service's SUBSCRIBE on the run's channels is withdrawn.
// The same for a thread followed with threadUpdated whose client goes away (the socket closes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { Redis } from 'ioredis';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { redisReachable, redisUrl } from '../helpers/redis.js';
import { insertModel } from '../helpers/fixtures.js';
import { waitFor } from '../helpers/wait.js';

const available = await redisReachable();
if (!available) console.warn(`Redis not reachable at ${redisUrl}: unsubscribe tests skipped (.ci/run provides Redis)`);

let t: TestApp;
let redis: Redis;
beforeAll(async () => {
  if (!available) return;
  // No workers: a run stays accepted, so nothing would ever wake a waiting subscription.
  t = await startTestApp({ runWorkers: 0, redisUrl });
  await insertModel(t, 'dev');
  redis = new Redis(redisUrl);
});
afterAll(async () => {
  redis?.disconnect();
  await t?.stop();
});

/** Subscribers Redis counts on each channel. */
async function subscribers(channels: string[]): Promise<number[]> {
  const reply = (await redis.call('PUBSUB', 'NUMSUB', ...channels)) as (string | number)[];
  return channels.map((_, i) => Number(reply[i * 2 + 1]));
}

describe.skipIf(!available)('unsubscribing from a run that does not move', () => {
  it('withdraws the run status and run item listeners at once', async () => {
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'idle', config: { model: 'dev' } } })).body;
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'hi' }] } } }))
      .body;
    expect(run.status).toBe('accepted');
    const channels = [`runChanged:${run.id}`, `runItem:${run.id}`];
    expect(await subscribers(channels)).toEqual([0, 0]);

    const ws = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
    });
    let firstStatus: string | undefined;
    let statusHeard!: () => void;
    const statusSeen = new Promise<void>((resolve) => (statusHeard = resolve));
    const ignore = { next: () => undefined, error: () => undefined, complete: () => undefined };
    const unsubscribe = [
      ws.subscribe(
        { query: 'subscription($id: ID!) { runStatus(runId: $id) { status } }', variables: { id: run.id } },
        {
          ...ignore,
          next: (value) => {
            firstStatus = (value.data as any).runStatus.status;
            statusHeard();
          },
        },
      ),
      ws.subscribe({ query: 'subscription($id: ID!) { runItems(runId: $id) { ordinal } }', variables: { id: run.id } }, ignore),
    ];
    await statusSeen;
    expect(firstStatus).toBe('accepted');
    // Both subscriptions listen: run status on the run's channel, the item feed on both.
    await waitFor(
      () => subscribers(channels),
      ([changed, items]) => changed! >= 1 && items! >= 1,
      'the subscriptions to listen',
    );

    for (const stop of unsubscribe) stop();
    // The websocket stays open; only the subscriptions end, and with them every listener.
    await waitFor(
      () => subscribers(channels),
      (counts) => counts.every((count) => count === 0),
      'the listeners to be withdrawn',
    );
    expect((await t.rest('GET', `/api/v1/runs/${run.id}`)).body.status).toBe('accepted');
    await ws.dispose();
  });

  it('withdraws the threadUpdated listener when the client closes its socket', async () => {
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const channel = [`threadChanged:${thread.id}`];
    expect(await subscribers(channel)).toEqual([0]);
    const ws = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
      lazy: false,
    });
    let heard!: (id: string) => void;
    const first = new Promise<string>((resolve) => (heard = resolve));
    ws.subscribe(
      { query: 'subscription($id: ID!) { threadUpdated(threadId: $id) { id } }', variables: { id: thread.id } },
      { next: (value) => heard((value.data as any).threadUpdated.id), error: () => undefined, complete: () => undefined },
    );
    expect(await first).toBe(thread.id);
    await waitFor(
      () => subscribers(channel),
      ([count]) => count! >= 1,
      'the thread follower to listen',
    );

    // No `complete` is sent: the socket just goes away, as when a browser tab closes.
    await ws.dispose();
    await waitFor(
      () => subscribers(channel),
      ([count]) => count === 0,
      'the thread follower to stop listening',
    );
  });
});
