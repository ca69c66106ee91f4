// The threadUpdated subscription over graphql-ws against a real service: the thread as it is, then
// every committed change of its row or inbox — a delivery that starts a run, one queued behind it,
// the queued entry becoming the thread's next run, an inbox edit, a label change, a resume, a
// waiting run cancelled, a steer entry taken into a running run, an accepted run cancelled before any
// worker claims it, the archive — with no polling; another workspace's thread is not found;
// and, with Redis, a change made by another instance is heard. Each announcement is tested where
// nothing else could emit the state awaited (a held model, a waiting run), so each test fails if
// that path stops announcing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { redisReachable, redisUrl } from '../helpers/redis.js';
import { createWorkspace } from '../../src/features/access/admin.js';

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const THREAD_FIELDS = 'id version currentRunId lastRunId archivedAt';

type ThreadSeen = { id: string; version: number; currentRunId: string | null; lastRunId: string | null; archivedAt: string | null };

/** A threadUpdated subscription that records what it emits; `until` waits for an emission that matches. */
function followThread(url: string, apiKey: string, threadId: string) {
  const ws = createClient({
    url: `${url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${apiKey}` },
  });
  const seen: ThreadSeen[] = [];
  const waiters: { test: (thread: ThreadSeen) => boolean; resolve: (thread: ThreadSeen) => void }[] = [];
  let failure: unknown = null;
  let failed!: (error: unknown) => void;
  const errored = new Promise<never>((_, reject) => (failed = reject));
  errored.catch(() => undefined);
  const stop = ws.subscribe(
    { query: `subscription ($id: ID!) { threadUpdated(threadId: $id) { ${THREAD_FIELDS} } }`, variables: { id: threadId } },
    {
      next: (value) => {
        if (value.errors) {
          failure = value.errors;
          failed(value.errors);
          return;
        }
        const thread = (value.data as { threadUpdated: ThreadSeen }).threadUpdated;
        seen.push(thread);
        for (const waiter of [...waiters])
          if (waiter.test(thread)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(thread);
          }
      },
      error: (error) => {
        failure = error;
        failed(error);
      },
      complete: () => undefined,
    },
  );
  return {
    seen,
    get failure() {
      return failure;
    },
    errored,
    /** The first emission (from the start) that matches. */
    until(test: (thread: ThreadSeen) => boolean, from = 0): Promise<ThreadSeen> {
      const already = seen.slice(from).find(test);
      if (already) return Promise.resolve(already);
      return Promise.race([errored, new Promise<ThreadSeen>((resolve) => waiters.push({ test, resolve }))]);
    },
    async close() {
      stop();
      await ws.dispose();
    },
  };
}

describe('threadUpdated', () => {
  let t: TestApp;
  let loopback: ModelServer;
  let held: { id: string };
  let waits: { id: string };

  beforeAll(async () => {
    loopback = await startOpenAICompatibleServer();
    t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
    await insertModel(t, 'dev');
    await addLoopbackModel(t, loopback, 'loop');
    held = (await t.rest('POST', '/api/v1/agents', { body: { name: 'held', config: { model: 'loop' } } })).body;
    waits = (
      await t.rest('POST', '/api/v1/agents', {
        body: {
          name: 'waits',
          config: { model: 'loop', client_tools: [{ name: 'pick', parameters_json_schema: { type: 'object' } }] },
        },
      })
    ).body;
  });
  afterAll(async () => {
    await t?.stop();
    await loopback?.close();
  });

  it('emits on a delivery, on a queued entry becoming the next run, and on the archive', async () => {
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const follow = followThread(t.url, t.apiKey, thread.id);
    const gate = streamGate(1);
    try {
      const first = await follow.until(() => true);
      expect(first).toMatchObject({ id: thread.id, version: 1, currentRunId: null, lastRunId: null, archivedAt: null });

      // A delivery to the idle thread starts a run, held mid-stream: the thread names it at once.
      loopback.turns.push({ text: 'first answer, held for a while', gate: gate.gate }, { text: 'second answer' });
      const started = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('one'), agent_id: held.id } }))
        .body;
      await follow.until((seen) => seen.currentRunId === started.run.id);
      await gate.reached;

      // A queued delivery changes the inbox only: one more emission, the thread's run unchanged.
      const before = follow.seen.length;
      const queued = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('two'), delivery: 'queue' } }))
        .body;
      expect(queued.entry.status).toBe('pending');
      const afterQueue = await follow.until(() => true, before);
      expect(afterQueue.currentRunId).toBe(started.run.id);

      // The held run ends: the queued entry becomes the thread's next run, heard without asking.
      gate.open();
      const promoted = await follow.until((seen) => seen.currentRunId !== null && seen.currentRunId !== started.run.id);
      const entry = (await t.rest('GET', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`)).body;
      expect(entry.assigned_run_id).toBe(promoted.currentRunId);
      await settleRun(t, promoted.currentRunId!);
      await follow.until((seen) => seen.currentRunId === null && seen.lastRunId === promoted.currentRunId);

      // The archive: the thread's new version, archived.
      const current = (await t.rest('GET', `/api/v1/threads/${thread.id}`)).body;
      await t.rest('POST', `/api/v1/threads/${thread.id}/archive`, { headers: { 'if-match': '*' } });
      const archived = await follow.until((seen) => seen.archivedAt !== null);
      expect(archived.version).toBe(current.version + 1);
      expect(follow.failure).toBeNull();
    } finally {
      gate.open(); // a failed test must not leave the run holding the model
      await follow.close();
    }
  });

  it('emits on an inbox edit and on a label change (each moves the thread version)', async () => {
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const follow = followThread(t.url, t.apiKey, thread.id);
    const gate = streamGate(1);
    try {
      await follow.until(() => true);
      // A run held mid-stream keeps the queued entry pending (editable) and the thread otherwise still.
      loopback.turns.push({ text: 'held while the inbox is edited', gate: gate.gate }, { text: 'the queued one' });
      const started = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('one'), agent_id: held.id } }))
        .body;
      await gate.reached;
      const queued = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('two'), delivery: 'queue' } }))
        .body;
      const before = (await t.rest('GET', `/api/v1/threads/${thread.id}`)).body.version as number;

      const edited = await t.rest('PATCH', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`, {
        headers: { 'if-match': '*' },
        body: { payload: text('two, edited') },
      });
      expect(edited.status, JSON.stringify(edited.body)).toBe(200);
      const afterEdit = await follow.until((seen) => seen.version === before + 1);
      expect(afterEdit.currentRunId).toBe(started.run.id);

      const labelled = await t.rest('PATCH', `/api/v1/threads/${thread.id}`, {
        headers: { 'if-match': '*' },
        body: { labels: { topic: 'x' } },
      });
      expect(labelled.status, JSON.stringify(labelled.body)).toBe(200);
      await follow.until((seen) => seen.version === before + 2);

      // Both runs finish (the queued one after the held one) before the next test uses the model.
      gate.open();
      await follow.until((seen) => seen.currentRunId === null && seen.lastRunId !== null && seen.lastRunId !== started.run.id);
      expect(follow.failure).toBeNull();
    } finally {
      gate.open(); // a failed test must not leave the run holding the model
      await follow.close();
    }
  });

  it('emits when a waiting run of the thread is resumed, naming the successor', async () => {
    // The successor is held mid-stream, so it cannot seal (which announces too): only the resume's
    // own announcement can show it as the thread's current run.
    const held = streamGate(1);
    loopback.turns.push({ tool: { id: 'c1', name: 'pick', arguments: {} } }, { text: 'picked, held for a while', gate: held.gate });
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: waits.id, input: text('go') } })).body;
    const waiting = await settleRun(t, run.id);
    expect(waiting.status).toBe('waiting');
    const follow = followThread(t.url, t.apiKey, run.thread_id);
    try {
      await follow.until((seen) => seen.lastRunId === run.id);
      const resumed = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
        headers: { 'idempotency-key': 'resume-thread-updated' },
        body: { calls: { c1: { status: 'returned', value: 'a' } } },
      });
      expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
      await follow.until((seen) => seen.currentRunId === resumed.body.id && seen.lastRunId === resumed.body.id);
      held.open();
      await settleRun(t, resumed.body.id);
      await follow.until((seen) => seen.currentRunId === null && seen.lastRunId === resumed.body.id);
    } finally {
      held.open(); // a failed test must not leave the run holding the model
      await follow.close();
    }
  });

  it('emits when a waiting run of the thread is cancelled', async () => {
    loopback.turns.push({ tool: { id: 'c1', name: 'pick', arguments: {} } });
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: waits.id, input: text('go') } })).body;
    expect((await settleRun(t, run.id)).status).toBe('waiting');
    const follow = followThread(t.url, t.apiKey, run.thread_id);
    try {
      await follow.until((seen) => seen.lastRunId === run.id);
      // Nothing else moves the thread now: the next emission is the cancel's.
      const before = follow.seen.length;
      expect((await t.rest('POST', `/api/v1/runs/${run.id}/cancel`)).status).toBe(200);
      const after = await follow.until(() => true, before);
      expect(after).toMatchObject({ id: run.thread_id, currentRunId: null, lastRunId: run.id });
    } finally {
      await follow.close();
    }
  });

  it('emits when a steer entry is taken into the running run', async () => {
    // The first model request asks for a tool the agent lacks (so a second request follows), held
    // until the steer is in; the second is held too, so the run cannot seal (which announces).
    const first = streamGate(1);
    const second = streamGate(1);
    loopback.turns.push(
      { tool: { id: 's1', name: 'missing_tool', arguments: {} }, gate: first.gate },
      { text: 'considered, held for a while', gate: second.gate },
    );
    const steered = (
      await t.rest('POST', '/api/v1/agents', { body: { name: 'steered', config: { model: 'loop', retries: { tools: 1 } } } })
    ).body;
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    let follow: ReturnType<typeof followThread> | null = null;
    try {
      const started = (
        await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('start'), agent_id: steered.id } })
      ).body;
      await first.reached;
      const steer = (
        await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('also this'), delivery: 'steer' } })
      ).body;
      expect(steer.entry.status).toBe('pending');
      // Followed only now: every announcement so far (the deliveries, the run's start) was published
      // before the subscription listened, so after its first emission the next one can only be the
      // incorporation's — nothing else moves the thread while the second request is held.
      follow = followThread(t.url, t.apiKey, thread.id);
      expect(await follow.until(() => true)).toMatchObject({ currentRunId: started.run.id });
      first.open();
      await second.reached;
      const entry = (await t.rest('GET', `/api/v1/threads/${thread.id}/inbox/${steer.entry.id}`)).body;
      expect(entry).toMatchObject({ status: 'incorporated', assigned_run_id: started.run.id });
      const after = await follow.until(() => true, 1);
      expect(after).toMatchObject({ id: thread.id, currentRunId: started.run.id });
      second.open();
      await settleRun(t, started.run.id);
      await follow.until((seen) => seen.currentRunId === null && seen.lastRunId === started.run.id);
      expect(follow.failure).toBeNull();
    } finally {
      first.open(); // a failed test must not leave the run holding the model
      second.open();
      await follow?.close();
    }
  });

  it("answers not_found for another workspace's thread and for an unknown one", async () => {
    const other = await createWorkspace(t.app.deps, { name: 'elsewhere' });
    const foreign = (await t.rest('POST', '/api/v1/threads', { body: {}, token: other.apiKey.token })).body;
    for (const id of [foreign.id, 'thread_01AAAAAAAAAAAAAAAAAAAAAAAA']) {
      const follow = followThread(t.url, t.apiKey, id);
      try {
        const error = await follow.errored.catch((e: unknown) => e);
        expect(JSON.stringify(error)).toContain('not_found');
        expect(follow.seen).toEqual([]);
      } finally {
        await follow.close();
      }
    }
    // The owner follows it.
    const own = followThread(t.url, other.apiKey.token, foreign.id);
    try {
      expect((await own.until(() => true)).id).toBe(foreign.id);
    } finally {
      await own.close();
    }
  });
});

describe('threadUpdated without workers', () => {
  // No worker takes runs here: an accepted run stays accepted until it is cancelled.
  let idle: TestApp;
  beforeAll(async () => {
    idle = await startTestApp({ runWorkers: 0 });
    await insertModel(idle, 'dev');
  });
  afterAll(async () => {
    await idle?.stop();
  });

  it('emits when an accepted run is cancelled before a worker claims it', async () => {
    const agent = (await idle.rest('POST', '/api/v1/agents', { body: { name: 'never claimed', config: { model: 'dev' } } })).body;
    const run = (await idle.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: text('wait') } })).body;
    expect(run.status).toBe('accepted');
    // Followed after the run's creation was announced: the next emission can only be the cancel's.
    const follow = followThread(idle.url, idle.apiKey, run.thread_id);
    try {
      expect(await follow.until(() => true)).toMatchObject({ id: run.thread_id, currentRunId: run.id });
      const cancelled = await idle.rest('POST', `/api/v1/runs/${run.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
      const after = await follow.until(() => true, 1);
      expect(after).toMatchObject({ id: run.thread_id, currentRunId: null });
      expect(follow.failure).toBeNull();
    } finally {
      await follow.close();
    }
  });
});

const redisAvailable = await redisReachable();

describe.skipIf(!redisAvailable)('threadUpdated across instances (Redis)', () => {
  let front: TestApp;
  let back: TestApp;
  beforeAll(async () => {
    front = await startTestApp({ runWorkers: 0, redisUrl });
    back = await startTestApp({ runWorkers: 2, redisUrl }, front);
    await insertModel(front, 'dev');
  });
  afterAll(async () => {
    await back?.stop();
    await front?.stop();
  });

  it('hears a delivery made on another instance and the run that instance executes', async () => {
    const agent = (await front.rest('POST', '/api/v1/agents', { body: { name: 'remote', config: { model: 'dev' } } })).body;
    const thread = (await front.rest('POST', '/api/v1/threads', { body: {} })).body;
    const follow = followThread(front.url, front.apiKey, thread.id);
    try {
      await follow.until(() => true);
      const delivered = (
        await back.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('hi'), agent_id: agent.id } })
      ).body;
      // Executed by the back instance's workers: the seal frees the thread, heard on the front.
      const sealed = await follow.until((seen) => seen.lastRunId === delivered.run.id && seen.currentRunId === null);
      expect(sealed.id).toBe(thread.id);
    } finally {
      await follow.close();
    }
  });
});
