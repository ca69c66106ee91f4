// The run hot path stays a handful of round trips (credentials and configuration are remembered),
// and what is remembered is forgotten at once when any instance changes it.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';
import { recordStatements } from '../helpers/query-plans.js';
import { createApiKey, createWorkspace, revokeApiKey } from '../../src/features/access/admin.js';

let t: TestApp;
let other: TestApp;
let agentId: string;
const input = { content: [{ type: 'text', text: 'hi' }] };

beforeAll(async () => {
  t = await startTestApp({ runWorkers: 2 });
  other = await startTestApp({ runWorkers: 0 }, t);
  await insertModel(t, 'dev');
  agentId = (await t.rest('POST', '/api/v1/agents', { body: { name: 'hot', config: { model: 'dev' } } })).body.id;
});
afterAll(async () => {
  await other?.stop();
  await t?.stop();
});

const SETTLED = ['completed', 'failed', 'cancelled', 'waiting'];

/**
 * Resolves when the run seals, from the app's own events. The run may have sealed before this
 * listens (the worker can be faster than the `runAccepted` event's consumer), so once listening it
 * also reads the status on a connection of its own, which the app's operation counter does not see.
 */
function sealed(app: TestApp, runId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      void iterator.return?.();
      resolve();
    };
    const iterator = app.app.deps.events.subscribe('runChanged', runId)[Symbol.asyncIterator]();
    void (async () => {
      for (;;) {
        const next = await iterator.next();
        if (next.done || SETTLED.includes(next.value.status)) break;
      }
      finish();
    })();
    const client = new pg.Client({ connectionString: app.databaseUrl });
    void client
      .connect()
      .then(() => client.query<{ status: string }>('SELECT status FROM runs WHERE id = $1', [runId]))
      .then(({ rows }) => (SETTLED.includes(rows[0]?.status ?? '') ? finish() : undefined))
      .then(() => client.end(), reject);
  });
}

describe('the run hot path', () => {
  it('creates, executes and seals a warm run in three database round trips', async () => {
    const first = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input } });
    expect(first.status).toBe(201);
    await settleRun(t, first.body.id);
    // Listening before the run exists: the worker may seal it before the response arrives.
    const before = t.app.database.operationCount();
    const runId = await new Promise<string>((resolve, reject) => {
      let settled: Promise<void> | null = null;
      const subscription = t.app.deps.events.subscribe('runAccepted')[Symbol.asyncIterator]();
      void subscription.next().then(async (next) => {
        settled = sealed(t, next.value.runId);
        await subscription.return?.();
        await settled;
        resolve(next.value.runId);
      }, reject);
      void t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input } }).then((response) => {
        if (response.status !== 201) reject(new Error(`create answered ${response.status}`));
      });
    });
    const used = t.app.database.operationCount() - before;
    // create (1: everything in one insert) + claim (1) + seal (1: items, run, thread, entries);
    // one more is headroom for a lease heartbeat or a recovery sweep landing in the window.
    expect(used).toBeLessThanOrEqual(4);
    const run = (await t.rest('GET', `/api/v1/runs/${runId}`)).body;
    expect(run.status).toBe('completed');
    const items = (await t.rest('GET', `/api/v1/runs/${runId}/items`)).body.items;
    expect(items.map((item: { kind: string }) => item.kind)).toEqual(['user_message', 'text_message']);
  });

  it('resumes a waiting run and executes and seals its successor in a handful of round trips', async () => {
    const tool = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'hot tool',
        config: {
          model: 'dev',
          client_tools: [{ name: 'pick' }],
          model_settings: { script: [[{ tool_call: { id: 'p1', name: 'pick' } }], [{ text: 'picked' }]], after_script: 'echo' },
        },
      },
    });
    const waiting = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: tool.body.id, input } })).body;
    expect((await settleRun(t, waiting.id)).status).toBe('waiting');
    const before = t.app.database.operationCount();
    const successorId = await new Promise<string>((resolve, reject) => {
      const subscription = t.app.deps.events.subscribe('runAccepted')[Symbol.asyncIterator]();
      void subscription.next().then(async (next) => {
        await subscription.return?.();
        await sealed(t, next.value.runId);
        resolve(next.value.runId);
      }, reject);
      void t
        .rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
          headers: { 'idempotency-key': 'hot-resume' },
          body: { calls: { p1: { status: 'returned', value: 'blue' } } },
        })
        .then((response) => {
          if (response.status !== 200) reject(new Error(`resume answered ${response.status} ${JSON.stringify(response.body)}`));
        });
    });
    const used = t.app.database.operationCount() - before;
    // The resume: the 404 check (1), the idempotency key (1), the run locked and read with its
    // thread (1), the successor written with its parent marked resumed (1), the idempotency result
    // (1); the worker: claim (1, with the parent's pending calls) and seal (1); the push
    // notification's subscriptions (1). One more is headroom for a heartbeat or a recovery sweep.
    expect(used).toBeLessThanOrEqual(9);
    expect((await t.rest('GET', `/api/v1/runs/${successorId}`)).body).toMatchObject({ status: 'completed', output: 'picked' });
    expect((await t.rest('GET', `/api/v1/runs/${waiting.id}`)).body).toMatchObject({ status: 'waiting', resumed_by_id: successorId });
  });

  it('delivers to an idle thread and forks a run in a handful of round trips each', async () => {
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const counted = async (send: () => Promise<{ status: number; body: { run: { id: string } } }>) => {
      const before = t.app.database.operationCount();
      const runId = await new Promise<string>((resolve, reject) => {
        const subscription = t.app.deps.events.subscribe('runAccepted')[Symbol.asyncIterator]();
        void subscription.next().then(async (next) => {
          await subscription.return?.();
          await sealed(t, next.value.runId);
          resolve(next.value.runId);
        }, reject);
        void send().then((response) => {
          if (response.status !== 201) reject(new Error(`answered ${response.status} ${JSON.stringify(response.body)}`));
        });
      });
      return { runId, used: t.app.database.operationCount() - before };
    };
    // Warm: the caller's credential, the agent's facts and the workspace's budgets are remembered from here on.
    const warm = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    await counted(() =>
      t.rest('POST', `/api/v1/threads/${warm.id}/inbox`, {
        headers: { 'idempotency-key': 'hot-inbox-warm' },
        body: { agent_id: agentId, payload: input },
      }),
    );
    const delivered = await counted(() =>
      t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, {
        headers: { 'idempotency-key': 'hot-inbox' },
        body: { agent_id: agentId, payload: input },
      }),
    );
    // The 404 check (1), the idempotency key (1), the thread locked and read (1), the thread's active
    // run (1), the run written (1), the idempotency result (1), the answer read back (1); the worker's
    // claim and seal (2). The agent and its revision come from the facts a new run remembers (none
    // while the configuration is unchanged; two reads before). One more is headroom.
    expect(delivered.used).toBeLessThanOrEqual(10);
    expect((await t.rest('GET', `/api/v1/runs/${delivered.runId}`)).body.status).toBe('completed');
    const forked = await counted(() =>
      t.rest('POST', `/api/v1/runs/${delivered.runId}/fork`, {
        headers: { 'idempotency-key': 'hot-fork' },
        body: { agent_id: agentId, payload: input },
      }),
    );
    // The 404 check (1), the idempotency key (1), the source run with its thread and session (1), the
    // run written (1), the idempotency result (1), the answer read back (1); the worker's claim (with
    // the parent's pending calls and environment mounts) and seal (2). The agent and its revision come
    // from the remembered facts (two reads before). One more is headroom (run items written before the
    // seal when the worker is slow).
    expect(forked.used).toBeLessThanOrEqual(9);
    expect((await t.rest('GET', `/api/v1/runs/${forked.runId}`)).body.status).toBe('completed');
  });

  it("starts a run on an existing thread with one statement that locks and reads the thread; another workspace's thread is not found", async () => {
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const { result: created, statements } = await recordStatements(() =>
      t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input, thread_id: thread.id } }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The request's reads of the thread (the worker's claim and the run's insert are WITH statements).
    const threadReads = statements.filter(({ text }) => /^\s*SELECT\b/i.test(text) && /\bthreads\b/.test(text));
    expect(threadReads.map(({ text }) => text.replace(/\s+/g, ' ').replace(/^SELECT .* FROM/, 'SELECT … FROM'))).toEqual([
      'SELECT … FROM threads WHERE id = $1 AND workspace_id = $2 FOR UPDATE',
    ]);
    expect(threadReads[0]!.values).toEqual([thread.id, expect.any(String)]);
    await settleRun(t, created.body.id);
    // A second run on the thread once the first has sealed: the same path, and the thread's history carried.
    const second = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input, thread_id: thread.id } });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect((await settleRun(t, second.body.id)).status).toBe('completed');
    // A thread of another workspace answers 404, as one that does not exist.
    const stranger = await createWorkspace(t.app.deps, { name: 'hot-path stranger' });
    await insertModel(t, 'dev', { workspaceId: stranger.workspace.id });
    const token = stranger.apiKey.token;
    const strangerAgent = await t.rest('POST', '/api/v1/agents', { body: { name: 'x', config: { model: 'dev' } }, token });
    expect(strangerAgent.status, JSON.stringify(strangerAgent.body)).toBe(201);
    const refused = await t.rest('POST', '/api/v1/runs', { body: { agent_id: strangerAgent.body.id, input, thread_id: thread.id }, token });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('thread') });
  });

  it('runs the same without prepared statements (DATABASE_PREPARED_STATEMENTS=false, for poolers that drop them)', async () => {
    // Its own database: its runs are claimed and sealed by its own workers only.
    const plain = await startTestApp({ runWorkers: 1, databasePreparedStatements: false });
    try {
      await insertModel(plain, 'dev');
      const agent = (await plain.rest('POST', '/api/v1/agents', { body: { name: 'plain', config: { model: 'dev' } } })).body.id;
      for (let i = 0; i < 4; i++) {
        const created = await plain.rest('POST', '/api/v1/runs', { body: { agent_id: agent, input } });
        expect(created.status).toBe(201);
        expect((await settleRun(plain, created.body.id)).status).toBe('completed');
      }
    } finally {
      await plain.stop();
    }
  });

  it('audits the session, thread and run it creates, with the request id', async () => {
    const created = await t.rest('POST', '/api/v1/runs', {
      headers: { 'X-Request-ID': 'req-hot-path-1' },
      body: { agent_id: agentId, input },
    });
    const run = created.body;
    const audited = async (resourceId: string) => (await t.rest('GET', `/api/v1/audit-events?resource_id=${resourceId}`)).body.items;
    expect(await audited(run.id)).toEqual([
      expect.objectContaining({
        action: 'create',
        resource_kind: 'run',
        version: 1,
        request_id: 'req-hot-path-1',
        changes: {
          agent_id: { from: null, to: agentId },
          agent_revision_id: { from: null, to: run.agent_revision_id },
          thread_id: { from: null, to: run.thread_id },
        },
      }),
    ]);
    expect(await audited(run.thread_id)).toEqual([
      expect.objectContaining({
        resource_kind: 'thread',
        request_id: 'req-hot-path-1',
        changes: { session_id: { from: null, to: run.session_id } },
      }),
    ]);
    expect(await audited(run.session_id)).toEqual([expect.objectContaining({ resource_kind: 'session', request_id: 'req-hot-path-1' })]);
    await settleRun(t, run.id);
  });

  it('refuses on the one-statement path what the transactional path refuses', async () => {
    const post = (body: Record<string, unknown>) => t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input, ...body } });
    expect((await post({ agent_id: 'agt_01ZZZZZZZZZZZZZZZZZZZZZZZZ' })).body.error.code).toBe('not_found');
    expect((await post({ agent_revision_id: 'rev_01ZZZZZZZZZZZZZZZZZZZZZZZZ' })).body.error.code).toBe('not_found');
    expect((await post({ session_id: 'ses_01ZZZZZZZZZZZZZZZZZZZZZZZZ' })).status).toBe(404);
    // In a named session: the run's thread is new, the session is the one named.
    const session = (await t.rest('POST', '/api/v1/sessions', { body: {} })).body;
    const inSession = await post({ session_id: session.id });
    expect(inSession.status).toBe(201);
    expect(inSession.body.session_id).toBe(session.id);
    await settleRun(t, inSession.body.id);
    // A disabled provider refuses at once, and its model works again when it is enabled.
    const model = await insertModel(t, 'other');
    const otherAgent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'other', config: { model: 'other' } } })).body;
    expect((await post({ agent_id: otherAgent.id })).status).toBe(201);
    const provider = await t.rest('GET', `/api/v1/model-providers/${model.providerId}`);
    await t.rest('PATCH', `/api/v1/model-providers/${model.providerId}`, {
      headers: { 'If-Match': provider.headers.get('etag')! },
      body: { enabled: false },
    });
    const refused = await post({ agent_id: otherAgent.id });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'disabled']);
    expect(refused.body.error.message).toBe('the provider of model "other" is disabled');
    const archived = (await t.rest('POST', '/api/v1/agents', { body: { name: 'old', config: { model: 'dev' } } })).body;
    expect((await post({ agent_id: archived.id })).status).toBe(201); // remembered now
    await t.rest('POST', `/api/v1/agents/${archived.id}/archive`, { headers: { 'if-match': '*' } });
    expect((await post({ agent_id: archived.id })).body.error).toMatchObject({
      code: 'failed_precondition',
      message: 'the agent is archived; new runs are refused',
    });
  });

  it('a model disabled through another instance refuses new runs here', async () => {
    expect((await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input } })).status).toBe(201);
    const model = await other.rest('GET', '/api/v1/models/dev');
    const patched = await other.rest('PATCH', '/api/v1/models/dev', {
      headers: { 'If-Match': model.headers.get('etag')! },
      body: { enabled: false },
    });
    expect(patched.status).toBe(200);
    const refused = await waitFor(
      () => t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input } }),
      (r) => r.status !== 201,
      'runs to be refused',
      5_000,
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('disabled');
    const again = await other.rest('GET', '/api/v1/models/dev');
    await other.rest('PATCH', '/api/v1/models/dev', { headers: { 'If-Match': again.headers.get('etag')! }, body: { enabled: true } });
    const accepted = await waitFor(
      () => t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input } }),
      (r) => r.status === 201,
      'runs to be accepted again',
      5_000,
    );
    expect(accepted.status).toBe(201);
  });

  it('loses no run when its LISTEN connection drops: the pool reconnects and scans', async () => {
    // Every notification listener on this database is cut; a run is then created by the other
    // instance (which has no workers), so this instance can only learn of it through PostgreSQL.
    const killed = await t.app.deps.db.$queryRaw<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pg_terminate_backend(pid)`;
    expect(killed.length).toBeGreaterThan(0);
    const created = await other.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input } });
    expect(created.status).toBe(201);
    expect((await settleRun(t, created.body.id)).status).toBe('completed');
  });

  it('an API key revoked by another instance stops working here', async () => {
    const key = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: ['read', 'write', 'run'] });
    expect((await t.rest('GET', '/api/v1/runs', { token: key.token })).status).toBe(200); // now remembered here
    await revokeApiKey(other.app.deps, key.id);
    const refused = await waitFor(
      () => t.rest('GET', '/api/v1/runs', { token: key.token }),
      (r) => r.status === 401,
      'the revoked key to be refused',
      5_000,
    );
    expect(refused.status).toBe(401);
  });
});
