// Sessions, threads and runs as resources (creation, reads, filters, labels, cancel, lineage, the
// agent view, tenancy). Execution by the engine is tested in test/engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let otherKey: string;
let otherAgent: { id: string };
let readOnly: string;
let agent: { id: string; default_revision_id: string };
const input = { content: [{ type: 'text', text: 'hello' }] };

beforeAll(async () => {
  // Runs stay as created: no workers execute them here.
  t = await startTestApp({ runWorkers: 0 });
  const other = await createWorkspace(t.app.deps, { name: 'B' });
  otherKey = other.apiKey.token;
  await insertModel(t, 'main');
  await insertModel(t, 'b-model', { workspaceId: other.workspace.id });
  otherAgent = (await t.rest('POST', '/api/v1/agents', { token: otherKey, body: { name: 'Theirs', config: { model: 'b-model' } } })).body;
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
  agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'Runner', config: { model: 'main', instructions: 'base' } } })).body;
});
afterAll(async () => {
  await t.stop();
});

async function start(body: Record<string, unknown> = {}) {
  const response = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input, ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response;
}

describe('POST /api/v1/runs', () => {
  it('opens a session and thread and returns an accepted run pinned to the default revision', async () => {
    const { body: run, headers } = await start({ labels: { purpose: 'test' } });
    expect(run).toMatchObject({
      status: 'accepted',
      trigger: 'input',
      lineage: 'root',
      revision_selection: 'default',
      agent_id: agent.id,
      agent_revision_id: agent.default_revision_id,
      workspace_id: t.workspaceId,
      input,
      labels: { purpose: 'test' },
      pending: { approvals: [], calls: [] },
      attempts: 0,
      output: null,
      failure: null,
      version: 1,
      parent_run_id: null,
      resumed_by_id: null,
    });
    expect(run.id).toMatch(/^run_/);
    expect(headers.get('etag')).toBe(`"${run.id}:1"`);
    for (const field of [
      'session_id',
      'thread_id',
      'source_entry_id',
      'principal_id',
      'created_at',
      'updated_at',
      'created_by_id',
      'updated_by_id',
    ])
      expect(run[field]).toEqual(expect.any(String));
    const thread = await t.rest('GET', `/api/v1/threads/${run.thread_id}`);
    expect(thread.body).toMatchObject({
      session_id: run.session_id,
      current_run_id: run.id,
      last_run_id: run.id,
      origin: 'new',
      message_history: [],
    });
    expect((await t.rest('GET', `/api/v1/runs/${run.id}`)).body).toEqual(run);
  });

  it('concurrent starts on one thread: the thread lock lets exactly one in, the rest are told which run is active', async () => {
    // No workers here: the winner stays accepted (active), so every other start must conflict with it.
    for (let round = 0; round < 3; round++) {
      const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input, thread_id: thread.id } })),
      );
      const won = answers.filter((answer) => answer.status === 201);
      expect(won).toHaveLength(1);
      for (const lost of answers.filter((answer) => answer.status !== 201)) {
        expect(lost.status).toBe(409);
        expect(lost.body.error).toMatchObject({ code: 'conflict', details: { active_run_id: won[0]!.body.id } });
      }
      expect((await t.rest('GET', `/api/v1/runs?thread_id=${thread.id}`)).body.items.map((run: { id: string }) => run.id)).toEqual([
        won[0]!.body.id,
      ]);
    }
  });

  it('pins a named revision, refuses archived agents, busy threads and bad input', async () => {
    const pinned = await start({ agent_revision_id: agent.default_revision_id });
    expect(pinned.body.revision_selection).toBe('pinned');
    const busy = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input, thread_id: pinned.body.thread_id } });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'conflict', details: { active_run_id: pinned.body.id } });
    const cases: [Record<string, unknown>, number, string][] = [
      [{ input: { content: [] } }, 400, 'input.content'],
      [{ input: { content: [{ type: 'image', url: 'x' }] } }, 400, 'input.content[0].url'],
      [{ input: undefined }, 400, 'input'],
      [{ options: { max_usage: { requests: 0 } } }, 400, 'options.max_usage.requests'],
      [{ options: { overrides: { lazy_environment: 'yes' } } }, 400, 'options.overrides.lazy_environment'],
      [{ options: { overrides: { model: 'b-model' } } }, 404, 'options.overrides.model'],
      [{ agent_id: 'agt_01AAAAAAAAAAAAAAAAAAAAAAAA' }, 404, ''],
      [{ agent_revision_id: 'rev_01AAAAAAAAAAAAAAAAAAAAAAAA' }, 404, ''],
    ];
    for (const [body, status, field] of cases) {
      const response = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input, ...body } });
      expect(response.status, JSON.stringify(body)).toBe(status);
      if (field) expect(response.body.error.details.field).toBe(field);
    }
    expect((await start({ options: { max_usage: { requests: 1 } } })).body.options).toEqual({ max_usage: { requests: 1 } });
    const archivedAgent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'Old', config: { model: 'main' } } })).body;
    await t.rest('POST', `/api/v1/agents/${archivedAgent.id}/archive`, { headers: { 'if-match': '*' } });
    const refused = await t.rest('POST', '/api/v1/runs', { body: { agent_id: archivedAgent.id, input } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('failed_precondition');
    expect((await t.rest('POST', '/api/v1/runs', { token: readOnly, body: { agent_id: agent.id, input } })).status).toBe(403);
  });

  it('serves the agent view: the pinned revision with the run overrides applied', async () => {
    const { body: run } = await start({ options: { overrides: { instructions: 'override', retries: { output: 1, tools: 2 } } } });
    const view = await t.rest('GET', `/api/v1/runs/${run.id}/agent`);
    expect(view.status).toBe(200);
    expect(view.body.config).toMatchObject({
      model: 'main',
      instructions: 'override',
      retries: { output: 1, tools: 2 },
      user_questions: false,
    });
    expect(view.body.revision).toMatchObject({ id: agent.default_revision_id, config: { instructions: 'base' } });
  });
});

describe('runs', () => {
  it('change labels only with If-Match; a no-op keeps the version', async () => {
    const { body: run, headers } = await start();
    expect((await t.rest('PATCH', `/api/v1/runs/${run.id}`, { body: { labels: { a: '1' } } })).status).toBe(428);
    const patched = await t.rest('PATCH', `/api/v1/runs/${run.id}`, {
      headers: { 'if-match': headers.get('etag')! },
      body: { labels: { a: '1' } },
    });
    expect(patched.body).toMatchObject({ labels: { a: '1' }, version: 2 });
    const noop = await t.rest('PATCH', `/api/v1/runs/${run.id}`, {
      headers: { 'if-match': patched.headers.get('etag')! },
      body: { labels: { a: '1' } },
    });
    expect(noop.body.version).toBe(2);
    expect(
      (await t.rest('PATCH', `/api/v1/runs/${run.id}`, { headers: { 'if-match': headers.get('etag')! }, body: { labels: {} } })).status,
    ).toBe(412);
    expect((await t.rest('PATCH', `/api/v1/runs/${run.id}`, { headers: { 'if-match': '*' }, body: { status: 'completed' } })).status).toBe(
      400,
    );
  });

  it('cancel an accepted run at once; a sealed run cannot be cancelled again', async () => {
    const { body: run } = await start();
    const cancelled = await t.rest('POST', `/api/v1/runs/${run.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', failure: { code: 'cancelled' } });
    expect(cancelled.body.sealed_at).toEqual(expect.any(String));
    expect(cancelled.body.cancel_requested_at).toEqual(expect.any(String));
    const again = await t.rest('POST', `/api/v1/runs/${run.id}/cancel`);
    expect(again.status).toBe(409);
    const thread = await t.rest('GET', `/api/v1/threads/${run.thread_id}`);
    expect(thread.body.current_run_id).toBeNull();
    // The thread is free again for a new run.
    expect((await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input, thread_id: run.thread_id } })).status).toBe(201);
  });

  it('list with every filter, newest first, paged', async () => {
    const fresh = await createWorkspace(t.app.deps, { name: 'runs-list' });
    const key = fresh.apiKey.token;
    await insertModel(t, 'm', { workspaceId: fresh.workspace.id });
    const a1 = (await t.rest('POST', '/api/v1/agents', { token: key, body: { name: 'A1', config: { model: 'm' } } })).body;
    const a2 = (await t.rest('POST', '/api/v1/agents', { token: key, body: { name: 'A2', config: { model: 'm' } } })).body;
    const mk = async (agentId: string, extra: Record<string, unknown> = {}) =>
      (await t.rest('POST', '/api/v1/runs', { token: key, body: { agent_id: agentId, input, ...extra } })).body;
    const r1 = await mk(a1.id, { labels: { k: 'v' } });
    const r2 = await mk(a2.id);
    const r3 = await mk(a1.id);
    await t.rest('POST', `/api/v1/runs/${r3.id}/cancel`, { token: key });
    const ids = async (query: string) => {
      const response = await t.rest('GET', `/api/v1/runs?${query}`, { token: key });
      expect(response.status, query).toBe(200);
      return response.body.items.map((run: { id: string }) => run.id);
    };
    expect(await ids('')).toEqual([r3.id, r2.id, r1.id]);
    expect(await ids(`agent_id=${a1.id}`)).toEqual([r3.id, r1.id]);
    expect(await ids(`thread_id=${r2.thread_id}`)).toEqual([r2.id]);
    expect(await ids(`session_id=${r1.session_id}`)).toEqual([r1.id]);
    expect(await ids('status=cancelled')).toEqual([r3.id]);
    expect(await ids('status=accepted,cancelled')).toEqual([r3.id, r2.id, r1.id]);
    expect(await ids(`principal_id=${r1.principal_id}`)).toHaveLength(3);
    expect(await ids('label=k:v')).toEqual([r1.id]);
    expect(await ids(`created_after=${encodeURIComponent(r2.created_at)}`)).toEqual([r3.id]);
    expect(await ids(`created_before=${encodeURIComponent(r2.created_at)}`)).toEqual([r1.id]);
    const page = await t.rest('GET', '/api/v1/runs?limit=2', { token: key });
    const rest = await t.rest('GET', `/api/v1/runs?limit=2&cursor=${page.body.next_cursor}`, { token: key });
    expect([...page.body.items, ...rest.body.items].map((r: { id: string }) => r.id)).toEqual([r3.id, r2.id, r1.id]);
    expect(rest.body.next_cursor).toBeNull();
    for (const bad of ['limit=0', 'limit=101', 'status=sleeping', 'created_after=soon'])
      expect((await t.rest('GET', `/api/v1/runs?${bad}`, { token: key })).status, bad).toBe(400);
    expect((await t.rest('GET', '/api/v1/runs?limit=1', { token: key })).status).toBe(200);
    expect((await t.rest('GET', '/api/v1/runs?limit=100', { token: key })).status).toBe(200);
  });

  it('lineage of a root run is the run alone', async () => {
    const { body: run } = await start();
    const lineage = await t.rest('GET', `/api/v1/runs/${run.id}/lineage`);
    expect(lineage.body).toMatchObject({ items: [{ id: run.id }], next_cursor: null });
  });

  it("answer 404 for another workspace's runs, threads and sessions, and never list them", async () => {
    const { body: run } = await start();
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/v1/runs/${run.id}`],
      ['PATCH', `/api/v1/runs/${run.id}`, { labels: {} }],
      ['POST', `/api/v1/runs/${run.id}/cancel`],
      ['GET', `/api/v1/runs/${run.id}/lineage`],
      ['GET', `/api/v1/runs/${run.id}/agent`],
      ['GET', `/api/v1/runs/${run.id}/items`],
      ['POST', `/api/v1/runs/${run.id}/resume`, { calls: {} }],
      ['POST', `/api/v1/runs/${run.id}/fork`, { payload: input }],
      ['GET', `/api/v1/threads/${run.thread_id}`],
      ['PATCH', `/api/v1/threads/${run.thread_id}`, { labels: {} }],
      ['POST', `/api/v1/threads/${run.thread_id}/archive`],
      ['GET', `/api/v1/sessions/${run.session_id}`],
      ['PATCH', `/api/v1/sessions/${run.session_id}`, { title: 'x' }],
      ['POST', '/api/v1/runs', { agent_id: agent.id, input }],
      ['POST', '/api/v1/threads', { session_id: run.session_id }],
    ];
    for (const [method, path, body] of calls) {
      const response = await t.rest(method, path, { token: otherKey, headers: { 'if-match': '*', 'idempotency-key': 'k' }, body });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    for (const query of ['', `?thread_id=${run.thread_id}`, `?agent_id=${agent.id}`]) {
      expect((await t.rest('GET', `/api/v1/runs${query}`, { token: otherKey })).body.items).toEqual([]);
    }
  });
});

describe('sessions and threads', () => {
  it('create, read, list, change and archive', async () => {
    const session = await t.rest('POST', '/api/v1/sessions', { body: { title: 'Support chat', labels: { channel: 'web' } } });
    expect(session.status).toBe(201);
    expect(session.body.id).toMatch(/^ses_/);
    const patched = await t.rest('PATCH', `/api/v1/sessions/${session.body.id}`, {
      headers: { 'if-match': session.headers.get('etag')! },
      body: { title: 'Renamed' },
    });
    expect(patched.body).toMatchObject({ title: 'Renamed', version: 2 });
    const thread = await t.rest('POST', '/api/v1/threads', {
      body: { session_id: session.body.id, labels: { a: 'b' }, mcp_headers: { con_x: { 'X-Tenant': 't1' } } },
    });
    expect(thread.status).toBe(201);
    expect(thread.body).toMatchObject({
      session_id: session.body.id,
      origin: 'new',
      labels: { a: 'b' },
      mcp_headers: { con_x: { 'X-Tenant': 't1' } },
      archived_at: null,
    });
    const listed = await t.rest('GET', `/api/v1/threads?session_id=${session.body.id}`);
    expect(listed.body.items.map((x: { id: string }) => x.id)).toEqual([thread.body.id]);
    const labelled = await t.rest('PATCH', `/api/v1/threads/${thread.body.id}`, {
      headers: { 'if-match': thread.headers.get('etag')! },
      body: { labels: { a: 'c' } },
    });
    expect(labelled.body).toMatchObject({ labels: { a: 'c' }, version: 2 });
    const archived = await t.rest('POST', `/api/v1/threads/${thread.body.id}/archive`, {
      headers: { 'if-match': labelled.headers.get('etag')! },
    });
    expect(archived.body.archived_at).toEqual(expect.any(String));
    expect((await t.rest('GET', `/api/v1/threads?session_id=${session.body.id}&archived=false`)).body.items).toEqual([]);
    expect((await t.rest('GET', `/api/v1/threads?session_id=${session.body.id}&archived=true`)).body.items).toHaveLength(1);
    const refused = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input, thread_id: thread.body.id } });
    expect(refused.status).toBe(409);
    const bad = await t.rest('POST', '/api/v1/threads', { body: { mcp_headers: { con_x: { 'bad header': 1 } } } });
    expect(bad.status).toBe(400);
    const newSession = await t.rest('POST', '/api/v1/threads', { body: {} });
    expect(newSession.body.session_id).toMatch(/^ses_/);
    expect((await t.rest('GET', '/api/v1/sessions?label=channel:web')).body.items.map((s: { id: string }) => s.id)).toEqual([
      session.body.id,
    ]);
  });
});

describe('changes need write', () => {
  it('PATCH of a run, resume, fork and PATCH of an inbox entry answer 403 permission_denied to a read-only key', async () => {
    const { body: run, headers } = await start();
    // A second delivery waits behind the accepted run: a pending entry, the one kind that can be edited.
    const pending = await t.rest('POST', `/api/v1/threads/${run.thread_id}/inbox`, { body: { payload: input } });
    expect(pending.body.entry.status).toBe('pending');
    const threadEtag = (await t.rest('GET', `/api/v1/threads/${run.thread_id}`)).headers.get('etag')!;
    const calls: [string, string, Record<string, string>, unknown][] = [
      ['PATCH', `/api/v1/runs/${run.id}`, { 'if-match': headers.get('etag')! }, { labels: { a: '1' } }],
      ['POST', `/api/v1/runs/${run.id}/resume`, { 'idempotency-key': 'ro-resume' }, { calls: {} }],
      ['POST', `/api/v1/runs/${run.id}/fork`, { 'idempotency-key': 'ro-fork' }, { payload: input }],
      ['PATCH', `/api/v1/threads/${run.thread_id}/inbox/${pending.body.entry.id}`, { 'if-match': threadEtag }, { payload: input }],
    ];
    for (const [method, path, callHeaders, body] of calls) {
      const refused = await t.rest(method, path, { token: readOnly, headers: callHeaders, body });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error, `${method} ${path}`).toMatchObject({ code: 'permission_denied', details: { permission: 'write' } });
    }
    expect((await t.rest('GET', `/api/v1/runs/${run.id}`)).body).toMatchObject({ version: run.version, labels: {} });
    // A fork of the sealed run, still refused: the permission is checked whatever the run's state.
    await t.rest('POST', `/api/v1/runs/${run.id}/cancel`);
    const fork = await t.rest('POST', `/api/v1/runs/${run.id}/fork`, {
      token: readOnly,
      headers: { 'idempotency-key': 'ro-fork-sealed' },
      body: { payload: input },
    });
    expect(fork.status).toBe(403);
    // No fork thread was opened in the session.
    const threads = (await t.rest('GET', `/api/v1/threads?session_id=${run.session_id}`)).body.items;
    expect(threads).toHaveLength(1);
  });
});

describe('fork', () => {
  it("answers 404 for another workspace's agent_id and forks nothing", async () => {
    const { body: run } = await start();
    expect((await t.rest('POST', `/api/v1/runs/${run.id}/cancel`)).status).toBe(200);
    const foreign = await t.rest('POST', `/api/v1/runs/${run.id}/fork`, {
      headers: { 'idempotency-key': 'foreign-agent' },
      body: { agent_id: otherAgent.id, payload: input },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await t.rest('GET', `/api/v1/threads?session_id=${run.session_id}`)).body.items).toHaveLength(1);
    // The same fork with this workspace's agent is made (so the 404 was the agent's).
    const own = await t.rest('POST', `/api/v1/runs/${run.id}/fork`, {
      headers: { 'idempotency-key': 'own-agent' },
      body: { agent_id: agent.id, payload: input },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body.run.agent_id).toBe(agent.id);
  });
});

describe('default page sizes', () => {
  it('runs: 51 runs and no limit → 50 runs and a cursor to the 51st', async () => {
    const fresh = await createWorkspace(t.app.deps, { name: 'fifty-one runs' });
    const as = { token: fresh.apiKey.token };
    await insertModel(t, 'm', { workspaceId: fresh.workspace.id });
    const own = (await t.rest('POST', '/api/v1/agents', { ...as, body: { name: 'A', config: { model: 'm' } } })).body;
    const ids: string[] = [];
    for (let i = 0; i < 51; i++) ids.push((await t.rest('POST', '/api/v1/runs', { ...as, body: { agent_id: own.id, input } })).body.id);
    const first = await t.rest('GET', '/api/v1/runs', as);
    expect(first.body.items).toHaveLength(50);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const rest = await t.rest('GET', `/api/v1/runs?cursor=${encodeURIComponent(first.body.next_cursor)}`, as);
    expect(rest.body).toMatchObject({ items: [{ id: ids[0] }], next_cursor: null });
  });

  it('inbox: limit 1 to 100, default 50', async () => {
    const { body: run } = await start();
    // The first entry started the run, which stays accepted (no workers): every later delivery waits in the inbox.
    for (let i = 0; i < 51; i++) {
      const delivered = await t.rest('POST', `/api/v1/threads/${run.thread_id}/inbox`, { body: { payload: input } });
      expect(delivered.status).toBe(201);
    }
    const inbox = `/api/v1/threads/${run.thread_id}/inbox`;
    const first = await t.rest('GET', inbox);
    expect(first.body.items.map((entry: { position: number }) => entry.position)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const rest = await t.rest('GET', `${inbox}?cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(rest.body.items.map((entry: { position: number }) => entry.position)).toEqual([51, 52]);
    expect((await t.rest('GET', `${inbox}?limit=1`)).body.items).toHaveLength(1);
    expect((await t.rest('GET', `${inbox}?limit=100`)).body).toMatchObject({ items: expect.any(Array), next_cursor: null });
    expect((await t.rest('GET', `${inbox}?limit=100`)).body.items).toHaveLength(52);
    for (const bad of ['0', '101']) {
      const refused = await t.rest('GET', `${inbox}?limit=${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'limit' } });
    }
  });
});
