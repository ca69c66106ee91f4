// Every way of starting a run writes the same plan: the rows as inserted (captured by a trigger the
// test installs) have the same shape whichever path was taken — the hot path's one statement, the
// transactional starts, an idle thread's inbox, a queued entry's turn, resume and fork — and every
// path audits what it creates with the request id of the request that caused it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
let db: pg.Client;
beforeAll(async () => {
  t = await startTestApp();
  await insertModel(t, 'dev');
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  // Every inserted row of the tables a new run writes, exactly as inserted.
  await db.query(`
    CREATE TABLE test_inserted_rows (seq bigserial PRIMARY KEY, table_name text NOT NULL, id text NOT NULL, row jsonb NOT NULL);
    CREATE FUNCTION test_capture_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_inserted_rows (table_name, id, row) VALUES (TG_TABLE_NAME, NEW.id, to_jsonb(NEW)); RETURN NEW; END $$;
    CREATE TRIGGER test_capture AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION test_capture_insert();
    CREATE TRIGGER test_capture AFTER INSERT ON threads FOR EACH ROW EXECUTE FUNCTION test_capture_insert();
    CREATE TRIGGER test_capture AFTER INSERT ON sessions FOR EACH ROW EXECUTE FUNCTION test_capture_insert();
    CREATE TRIGGER test_capture AFTER INSERT ON inbox_entries FOR EACH ROW EXECUTE FUNCTION test_capture_insert();`);
});
afterAll(async () => {
  await db?.end();
  await t?.stop();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const post = async (path: string, requestId: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await t.rest('POST', path, { headers: { 'x-request-id': requestId, ...headers }, body });
  expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
  return response.body;
};
async function agentWith(config: Record<string, unknown>): Promise<string> {
  return (await t.rest('POST', '/api/v1/agents', { body: { name: 'plan', config: { model: 'dev', ...config } } })).body.id;
}
/** The row as inserted into `table` (one client: the reads go one after another). */
async function inserted(table: string, id: string): Promise<Record<string, unknown>> {
  const { rows } = await db.query('SELECT row FROM test_inserted_rows WHERE table_name = $1 AND id = $2', [table, id]);
  expect(rows, `${table} ${id} inserted once`).toHaveLength(1);
  return rows[0].row;
}

// Values that name or carry what this run is about; everything else must be equal on every path.
const PARTICULAR = new Set([
  'id',
  'workspace_id',
  'session_id',
  'thread_id',
  'agent_id',
  'agent_revision_id',
  'source_entry_id',
  'principal_id',
  'parent_run_id',
  'current_run_id',
  'last_run_id',
  'assigned_run_id',
  'origin_run_id',
  'origin_thread_id',
  'created_by_id',
  'updated_by_id',
  'created_at',
  'updated_at',
  'input',
  'payload',
  'options',
  'labels',
  'resume',
  'request_digest',
  'request_id',
  'trigger',
  'lineage',
  'revision_selection',
  'origin',
  'message_history',
  'delivery',
  'position',
  'last_inbox_position',
]);
const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
function shape(row: Record<string, unknown>) {
  expect(row.created_at).toBe(row.updated_at);
  return Object.fromEntries(Object.entries(row).map(([column, value]) => [column, PARTICULAR.has(column) ? kind(value) : value]));
}

describe('starting a run, whichever way', () => {
  it('writes the same rows and audits them with the request id', async () => {
    const echo = await agentWith({});
    const pausing = await agentWith({
      client_tools: [{ name: 'pick' }],
      model_settings: { script: [[{ tool_call: { id: 'p1', name: 'pick' } }], [{ text: 'picked' }]], after_script: 'echo' },
    });
    // Busy until cancelled: the entry delivered behind it gets its turn when the interrupt ends it.
    const busy = await agentWith({ model_settings: { script: [[{ delay_ms: 600_000 }, { text: 'late' }]] } });

    const started: Record<string, { run: any; requestId: string }> = {};
    const start = async (path: string, requestId: string, body: unknown, headers?: Record<string, string>) => {
      const result = await post(path, requestId, body, headers);
      return result.run ?? result;
    };
    started.hotPath = { requestId: 'req-hot-path', run: await start('/api/v1/runs', 'req-hot-path', { agent_id: echo, input: text('a') }) };
    await settleRun(t, started.hotPath.run.id);
    started.existingThread = {
      requestId: 'req-existing-thread',
      run: await start('/api/v1/runs', 'req-existing-thread', {
        agent_id: echo,
        input: text('b'),
        thread_id: started.hotPath.run.thread_id,
      }),
    };
    started.overrides = {
      requestId: 'req-overrides',
      run: await start('/api/v1/runs', 'req-overrides', {
        agent_id: echo,
        input: text('c'),
        options: { overrides: { instructions: 'be brief' } },
      }),
    };
    const idle = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    started.idleInbox = {
      requestId: 'req-idle-inbox',
      run: await start(`/api/v1/threads/${idle.id}/inbox`, 'req-idle-inbox', { agent_id: echo, payload: text('d') }),
    };

    const waiting = await start('/api/v1/runs', 'req-pausing', { agent_id: pausing, input: text('choose') });
    expect((await settleRun(t, waiting.id)).status).toBe('waiting');
    started.resume = {
      requestId: 'req-resume',
      run: await start(
        `/api/v1/runs/${waiting.id}/resume`,
        'req-resume',
        { calls: { p1: { status: 'returned', value: 'blue' } } },
        { 'idempotency-key': 'plan-resume' },
      ),
    };
    await settleRun(t, started.resume.run.id);
    started.fork = {
      requestId: 'req-fork',
      run: await start(
        `/api/v1/runs/${started.resume.run.id}/fork`,
        'req-fork',
        { agent_id: echo, payload: text('e') },
        { 'idempotency-key': 'plan-fork' },
      ),
    };

    const active = await start('/api/v1/runs', 'req-busy', { agent_id: busy, input: text('work') });
    const interrupt = await post(`/api/v1/threads/${active.thread_id}/inbox`, 'req-interrupt', {
      agent_id: echo,
      payload: text('f'),
      delivery: 'interrupt',
    });
    expect(interrupt.entry.status).toBe('pending');
    const entry = await waitFor(
      () => t.rest('GET', `/api/v1/threads/${active.thread_id}/inbox/${interrupt.entry.id}`).then((r) => r.body),
      (e) => e.assigned_run_id !== null,
      'the interrupting entry gets its turn',
    );
    started.queuedTurn = { requestId: 'req-interrupt', run: (await t.rest('GET', `/api/v1/runs/${entry.assigned_run_id}`)).body };
    expect(started.queuedTurn.run).toMatchObject({ trigger: 'queue', source_entry_id: interrupt.entry.id });

    // The run rows: identical but for what names this run, its parent and its resume answers.
    const runs: Record<string, Record<string, unknown>> = {};
    for (const [path, { run }] of Object.entries(started)) runs[path] = shape(await inserted('runs', run.id));
    const base = runs.hotPath!;
    expect(base).toMatchObject({
      status: 'accepted',
      attempts: 0,
      max_attempts: 3,
      handed_back: 0,
      version: 1,
      parent_run_id: 'null',
      resume: 'null',
      memory_mounts: [],
      environment_mounts: [],
    });
    for (const path of ['existingThread', 'overrides', 'idleInbox', 'queuedTurn']) expect(runs[path], path).toEqual(base);
    expect(runs.resume).toEqual({ ...base, parent_run_id: 'string', resume: 'object' });
    expect(runs.fork).toEqual({ ...base, parent_run_id: 'string' });

    // The inbox entries made with their runs, and the threads and sessions made for them.
    const shapes = async (table: string, paths: string[], column: string) => {
      const found = [];
      for (const path of paths) found.push(shape(await inserted(table, started[path]!.run[column])));
      return found;
    };
    const entries = await shapes(
      'inbox_entries',
      ['hotPath', 'existingThread', 'overrides', 'idleInbox', 'resume', 'fork'],
      'source_entry_id',
    );
    for (const made of entries) expect(made).toEqual(entries[0]);
    expect(entries[0]).toMatchObject({ status: 'assigned', kind: 'message', request_id: 'string' });
    const threads = await shapes('threads', ['hotPath', 'overrides', 'fork'], 'thread_id');
    expect(threads[1]).toEqual(threads[0]);
    expect(threads[2]).toEqual({ ...threads[0], origin_run_id: 'string', origin_thread_id: 'string' });
    const sessions = await shapes('sessions', ['hotPath', 'overrides'], 'session_id');
    expect(sessions[1]).toEqual(sessions[0]);

    // The audit rows: one `create` per resource made, each with its request's id, the same shape on every path.
    const audited = async (resourceId: string) => (await t.rest('GET', `/api/v1/audit-events?resource_id=${resourceId}`)).body.items;
    for (const [path, { run, requestId }] of Object.entries(started)) {
      expect(await audited(run.id), path).toEqual([
        expect.objectContaining({
          action: 'create',
          resource_kind: 'run',
          version: 1,
          request_id: requestId,
          changes: {
            agent_id: { from: null, to: run.agent_id },
            agent_revision_id: { from: null, to: run.agent_revision_id },
            thread_id: { from: null, to: run.thread_id },
          },
        }),
      ]);
    }
    for (const path of ['hotPath', 'overrides', 'fork']) {
      const { run, requestId } = started[path]!;
      expect(await audited(run.thread_id), path).toEqual([
        expect.objectContaining({
          action: 'create',
          resource_kind: 'thread',
          version: 1,
          request_id: requestId,
          changes: { session_id: { from: null, to: run.session_id } },
        }),
      ]);
    }
    for (const path of ['hotPath', 'overrides']) {
      const { run, requestId } = started[path]!;
      expect(await audited(run.session_id), path).toEqual([
        expect.objectContaining({ action: 'create', resource_kind: 'session', version: 1, request_id: requestId, changes: {} }),
      ]);
    }
    expect(await audited(interrupt.entry.id)).toEqual([
      expect.objectContaining({ action: 'create', resource_kind: 'inbox_entry', request_id: 'req-interrupt' }),
    ]);
  });
});
