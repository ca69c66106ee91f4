// Graceful hand-over on SIGTERM, with real processes: a worker (or the service) that stops while a
// model is provably mid-stream hands the run back — accepted again, the attempt not counted — so
// another worker or the next start completes it at once, not after the lease; an attempt that ends
// within the grace period completes normally during the shutdown. The model is a loopback
// OpenAI-compatible server whose stream the test holds and releases (no timing races).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { restClient, startTestApp, type Rest, type TestApp } from '../helpers/app.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { startServiceProcess, startWorkerProcess, type ChildService } from '../helpers/process.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';

// So long that a lease-based takeover cannot explain a run finishing within seconds.
const LEASE_MS = '120000';
const ANSWER = 'part one, part two';
const HANDED_BACK = 'run handed back on shutdown';
// Several real process starts per test (each a few seconds, far more on a busy machine).
const PROCESS_TEST_TIMEOUT_MS = 240_000;

let model: ModelServer;
const children: ChildService[] = [];
const gates: (() => void)[] = [];

beforeAll(async () => {
  model = await startOpenAICompatibleServer();
});
afterEach(() => {
  for (const open of gates.splice(0)) open();
});
afterAll(async () => {
  for (const child of children) if (child.child.exitCode === null) child.child.kill('SIGKILL');
  await model.close();
});

/** The next model answer streams its first chunks, then holds until the test opens it. */
function holdNextAnswer() {
  const gate = streamGate(2);
  gates.push(gate.open);
  model.turns.push({ text: ANSWER, gate: gate.gate });
  return gate;
}

async function startRun(rest: Rest, agentId: string) {
  const run = await rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: { content: [{ type: 'text', text: 'go' }] } } });
  expect(run.status).toBe(201);
  return run.body as { id: string };
}

/** Held mid-stream: the model sent its first chunks and the attempt wrote its in-progress text item. */
async function heldMidStream(rest: Rest, runId: string, gate: { reached: Promise<void> }) {
  await gate.reached;
  await waitFor(
    () => rest('GET', `/api/v1/runs/${runId}/items`).then((r) => r.body.items),
    (items) => items.some((i: { kind: string; state: string }) => i.kind === 'text_message' && i.state === 'in_progress'),
    'the attempt streaming',
    30_000,
  );
}

/** Items after a hand-back: gapless, the interrupted partial text closed, the next attempt's full text. */
async function expectGaplessAfterHandBack(rest: Rest, runId: string) {
  const items = (await rest('GET', `/api/v1/runs/${runId}/items`)).body.items as {
    ordinal: number;
    kind: string;
    state: string;
    content: Record<string, unknown>;
  }[];
  expect(items.map((i) => i.ordinal)).toEqual(items.map((_, index) => index + 1));
  expect(items.map((i) => i.kind)).toEqual(['user_message', 'text_message', 'text_message']);
  expect(items[1]).toMatchObject({ state: 'failed', content: { interrupted: true } });
  expect(ANSWER.startsWith(items[1]!.content.text as string)).toBe(true);
  expect(items[2]).toMatchObject({ state: 'completed', content: { text: ANSWER } });
}

function track<T extends ChildService>(child: T): T {
  children.push(child);
  return child;
}

describe('worker processes', () => {
  let t: TestApp;
  let agentId: string;
  const workerEnv = (env: Record<string, string> = {}) => ({
    DATABASE_URL: t.databaseUrl,
    DATA_DIR: t.app.deps.config.dataDir,
    RUN_WORKERS: '2',
    RUN_LEASE_MS: LEASE_MS,
    ALLOW_PLAIN_HTTP_ENDPOINTS: '127.0.0.1',
    ...env,
  });

  beforeAll(async () => {
    // No in-process workers: the worker processes do the work.
    t = await startTestApp({ runWorkers: 0, allowPlainHttpEndpoints: ['127.0.0.1'] });
    await addLoopbackModel(t, model, 'loop');
    agentId = (await t.rest('POST', '/api/v1/agents', { body: { name: 'held', config: { model: 'loop' } } })).body.id;
  });
  afterAll(async () => {
    await t.stop();
  });

  it(
    'SIGTERM mid-stream: the run is handed back and another worker completes it at once, items gapless',
    async () => {
      const gate = holdNextAnswer();
      model.turns.push({ text: ANSWER });
      const stopping = track(await startWorkerProcess(workerEnv({ SHUTDOWN_GRACE_MS: '300' })));
      const run = await startRun(t.rest, agentId);
      await heldMidStream(t.rest, run.id, gate);
      const peer = track(await startWorkerProcess(workerEnv()));

      const signalled = Date.now();
      stopping.child.kill('SIGTERM');
      expect(await stopping.exited).toBe(0);
      expect(stopping.output()).toContain(HANDED_BACK);
      expect(stopping.output()).not.toMatch(/run execution failed|57P01/);
      const done = await settleRun(t, run.id, ['completed', 'failed', 'cancelled'], 90_000);
      // Far below the 120 s lease: the peer took the run because it was handed back, not after a lease.
      expect(Date.now() - signalled).toBeLessThan(60_000);
      // Two attempts, the handed-back one not counted against the run's budget of three.
      expect(done).toMatchObject({ status: 'completed', output: ANSWER, attempts: 2, max_attempts: 3 });
      await expectGaplessAfterHandBack(t.rest, run.id);
      expect(peer.output()).not.toContain('took over a run whose lease expired');
      peer.child.kill('SIGTERM');
      expect(await peer.exited).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'an attempt that finishes within the grace period completes normally; a stopping worker claims nothing new',
    { tags: ['slow'], timeout: PROCESS_TEST_TIMEOUT_MS },
    async () => {
      const gate = holdNextAnswer();
      const stopping = track(await startWorkerProcess(workerEnv({ SHUTDOWN_GRACE_MS: '60000' })));
      const run = await startRun(t.rest, agentId);
      await heldMidStream(t.rest, run.id, gate);

      stopping.child.kill('SIGTERM');
      await stopping.waitForOutput('worker stopping: waiting for running attempts');
      // Announced while the worker is stopping: it must stay for another worker.
      const later = await startRun(t.rest, agentId);
      gate.open();
      expect(await stopping.exited).toBe(0);
      expect(stopping.output()).not.toContain(HANDED_BACK);
      const done = (await t.rest('GET', `/api/v1/runs/${run.id}`)).body;
      expect(done).toMatchObject({ status: 'completed', output: ANSWER, attempts: 1, max_attempts: 3 });
      const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items as { ordinal: number; kind: string; state: string }[];
      expect(items.map((i) => [i.ordinal, i.kind, i.state])).toEqual([
        [1, 'user_message', 'completed'],
        [2, 'text_message', 'completed'],
      ]);
      expect((await t.rest('GET', `/api/v1/runs/${later.id}`)).body).toMatchObject({ status: 'accepted', attempts: 0 });
    },
  );
});

describe('the service on its embedded PostgreSQL (npm start)', { tags: ['slow'] }, () => {
  let dataDir: string;
  const apiKey = `wsk_${'shutdown'.repeat(3)}`;
  const serviceEnv = (env: Record<string, string> = {}) => ({
    DATA_DIR: dataDir,
    BOOTSTRAP_API_KEY: apiKey,
    RUN_LEASE_MS: LEASE_MS,
    ALLOW_PLAIN_HTTP_ENDPOINTS: '127.0.0.1',
    SHUTDOWN_GRACE_MS: '300',
    ...env,
  });

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'wsa-shutdown-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'SIGTERM mid-stream: exits 0 with the run handed back; the next start completes it within seconds',
    async () => {
      const first = track(await startServiceProcess(serviceEnv()));
      let rest = restClient(first.url, apiKey);
      await addLoopbackModel({ rest }, model, 'loop');
      const agentId = (await rest('POST', '/api/v1/agents', { body: { name: 'held', config: { model: 'loop' } } })).body.id;
      const gate = holdNextAnswer();
      model.turns.push({ text: ANSWER });
      const run = await startRun(rest, agentId);
      await heldMidStream(rest, run.id, gate);

      first.child.kill('SIGTERM');
      // Exit status 0: the stop finished by itself (a forced exit, after grace + 15 s, exits 1).
      expect(await first.exited).toBe(0);
      expect(first.output()).toContain(HANDED_BACK);
      expect(first.output()).not.toMatch(/run execution failed|57P01|terminating connection/);

      // Back to accepted, the attempt not counted; read through a start without workers.
      const reader = track(await startServiceProcess(serviceEnv({ RUN_WORKERS: '0' })));
      rest = restClient(reader.url, apiKey);
      expect((await rest('GET', `/api/v1/runs/${run.id}`)).body).toMatchObject({ status: 'accepted', attempts: 1, max_attempts: 3 });
      reader.child.kill('SIGTERM');
      expect(await reader.exited).toBe(0);

      const next = track(await startServiceProcess(serviceEnv()));
      const started = Date.now();
      rest = restClient(next.url, apiKey);
      const done = await waitFor(
        () => rest('GET', `/api/v1/runs/${run.id}`).then((r) => r.body),
        (r) => r.status !== 'accepted' && r.status !== 'running',
        'the run to finish',
        90_000,
      );
      // Far below the 120 s lease: the next start claimed the handed-back run at once.
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(done).toMatchObject({ status: 'completed', output: ANSWER, attempts: 2, max_attempts: 3 });
      await expectGaplessAfterHandBack(rest, run.id);
      next.child.kill('SIGTERM');
      expect(await next.exited).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
