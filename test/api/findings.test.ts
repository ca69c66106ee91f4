// Finding analyses and findings end to end on the scripted model: runs that loop (identical tool
// calls), fail (tool retries run out) and get denied (an approval refused) are found by an analysis,
// each finding's evidence naming the right run, trace and spans; the same problems found again
// update their findings; Idempotency-Key replay and conflict; listing, filters and page limits;
// PATCH with If-Match (audited, no-op keeps the version); permissions; cross-workspace 404; and an
// analysis over many traces costs the statements of one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
/** A second instance on the same database without workers: its statement count is the request's alone. */
let quiet: TestApp;
let target: { url: string; close(): Promise<void> };
let otherKey: string;
let readKey: string;

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const script = (...turns: unknown[][]) => ({ model_settings: { script: turns } });
const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ tool_call: { id, name, arguments: args } });

beforeAll(async () => {
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((done) => (server.close(() => done()), server.closeAllConnections())),
  };
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  quiet = await startTestApp({ runWorkers: 0 }, t);
  await insertModel(t, 'dev');
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  readKey = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: ['read'] })).token;
});
afterAll(async () => {
  await quiet?.stop();
  await t?.stop();
  await target?.close();
});

async function created(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await t.rest('POST', path, { body, headers });
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  return response.body;
}

/** A new revision of the agent (not its default): runs name it. */
async function revisionOf(agentId: string, config: Record<string, unknown>) {
  const agent = await t.rest('GET', `/api/v1/agents/${agentId}`);
  return created(`/api/v1/agents/${agentId}/revisions`, { config, make_default: false }, { 'if-match': agent.headers.get('etag')! });
}

async function runOf(agentId: string, revisionId?: string) {
  const run = await created('/api/v1/runs', {
    agent_id: agentId,
    ...(revisionId ? { agent_revision_id: revisionId } : {}),
    input: text('go'),
  });
  return settleRun(t, run.id);
}

async function spansOf(runId: string): Promise<{ span_id: string; name: string; attributes: Record<string, unknown> }[]> {
  const response = await t.rest('GET', `/api/v1/runs/${runId}/trace`);
  expect(response.status).toBe(200);
  return response.body.spans.filter((s: { run_id: string }) => s.run_id === runId);
}

const analyse = (body: unknown, key: string, options: { token?: string } = {}) =>
  t.rest('POST', '/api/v1/finding-analyses', { body, headers: { 'idempotency-key': key }, ...options });

async function findingsOf(agentId: string) {
  const response = await t.rest('GET', `/api/v1/findings?agent_id=${agentId}&limit=100`);
  expect(response.status).toBe(200);
  return response.body.items as any[];
}

let agentId: string;
let loopRun: any;
let failedRun: any;
let deniedRun: any;

describe('an analysis finds what went wrong', () => {
  it('a loop, a failure and a denial, each with evidence pointing at its spans', async () => {
    const fetch = { method: 'GET', url: `${target.url}/status` };
    const agent = await created('/api/v1/agents', {
      name: 'troubled',
      config: {
        model: 'dev',
        plugins: [{ plugin_key: 'http_request', config: { permission: 'allow' } }],
        ...script(
          [call('l1', 'http_request', fetch)],
          [call('l2', 'http_request', fetch)],
          [call('l3', 'http_request', fetch)],
          [{ text: 'Done.' }],
        ),
      },
    });
    agentId = agent.id;
    loopRun = await runOf(agentId);
    expect(loopRun.status).toBe('completed');

    const failing = await revisionOf(agentId, {
      model: 'dev',
      retries: { tools: 0 },
      ...script([call('u1', 'no_such_tool')], [{ text: 'never' }]),
    });
    failedRun = await runOf(agentId, failing.id);
    expect(failedRun).toMatchObject({ status: 'failed', failure: { code: 'tool_error' } });

    const asking = await revisionOf(agentId, {
      model: 'dev',
      client_tools: [{ name: 'delete_file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
      ...script([call('d1', 'delete_file', { path: '/x' })], [{ text: 'Not deleted.' }]),
    });
    const waiting = await runOf(agentId, asking.id);
    expect(waiting.status).toBe('waiting');
    const resumed = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
      headers: { 'idempotency-key': 'deny-it' },
      body: { approvals: { d1: { action: 'deny' } } },
    });
    deniedRun = await settleRun(t, resumed.body.id);
    expect(deniedRun.status).toBe('completed');

    const response = await analyse({ agent_id: agentId }, 'first');
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const analysis = response.body;
    expect(analysis).toMatchObject({
      id: expect.stringMatching(/^fan_/),
      agent_id: agentId,
      // The workspace has a usable model: the builtin analyst's run is started too (analysis-agent.test.ts).
      session_id: expect.any(String),
      thread_id: expect.any(String),
      run_id: expect.any(String),
      run_status: 'accepted',
      selection: { agent_id: agentId, trace_id: null, max_traces: 10, presets: ['execution'], started_after: null, started_before: null },
      selection_truncated: false,
    });
    // Four traces: the loop, the failure, the waiting run and its resumed successor (a trace of its own).
    expect(analysis.selected_traces.map((s: any) => s.run_id)).toEqual([deniedRun.id, waiting.id, failedRun.id, loopRun.id]);
    expect(new Set(analysis.read_trace_ids)).toEqual(new Set([loopRun.trace_id, failedRun.trace_id, waiting.trace_id, deniedRun.trace_id]));
    expect(analysis.cited_trace_count).toBe(3);

    const findings = await findingsOf(agentId);
    const byKey = new Map(findings.map((f) => [f.source_key, f]));
    expect([...byKey.keys()].sort()).toEqual([
      'denied_action:delete_file:user',
      'retries_exhausted:tool_error',
      'tool_error:no_such_tool',
      'tool_loop:http_request',
    ]);
    expect(analysis.finding_count).toBe(4);
    for (const finding of findings) {
      expect(finding).toMatchObject({
        id: expect.stringMatching(/^fnd_/),
        analysis_id: analysis.id,
        agent_id: agentId,
        assessment: 'unreviewed',
        assessment_note: '',
        closed: false,
        version: 1,
      });
      expect(finding.title && finding.explanation && finding.suggestion && finding.limitations).toBeTruthy();
    }

    const loopSpans = (await spansOf(loopRun.id)).filter((s) => s.name === 'execute_tool http_request').map((s) => s.span_id);
    expect(loopSpans).toHaveLength(3);
    expect(byKey.get('tool_loop:http_request')).toMatchObject({
      category: 'tool_loop',
      source_run_id: loopRun.id,
      agent_revision_id: agent.default_revision_id,
      evidence: [{ run_id: loopRun.id, trace_id: loopRun.trace_id, span_ids: loopSpans }],
    });

    const failedSpans = await spansOf(failedRun.id);
    const failedTool = failedSpans.find((s) => s.name === 'execute_tool no_such_tool')!;
    const failedRoot = failedSpans.find((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent')!;
    expect(byKey.get('tool_error:no_such_tool')).toMatchObject({
      category: 'tool_error',
      evidence: [{ run_id: failedRun.id, trace_id: failedRun.trace_id, span_ids: expect.arrayContaining([failedTool.span_id]) }],
    });
    expect(byKey.get('retries_exhausted:tool_error')).toMatchObject({
      category: 'retries_exhausted',
      severity: 'high',
      agent_revision_id: failing.id,
      evidence: [{ run_id: failedRun.id, span_ids: expect.arrayContaining([failedRoot.span_id, failedTool.span_id]) }],
    });

    const deniedSpan = (await spansOf(deniedRun.id)).find((s) => s.name === 'execute_tool delete_file')!;
    expect(byKey.get('denied_action:delete_file:user')).toMatchObject({
      category: 'denied_action',
      source_run_id: deniedRun.id,
      evidence: [{ run_id: deniedRun.id, trace_id: deniedRun.trace_id, span_ids: [deniedSpan.span_id] }],
    });
  });

  it('the same problems found again update their findings instead of adding new ones', async () => {
    const before = await findingsOf(agentId);
    const again = await analyse({ agent_id: agentId }, 'second');
    expect(again.status).toBe(201);
    expect(again.body.finding_count).toBe(4);
    const after = await findingsOf(agentId);
    expect(after.map((f) => f.id).sort()).toEqual(before.map((f) => f.id).sort());
    for (const finding of after) expect(finding).toMatchObject({ analysis_id: again.body.id, version: 2 });
    // The evidence does not grow by analysing the same runs again.
    expect(after.find((f) => f.source_key === 'tool_loop:http_request').evidence).toHaveLength(1);
  });

  it('a selection: one trace, max_traces with truncation, start bounds, presets', async () => {
    const one = await analyse({ trace_id: failedRun.trace_id }, 'one-trace');
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({
      agent_id: agentId,
      selected_traces: [{ run_id: failedRun.id, trace_id: failedRun.trace_id }],
      finding_count: 2,
    });
    const two = await analyse({ agent_id: agentId, max_traces: 2 }, 'two');
    expect(two.body).toMatchObject({ selection_truncated: true, selection: { max_traces: 2 } });
    expect(two.body.selected_traces).toHaveLength(2);
    const later = await analyse({ agent_id: agentId, started_after: '2999-01-01T00:00:00Z' }, 'later');
    expect(later.body).toMatchObject({ selected_traces: [], finding_count: 0, selection: { started_after: '2999-01-01T00:00:00.000Z' } });
    const perf = await analyse({ agent_id: agentId, presets: ['performance'] }, 'perf');
    expect(perf.body).toMatchObject({ finding_count: 0, selection: { presets: ['performance'] } });
    // The empty object: the most recently active agent.
    const empty = await analyse({}, 'empty');
    expect(empty.status).toBe(201);
    expect(empty.body.agent_id).toBe(agentId);
  });

  it('a usage limit and an output spec failure, found end to end; a missing body is the empty object', async () => {
    const agent = await created('/api/v1/agents', {
      name: 'limited',
      config: {
        model: 'dev',
        retries: { tools: 5 },
        ...script([{ tool_call: { name: 'nope' } }], [{ tool_call: { name: 'nope' } }], [{ text: 'done' }]),
      },
    });
    const limited = await created('/api/v1/runs', { agent_id: agent.id, input: text('go'), options: { max_usage: { requests: 2 } } });
    expect(await settleRun(t, limited.id)).toMatchObject({ status: 'failed', failure: { code: 'usage_limit_exceeded' } });
    const strict = await revisionOf(agent.id, {
      model: 'dev',
      retries: { output: 0 },
      output_spec: { schema: { type: 'object', properties: { answer: { type: 'integer' } } } },
      ...script([{ text: '{"answer": "x"}' }]),
    });
    const invalid = await runOf(agent.id, strict.id);
    expect(invalid).toMatchObject({ status: 'failed', failure: { code: 'output_invalid' } });
    const response = await t.rest('POST', '/api/v1/finding-analyses', { headers: { 'idempotency-key': 'no-body' } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.agent_id).toBe(agent.id);
    const keys = (await findingsOf(agent.id)).map((f) => f.source_key).sort();
    expect(keys).toEqual(['output_spec_failure', 'tool_error:nope', 'usage_limit:requests']);
    const usage = (await findingsOf(agent.id)).find((f) => f.source_key === 'usage_limit:requests');
    const chats = (await spansOf(limited.id)).filter((s) => s.attributes['gen_ai.operation.name'] === 'chat').map((s) => s.span_id);
    expect(chats).toHaveLength(2);
    expect(usage.evidence).toEqual([{ run_id: limited.id, trace_id: expect.any(String), span_ids: expect.arrayContaining(chats) }]);
  });

  it('bad selections are refused with invalid_argument or not_found', async () => {
    const refused = async (body: unknown, status: number, field?: string) => {
      const response = await analyse(body, `bad-${JSON.stringify(body)}`.replace(/\s/g, ''));
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      if (field) expect(response.body.error.details?.field).toBe(field);
    };
    await refused({ max_traces: 0 }, 400, 'max_traces');
    await refused({ max_traces: 101 }, 400, 'max_traces');
    await refused({ presets: ['nope'] }, 400, 'presets');
    await refused({ presets: [] }, 400, 'presets');
    await refused({ trace_id: 'xyz' }, 400, 'trace_id');
    await refused({ started_after: '2026-01-02T00:00:00Z', started_before: '2026-01-01T00:00:00Z' }, 400, 'started_after');
    await refused({ agent_id: 'agt_01J0000000000000000000000X' }, 404);
    await refused({ trace_id: '0'.repeat(32) }, 404);
    await refused({ unknown_member: 1 }, 400);
    // The body is a JSON object or nothing: any other JSON value is refused, and starts no analysis.
    const before = (await t.rest('GET', '/api/v1/finding-analyses?limit=100')).body.items.length;
    for (const raw of ['[]', '[{"agent_id": "x"}]', '"all"', '7', 'null', 'true']) {
      const response = await t.rest('POST', '/api/v1/finding-analyses', { rawBody: raw, headers: { 'idempotency-key': `raw-${raw}` } });
      expect(response.status, raw).toBe(400);
      expect(response.body.error, raw).toMatchObject({ code: 'invalid_argument', details: { field: 'body' } });
    }
    expect((await t.rest('GET', '/api/v1/finding-analyses?limit=100')).body.items).toHaveLength(before);
  });
});

describe('Idempotency-Key', () => {
  it('is required, replays the first analysis, and refuses another request under the same key', async () => {
    const missing = await t.rest('POST', '/api/v1/finding-analyses', { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_argument' });
    const first = await analyse({ agent_id: agentId, max_traces: 3 }, 'x');
    expect(first.status).toBe(201);
    const replay = await analyse({ max_traces: 3, agent_id: agentId }, 'x');
    expect(replay.status).toBe(201);
    // The replay answers the same analysis as it is now: its analyst run may have ended in between.
    const { run_status: _firstStatus, ...firstRest } = first.body;
    const { run_status: _replayStatus, ...replayRest } = replay.body;
    expect(replayRest).toEqual(firstRest);
    const conflict = await analyse({ agent_id: agentId, max_traces: 4 }, 'x');
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('idempotency_key_reused');
    const listed = await t.rest('GET', '/api/v1/finding-analyses?limit=100');
    expect(listed.body.items.filter((a: any) => a.id === first.body.id)).toHaveLength(1);
  });
});

describe('findings: read, list, assess', () => {
  it('GET answers the finding with its ETag; filters narrow the list', async () => {
    const [finding] = await findingsOf(agentId);
    const got = await t.rest('GET', `/api/v1/findings/${finding.id}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(`"${finding.id}:${got.body.version}"`);
    expect(Object.keys(got.body).sort()).toEqual(
      [
        'id',
        'workspace_id',
        'analysis_id',
        'agent_id',
        'agent_revision_id',
        'source_run_id',
        'source_key',
        'title',
        'explanation',
        'suggestion',
        'limitations',
        'category',
        'severity',
        'assessment',
        'assessment_note',
        'closed',
        'evidence',
        'created_at',
        'updated_at',
        'created_by_id',
        'updated_by_id',
        'version',
      ].sort(),
    );
    const loops = await t.rest('GET', '/api/v1/findings?category=tool_loop');
    expect(loops.body.items.map((f: any) => f.source_key)).toEqual(['tool_loop:http_request']);
    const high = await t.rest('GET', `/api/v1/findings?agent_id=${agentId}&severity=high`);
    expect(high.body.items.every((f: any) => f.severity === 'high')).toBe(true);
    expect(high.body.items.length).toBeGreaterThan(0);
    const paged = await t.rest('GET', '/api/v1/findings?limit=1');
    expect(paged.body.items).toHaveLength(1);
    const next = await t.rest('GET', `/api/v1/findings?limit=100&cursor=${paged.body.next_cursor}`);
    expect(next.body.items.map((f: any) => f.id)).not.toContain(paged.body.items[0].id);
    expect((await t.rest('GET', '/api/v1/findings?severity=dire')).status).toBe(400);
    expect((await t.rest('GET', '/api/v1/findings/fnd_01J0000000000000000000000X')).status).toBe(404);
    const madeUp = await t.rest('PATCH', '/api/v1/findings/fnd_01J0000000000000000000000X', {
      body: { closed: true },
      headers: { 'if-match': '"fnd_01J0000000000000000000000X:1"' },
    });
    expect(madeUp.status).toBe(404);
  });

  it('PATCH with If-Match: assessment, note and closed; audited; a no-op keeps the version; stale If-Match is 412', async () => {
    const finding = (await findingsOf(agentId)).find((f) => f.source_key === 'denied_action:delete_file:user');
    const etag = `"${finding.id}:${finding.version}"`;
    const patch = (body: unknown, ifMatch: string | null, token?: string) =>
      t.rest('PATCH', `/api/v1/findings/${finding.id}`, {
        body,
        headers: ifMatch ? { 'if-match': ifMatch } : {},
        ...(token ? { token } : {}),
      });
    expect((await patch({ closed: true }, null)).status).toBe(428);
    expect((await patch({ assessment: 'meh' }, etag)).status).toBe(400);
    const changed = await patch({ assessment: 'confirmed', assessment_note: 'seen it', closed: true }, etag);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ assessment: 'confirmed', assessment_note: 'seen it', closed: true, version: finding.version + 1 });
    expect(changed.headers.get('etag')).toBe(`"${finding.id}:${finding.version + 1}"`);
    const same = await patch({ assessment: 'confirmed', closed: true }, changed.headers.get('etag'));
    expect(same.status).toBe(200);
    expect(same.body.version).toBe(finding.version + 1);
    expect((await patch({ closed: false }, etag)).status).toBe(412);
    const audit = await t.rest('GET', `/api/v1/audit-events?resource_id=${finding.id}`);
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({ action: 'update', resource_kind: 'finding' });
    expect(Object.keys(audit.body.items[0].changes).sort()).toEqual(['assessment', 'assessmentNote', 'closed']);
    const closed = await t.rest('GET', `/api/v1/findings?agent_id=${agentId}&closed=true`);
    expect(closed.body.items.map((f: any) => f.id)).toEqual([finding.id]);
  });

  it('a closed finding found again in the same runs stays closed', async () => {
    await analyse({ agent_id: agentId }, 'third');
    const finding = (await findingsOf(agentId)).find((f) => f.source_key === 'denied_action:delete_file:user');
    expect(finding).toMatchObject({ closed: true, assessment: 'confirmed' });
  });
});

describe('permissions and tenancy', () => {
  it('reading needs read; starting and assessing need write', async () => {
    const [finding] = await findingsOf(agentId);
    expect((await analyse({}, 'ro', { token: readKey })).status).toBe(403);
    const patched = await t.rest('PATCH', `/api/v1/findings/${finding.id}`, {
      token: readKey,
      body: { closed: true },
      headers: { 'if-match': `"${finding.id}:${finding.version}"` },
    });
    expect(patched.status).toBe(403);
    expect((await t.rest('GET', `/api/v1/findings/${finding.id}`, { token: readKey })).status).toBe(200);
    expect((await t.rest('GET', '/api/v1/finding-analyses', { token: readKey })).status).toBe(200);
  });

  it("another workspace's findings are 404 and its analyses are not listed", async () => {
    const [finding] = await findingsOf(agentId);
    expect((await t.rest('GET', `/api/v1/findings/${finding.id}`, { token: otherKey })).status).toBe(404);
    const patched = await t.rest('PATCH', `/api/v1/findings/${finding.id}`, {
      token: otherKey,
      body: { closed: true },
      headers: { 'if-match': `"${finding.id}:${finding.version}"` },
    });
    expect(patched.status).toBe(404);
    expect((await t.rest('GET', '/api/v1/findings', { token: otherKey })).body.items).toEqual([]);
    // B's analysis of its empty workspace: no agent, nothing read.
    const theirs = await analyse({}, 'b-1', { token: otherKey });
    expect(theirs.status).toBe(201);
    expect(theirs.body).toMatchObject({ agent_id: null, selected_traces: [], read_trace_ids: [], finding_count: 0, cited_trace_count: 0 });
    const ours = await t.rest('GET', '/api/v1/finding-analyses?limit=100');
    expect(ours.body.items.map((a: any) => a.id)).not.toContain(theirs.body.id);
    // A's agent and trace are not B's to analyse.
    expect((await analyse({ agent_id: agentId }, 'b-2', { token: otherKey })).status).toBe(404);
    expect((await analyse({ trace_id: loopRun.trace_id }, 'b-3', { token: otherKey })).status).toBe(404);
  });
});

describe('listing analyses', () => {
  it('limit 1 to 100, default 20', async () => {
    for (let i = 0; i < 21; i++) expect((await analyse({}, `page-${i}`, { token: otherKey })).status).toBe(201);
    const page = await t.rest('GET', '/api/v1/finding-analyses', { token: otherKey });
    expect(page.body.items).toHaveLength(20);
    expect(page.body.next_cursor).toBeTruthy();
    const rest = await t.rest('GET', `/api/v1/finding-analyses?cursor=${page.body.next_cursor}`, { token: otherKey });
    expect(rest.body.items.length).toBe(2);
    expect(rest.body.next_cursor).toBeNull();
    expect((await t.rest('GET', '/api/v1/finding-analyses?limit=1')).status).toBe(200);
    expect((await t.rest('GET', '/api/v1/finding-analyses?limit=100')).status).toBe(200);
    expect((await t.rest('GET', '/api/v1/finding-analyses?limit=0')).status).toBe(400);
    expect((await t.rest('GET', '/api/v1/finding-analyses?limit=101')).status).toBe(400);
  });
});

describe('GraphQL', () => {
  it('startFindingAnalysis, findings, node and updateFinding', async () => {
    const started = await t.graphql(
      `mutation($key: String, $input: StartFindingAnalysisInput) {
        startFindingAnalysis(idempotencyKey: $key, input: $input) { findingAnalysis { id agentId findingCount selection { maxTraces presets } } }
      }`,
      { key: 'gql-1', input: { agentId, presets: ['all'] } },
    );
    expect(started.errors).toBeUndefined();
    expect(started.data.startFindingAnalysis.findingAnalysis).toMatchObject({ agentId, selection: { maxTraces: 10, presets: ['all'] } });
    const listed = await t.graphql(
      `query($agentId: String) { findings(agentId: $agentId, first: 10) { nodes { id etag sourceKey evidence { runId traceId spanIds } } } }`,
      { agentId },
    );
    const first = listed.data.findings.nodes[0];
    const node = await t.graphql(`query($id: ID!) { node(id: $id) { ... on Finding { id severity } } }`, { id: first.id });
    expect(node.data.node.id).toBe(first.id);
    const analysisNode = await t.graphql(`query($id: ID!) { node(id: $id) { ... on FindingAnalysis { id agentId } } }`, {
      id: started.data.startFindingAnalysis.findingAnalysis.id,
    });
    expect(analysisNode.data.node).toMatchObject({ agentId });
    const updated = await t.graphql(
      `mutation($id: ID!, $ifMatch: String) { updateFinding(id: $id, ifMatch: $ifMatch, input: { assessment: "fixed" }) { finding { assessment version } } }`,
      { id: first.id, ifMatch: first.etag },
    );
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateFinding.finding.assessment).toBe('fixed');
    const foreign = await t.graphql(`query($id: ID!) { finding(id: $id) { id } }`, { id: first.id }, { token: otherKey });
    expect(foreign.errors?.[0]?.extensions?.code).toBe('not_found');
  });
});

describe('cost', () => {
  it('an analysis over many traces uses the statements of an analysis over one', async () => {
    // Four runs with the same problem: every analysis below finds the same two findings again.
    const agent = await created('/api/v1/agents', {
      name: 'repeating',
      config: { model: 'dev', retries: { tools: 0 }, ...script([call('u1', 'no_such_tool')]) },
    });
    for (let i = 0; i < 4; i++) expect((await runOf(agent.id)).status).toBe('failed');
    await quiet.rest('POST', '/api/v1/finding-analyses', { body: { agent_id: agent.id }, headers: { 'idempotency-key': 'cost-0' } });
    const counted = async (maxTraces: number, key: string) => {
      const before = quiet.app.database.operationCount();
      const response = await quiet.rest('POST', '/api/v1/finding-analyses', {
        body: { agent_id: agent.id, max_traces: maxTraces },
        headers: { 'idempotency-key': key },
      });
      expect(response.status).toBe(201);
      expect(response.body.selected_traces).toHaveLength(maxTraces);
      expect(response.body.finding_count).toBe(2);
      return quiet.app.database.operationCount() - before;
    };
    const one = await counted(1, 'cost-1');
    const four = await counted(4, 'cost-4');
    expect(four).toBe(one);
  });

  it('concurrent analyses of one agent record each problem once', async () => {
    const agent = await created('/api/v1/agents', {
      name: 'concurrent',
      config: { model: 'dev', retries: { tools: 0 }, ...script([call('u1', 'no_such_tool')]) },
    });
    expect((await runOf(agent.id)).status).toBe('failed');
    const responses = await Promise.all([1, 2, 3].map((n) => analyse({ agent_id: agent.id }, `concurrent-${n}`)));
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201]);
    expect((await findingsOf(agent.id)).map((f) => f.source_key).sort()).toEqual([
      'retries_exhausted:tool_error',
      'tool_error:no_such_tool',
    ]);
  });
});
