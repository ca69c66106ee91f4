// A Redis outage in a cluster, with real processes: an API-only service and a worker process on one
// database and a Redis of the test's own. Runs stream to graphql-ws subscribers on the service (not
// the worker's instance); Redis is killed while every run is held mid-stream, stays down 15 s while
// the runs go on, then starts again, empty. No process exits, every run completes, and every
// subscriber ends with every item as the database has it, and the run's final status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { restClient, startTestApp, type Rest, type TestApp } from '../helpers/app.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { startHeldRuns } from '../helpers/runs.js';
import { startServiceProcess, startWorkerProcess, type ChildService, type ServiceProcess } from '../helpers/process.js';
import { startOwnRedis, type OwnRedis } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

const RUNS = 4;
const OUTAGE_MS = 15_000;
const answerOf = (n: number) => `run ${n} says: ${'lorem ipsum dolor sit amet '.repeat(3)}done.`;

let model: ModelServer;
let redis: OwnRedis;
let t: TestApp;
let service: ServiceProcess;
let worker: ChildService;
let rest: Rest;

beforeAll(async () => {
  model = await startOpenAICompatibleServer();
  redis = await startOwnRedis();
  // The test's own view of the database (no Redis, no workers): setup and the final truth.
  t = await startTestApp({ runWorkers: 0, allowPlainHttpEndpoints: ['127.0.0.1'] });
  await addLoopbackModel(t, model, 'loop');
  const env = {
    DATABASE_URL: t.databaseUrl,
    DATA_DIR: t.app.deps.config.dataDir,
    REDIS_URL: redis.url,
    ALLOW_PLAIN_HTTP_ENDPOINTS: '127.0.0.1',
  };
  service = await startServiceProcess({ ...env, RUN_WORKERS: '0' });
  worker = await startWorkerProcess({ ...env, RUN_WORKERS: String(RUNS) });
  rest = restClient(service.url, t.apiKey);
}, 180_000);
afterAll(async () => {
  for (const child of [service?.child, worker?.child]) if (child && child.exitCode === null) child.kill('SIGKILL');
  await redis?.stop();
  await t?.stop();
  await model?.close();
});

type Item = { ordinal: number; kind: string; state: string; content: { text?: string }; lastStreamId: string };

/** runItems and runStatus of one run over graphql-ws on the service, recording what arrives. */
function follow(runId: string) {
  const client = createClient({
    url: `${service.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${t.apiKey}` },
  });
  const items: Item[] = [];
  const statuses: string[] = [];
  const subscription = <T>(query: string, onValue: (value: T) => void) =>
    new Promise<void>((resolve, reject) =>
      client.subscribe<T>(
        { query, variables: { id: runId } },
        {
          next: (value) => (value.errors ? reject(new Error(JSON.stringify(value.errors))) : onValue(value.data!)),
          error: reject,
          complete: resolve,
        },
      ),
    );
  const done = Promise.all([
    subscription<{ runItems: Item }>('subscription($id: ID!) { runItems(runId: $id) { ordinal kind state content lastStreamId } }', (d) =>
      items.push(d.runItems),
    ),
    subscription<{ runStatus: { status: string } }>('subscription($id: ID!) { runStatus(runId: $id) { status } }', (d) =>
      statuses.push(d.runStatus.status),
    ),
  ]);
  return { items, statuses, done, close: () => client.dispose() };
}

/** The last state a subscriber saw of each item, by ordinal. */
function lastSeen(items: Item[]): Map<number, Item> {
  const last = new Map<number, Item>();
  for (const item of items) last.set(item.ordinal, item);
  return last;
}

describe('Redis down for 15 s', { tags: ['slow'] }, () => {
  it('ends no process; every run completes and every subscriber sees every item', { timeout: 240_000 }, async () => {
    const { agent, gates, runs } = await startHeldRuns(rest, model, { count: RUNS, modelKey: 'loop', answerOf });
    const followers = runs.map((run) => follow(run.id));
    try {
      // Every run held mid-stream, and every subscriber has its streaming text item through Redis.
      await Promise.all(gates.map((gate) => gate.reached));
      await waitFor(
        async () => followers.map((f) => f.items.some((i) => i.kind === 'text_message' && i.state === 'in_progress')),
        (streaming) => streaming.every(Boolean),
        'every subscriber to see its run stream',
        60_000,
        50,
      );

      await redis.stop();
      const down = Date.now();
      // The runs go on without Redis: each completes (as the database tells).
      for (const gate of gates) gate.open();
      for (const run of runs)
        await waitFor(
          async () => (await t.rest('GET', `/api/v1/runs/${run.id}`)).body.status,
          (status) => status === 'completed',
          `run ${run.id} to complete while Redis is down`,
          60_000,
          100,
        );
      // The outage lasts its full length (the scenario, not a guess at the machine's speed).
      const left = OUTAGE_MS - (Date.now() - down);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
      expect(service.child.exitCode).toBeNull();
      expect(worker.child.exitCode).toBeNull();
      // Still down: the service is alive but not ready, and says why.
      const ready = await waitFor(
        async () => {
          const response = await fetch(`${service.url}/readyz`);
          return { status: response.status, body: (await response.json()) as { unavailable?: string[] } };
        },
        (answer) => answer.status === 503,
        'readyz to report Redis',
        30_000,
        100,
      );
      expect(ready.body.unavailable).toEqual(['redis']);
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);

      await redis.start();
      await Promise.all(
        followers.map((f, n) =>
          Promise.race([
            f.done,
            new Promise((_, reject) => setTimeout(() => reject(new Error(`subscriber ${n} did not complete`)), 60_000)),
          ]),
        ),
      );

      // Which answer a run gets depends on which model request came first: every answer, whole, once.
      const texts: string[] = [];
      for (const [n, run] of runs.entries()) {
        const stored = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items as Item[];
        const seen = lastSeen(followers[n]!.items);
        expect([...seen.keys()].sort((a, b) => a - b)).toEqual(stored.map((i) => i.ordinal));
        for (const item of stored) expect(seen.get(item.ordinal)).toMatchObject({ state: item.state, content: item.content });
        texts.push(stored.find((i) => i.kind === 'text_message')?.content.text ?? '');
        // Each change once, in order: stream ids strictly increase per item.
        for (const ordinal of seen.keys()) {
          const sequence = followers[n]!.items.filter((i) => i.ordinal === ordinal).map((i) => Number(i.lastStreamId.slice(1)));
          expect([...new Set(sequence)].sort((a, b) => a - b)).toEqual(sequence);
        }
        expect(followers[n]!.statuses.at(-1)).toBe('completed');
      }
      expect(texts.sort()).toEqual(Array.from({ length: RUNS }, (_, n) => answerOf(n)).sort());
      // Redis back: ready again; no process ended.
      await waitFor(
        async () => (await fetch(`${service.url}/readyz`)).status,
        (status) => status === 200,
        'readyz after Redis is back',
        30_000,
        100,
      );
      expect(service.child.exitCode).toBeNull();
      expect(worker.child.exitCode).toBeNull();
      // The service and the worker still work together through the new Redis: a run after the outage streams too.
      model.turns.push({ text: 'after the outage' });
      const after = (
        await rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'again' }] } } })
      ).body;
      const again = follow(after.id);
      await again.done;
      expect(lastSeen(again.items).get(2)).toMatchObject({ state: 'completed', content: { text: 'after the outage' } });
      await again.close();
    } finally {
      for (const gate of gates) gate.open();
      await Promise.all(followers.map((f) => f.close()));
    }
  });
});
