// A workspace's max_concurrent_runs with real workers: runs over the limit wait `accepted`, oldest
// first, and start as running runs end — within one instance and across two instances sharing the
// database. Each run's answer is held mid-stream by a gate the test opens, so "running" is a fact the
// test observed (the model server was reached), not a guess about timing. Also the setting itself:
// its validation, who may change it, its audit row.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { settleRun, startHeldRuns } from '../helpers/runs.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { createApiKey } from '../../src/features/access/admin.js';

let t: TestApp;
let model: ModelServer;
beforeAll(async () => {
  model = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await addLoopbackModel(t, model, 'held');
});
afterAll(async () => {
  await t?.stop();
  await model?.close();
});

async function setLimit(app: TestApp, limit: number | null, token?: string) {
  const current = await app.rest('GET', '/api/v1/workspace');
  return app.rest('PATCH', '/api/v1/workspace', {
    headers: { 'if-match': current.headers.get('etag')! },
    body: { max_concurrent_runs: limit },
    ...(token ? { token } : {}),
  });
}

/** Answers long enough to be held mid-stream (the gate holds after the third 4-character chunk). */
const answer = (name: string) => (n: number) => `the answer of ${name} run ${n}, at some length`;

const statuses = async (app: TestApp, runs: { id: string }[]) =>
  Promise.all(runs.map(async (run) => (await app.rest('GET', `/api/v1/runs/${run.id}`)).body.status as string));

describe('max_concurrent_runs', () => {
  it('holds runs over the limit in accepted and starts the oldest waiting one when a run ends', async () => {
    expect((await setLimit(t, 2)).status).toBe(200);
    const { runs, gates } = await startHeldRuns(t.rest, model, { count: 5, modelKey: 'held', answerOf: answer('limited') });
    // The first two reach the model (their answers are held); the other three wait.
    await Promise.all([gates[0]!.reached, gates[1]!.reached]);
    expect(await statuses(t, runs)).toEqual(['running', 'running', 'accepted', 'accepted', 'accepted']);

    gates[0]!.open();
    expect((await settleRun(t, runs[0]!.id)).status).toBe('completed');
    // The third request to the model is the third run's: the oldest waiting run took the free slot.
    await gates[2]!.reached;
    expect(await statuses(t, runs)).toEqual(['completed', 'running', 'running', 'accepted', 'accepted']);

    for (const gate of gates) gate.open();
    for (const run of runs) expect((await settleRun(t, run.id)).status).toBe('completed');
    // Each run got its own answer, in the order the runs were created.
    for (const [n, run] of runs.entries()) expect((await t.rest('GET', `/api/v1/runs/${run.id}`)).body.output).toBe(answer('limited')(n));
  });

  it('raising the limit starts waiting runs at once; lifting it starts them all', async () => {
    expect((await setLimit(t, 1)).status).toBe(200);
    const { runs, gates } = await startHeldRuns(t.rest, model, { count: 3, modelKey: 'held', answerOf: answer('raised') });
    await gates[0]!.reached;
    expect(await statuses(t, runs)).toEqual(['running', 'accepted', 'accepted']);
    expect((await setLimit(t, 2)).status).toBe(200);
    await gates[1]!.reached;
    expect(await statuses(t, runs)).toEqual(['running', 'running', 'accepted']);
    expect((await setLimit(t, null)).status).toBe(200);
    await gates[2]!.reached;
    expect(await statuses(t, runs)).toEqual(['running', 'running', 'running']);
    for (const gate of gates) gate.open();
    for (const run of runs) expect((await settleRun(t, run.id)).status).toBe('completed');
  });

  it('holds across two instances sharing the database', async () => {
    const second = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] }, t);
    try {
      expect((await setLimit(t, 1)).status).toBe(200);
      const { runs, gates } = await startHeldRuns(t.rest, model, { count: 2, modelKey: 'held', answerOf: answer('first') });
      const more = await startHeldRuns(second.rest, model, { count: 2, modelKey: 'held', answerOf: answer('second') });
      const all = [...runs, ...more.runs];
      const allGates = [...gates, ...more.gates];
      // One at a time, oldest first, whichever instance's worker claims it: run n makes the n-th request.
      for (let n = 0; n < all.length; n++) {
        await allGates[n]!.reached;
        const now = await statuses(t, all);
        expect(now[n]).toBe('running');
        expect(now.filter((status) => status === 'running')).toHaveLength(1);
        allGates[n]!.open();
        expect((await settleRun(t, all[n]!.id)).status).toBe('completed');
      }
      expect(await statuses(t, all)).toEqual(['completed', 'completed', 'completed', 'completed']);
    } finally {
      await second.stop();
      await setLimit(t, null);
    }
  });

  it('keeps the run path short: a warm run of a limited workspace costs a few more round trips, not a scan', async () => {
    expect((await setLimit(t, 4)).status).toBe(200);
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'warm', config: { model: 'held' } } })).body;
    const start = () =>
      t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'go' }] } } });
    model.turns.push({ text: 'warm-up' }, { text: 'counted' });
    await settleRun(t, (await start()).body.id);
    // The run is followed through the app's own events (reading it over REST would count statements too).
    const before = t.app.database.operationCount();
    await new Promise<void>((resolve, reject) => {
      const accepted = t.app.deps.events.subscribe('runAccepted')[Symbol.asyncIterator]();
      void accepted.next().then(async (next) => {
        await accepted.return?.();
        const runId = next.value.runId;
        const changes = t.app.deps.events.subscribe('runChanged', runId)[Symbol.asyncIterator]();
        const completed = (async () => {
          for (;;) {
            const change = await changes.next();
            if (change.done || change.value.status === 'completed') return;
          }
        })();
        // It may have completed before this listened: its status, read on a connection of the test's own
        // (which the app's counter does not see), settles that.
        const client = new pg.Client({ connectionString: t.databaseUrl });
        await client.connect();
        const { rows } = await client.query<{ status: string }>('SELECT status FROM runs WHERE id = $1', [runId]);
        await client.end();
        if (rows[0]?.status !== 'completed') await completed;
        await changes.return?.();
        resolve();
      }, reject);
      void start().then((response) => (response.status === 201 ? undefined : reject(new Error(`create answered ${response.status}`))));
    });
    const used = t.app.database.operationCount() - before;
    // create (1) + the named claim, which finds the workspace limited (1) + the lock and the counted
    // claim in their transaction (2) + seal (1, which announces the next waiting run itself): 5, where
    // a workspace without a limit takes 3 (hot-path.test.ts); one more is headroom for a heartbeat.
    expect(used).toBeGreaterThanOrEqual(5);
    expect(used).toBeLessThanOrEqual(6);
    await setLimit(t, null);
  });

  it('is validated, needs admin, and is audited', async () => {
    for (const bad of [0, -1, 10_001]) {
      const refused = await setLimit(t, bad);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error.details.field).toBe('max_concurrent_runs');
    }
    expect((await setLimit(t, 1.5)).status).toBe(400);
    const writer = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: ['read', 'write', 'run'] });
    expect((await setLimit(t, 3, writer.token)).status).toBe(403);

    const set = await setLimit(t, 3);
    expect(set.status).toBe(200);
    expect(set.body.max_concurrent_runs).toBe(3);
    const events = await t.rest('GET', `/api/v1/audit-events?resource_id=${t.workspaceId}&limit=1`);
    expect(events.body.items[0]).toMatchObject({
      action: 'update',
      resource_kind: 'workspace',
      changes: { maxConcurrentRuns: { from: null, to: 3 } },
    });
    const graphql = await t.graphql('{ workspace { maxConcurrentRuns } }');
    expect(graphql.data.workspace.maxConcurrentRuns).toBe(3);
    const lifted = await setLimit(t, null);
    expect(lifted.body.max_concurrent_runs).toBeNull();
  });
});
