// Two service instances on one database with REDIS_URL: a subscriber on one instance follows, live,
// a run that the other instance executes; a subscriber that reconnects with its last position
// misses nothing and sees nothing twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { redisReachable, redisUrl } from '../helpers/redis.js';
import { insertModel } from '../helpers/fixtures.js';

const available = await redisReachable();
if (!available) console.warn(`Redis not reachable at ${redisUrl}: multi-instance tests skipped (.ci/run provides Redis)`);

let front: TestApp;
let back: TestApp;
beforeAll(async () => {
  if (!available) return;
  front = await startTestApp({ runWorkers: 0, redisUrl });
  back = await startTestApp({ runWorkers: 2, redisUrl }, front);
  await insertModel(front, 'dev');
});
afterAll(async () => {
  await back?.stop();
  await front?.stop();
});

type Seen = { ordinal: number; state: string; text?: string; lastStreamId: string };

function follow(
  runId: string,
  after: number,
  position: string | null,
  onItem: (item: Seen) => boolean | void,
): Promise<'complete' | 'stopped'> {
  const ws = createClient({
    url: `${front.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${front.apiKey}` },
  });
  return new Promise((resolve, reject) => {
    const stop = ws.subscribe(
      {
        query:
          'subscription($id: ID!, $after: Int, $position: String) { runItems(runId: $id, after: $after, position: $position) { ordinal state content lastStreamId } }',
        variables: { id: runId, after, position },
      },
      {
        next: (value) => {
          const item = (value.data as any).runItems;
          if (onItem({ ordinal: item.ordinal, state: item.state, text: item.content.text, lastStreamId: item.lastStreamId }) === true) {
            stop();
            void Promise.resolve(ws.dispose()).then(() => resolve('stopped'));
          }
        },
        error: reject,
        complete: () => void Promise.resolve(ws.dispose()).then(() => resolve('complete')),
      },
    );
  });
}

describe.skipIf(!available)('several instances', () => {
  it('stream a run executed elsewhere to a subscriber that reconnects mid-stream', async () => {
    const chunks = Array.from({ length: 12 }, (_, i) => [{ text: `c${i} ` }, { delay_ms: 40 }]).flat();
    const agent = (
      await front.rest('POST', '/api/v1/agents', {
        body: { name: 'multi', config: { model: 'dev', model_settings: { script: [chunks] } } },
      })
    ).body;
    const run = (
      await front.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'go' }] } } })
    ).body;
    const seen: Seen[] = [];
    // First connection: leave after a few deltas of the streaming text item.
    await follow(run.id, 0, null, (item) => {
      seen.push(item);
      return item.ordinal === 2 && (item.text ?? '').split(' ').length > 4;
    });
    const position = seen[seen.length - 1]!.lastStreamId;
    const outcome = await follow(run.id, 0, position, (item) => void seen.push(item));
    expect(outcome).toBe('complete');
    const final = seen.filter((i) => i.ordinal === 2).pop()!;
    expect(final).toMatchObject({ state: 'completed', text: Array.from({ length: 12 }, (_, i) => `c${i} `).join('') });
    // Across both connections every change arrives once and in order: stream ids strictly increase per item.
    const byOrdinal = new Map<number, number[]>();
    for (const item of seen) byOrdinal.set(item.ordinal, [...(byOrdinal.get(item.ordinal) ?? []), Number(item.lastStreamId.slice(1))]);
    for (const sequence of byOrdinal.values()) expect([...new Set(sequence)].sort((a, b) => a - b)).toEqual(sequence);
    const run2 = (await front.rest('GET', `/api/v1/runs/${run.id}`)).body;
    expect(run2).toMatchObject({ status: 'completed' });
    expect((await back.rest('GET', `/api/v1/runs/${run.id}`)).body.status).toBe('completed');
    expect(seen.filter((i) => i.ordinal === 1)).toHaveLength(1);
  });
});
