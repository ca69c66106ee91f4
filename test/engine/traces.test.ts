// Run traces end to end on the scripted model: every attempt records a run span with a span per
// model request and per tool call beneath it, retries and pauses as events; a resumed run starts a
// new trace linked to its parent's run span; a subagent's child run continues the delegating run's
// trace beneath the delegating call. Read through REST (GET /api/v1/runs/{id}/trace) and GraphQL
// (Run.trace, runTrace), in a constant number of statements, never across workspaces; exported by
// OTLP/HTTP to a loopback receiver that decodes the real requests; deleted after the retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';
import { loadConfig } from '../../src/config.js';

let t: TestApp;
/** A second instance on the same database without workers: nothing in the background adds statements to its count. */
let quiet: TestApp;
let receiver: OtlpReceiver;
let target: { url: string; close(): Promise<void> };
let otherKey: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((done) => (server.close(() => done()), server.closeAllConnections())),
  };
  // The endpoint as an operator sets it: the base URL; the traces path is added by the OTLP rules.
  const { otlpTracesEndpoint } = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'], otlpTracesEndpoint, otelServiceName: 'wsa-under-test' });
  quiet = await startTestApp({ runWorkers: 0 }, t);
  await insertModel(t, 'dev');
  const other = await createWorkspace(t.app.deps, { name: 'B' });
  otherKey = other.apiKey.token;
});
afterAll(async () => {
  await quiet?.stop();
  await t?.stop();
  await receiver?.close();
  await target?.close();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const script = (...turns: unknown[][]) => ({ model_settings: { script: turns } });
const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ tool_call: { id, name, arguments: args } });

async function agentWith(config: Record<string, unknown>) {
  const response = await t.rest('POST', '/api/v1/agents', { body: { name: 'traced', config: { model: 'dev', ...config } } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string };
}

async function startRun(agentId: string) {
  const response = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string };
}

interface Span {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  run_id: string;
  attempt: number;
  name: string;
  kind: string;
  attributes: Record<string, any>;
  events: { name: string; time: string; attributes: Record<string, any> }[];
  links: { trace_id: string; span_id: string; attributes: Record<string, any> }[];
  status: { code: string; message: string | null };
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  duration_ms: number;
}

async function traceOf(runId: string): Promise<{ trace_id: string; run_id: string; spans: Span[] }> {
  const response = await t.rest('GET', `/api/v1/runs/${runId}/trace`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

const runSpans = (spans: Span[], runId: string) =>
  spans.filter((s) => s.run_id === runId && s.attributes['gen_ai.operation.name'] === 'invoke_agent');
const childrenOf = (spans: Span[], parent: Span) => spans.filter((s) => s.parent_span_id === parent.span_id);

/** Spans come sorted by start; every span lies within the trace, parents start no later than their children. */
function expectWellFormed(trace: { trace_id: string; spans: Span[] }) {
  const starts = trace.spans.map((s) => BigInt(s.start_time_unix_nano));
  expect(starts).toEqual([...starts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  const byId = new Map(trace.spans.map((s) => [s.span_id, s]));
  for (const span of trace.spans) {
    expect(span.trace_id).toBe(trace.trace_id);
    expect(span.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(BigInt(span.end_time_unix_nano) >= BigInt(span.start_time_unix_nano)).toBe(true);
    const parent = span.parent_span_id ? byId.get(span.parent_span_id) : undefined;
    if (parent) expect(BigInt(parent.start_time_unix_nano) <= BigInt(span.start_time_unix_nano)).toBe(true);
  }
}

/** Runs of the first tests that later ones read again (export, statement count, retention). */
let waitingId: string;
let successorId: string;
let subagentParentId: string;

describe('the spans of a run', () => {
  it('a server tool call asking for approval: the run span pauses; the resumed run starts a linked trace and runs the call', async () => {
    const agent = await agentWith({
      plugins: [{ plugin_key: 'http_request', config: { permission: 'ask' } }],
      ...script([call('h1', 'http_request', { method: 'GET', url: `${target.url}/x` })], [{ text: 'Fetched.' }]),
    });
    const run = await startRun(agent.id);
    const waiting = await settleRun(t, run.id);
    expect(waiting).toMatchObject({ status: 'waiting', wait_reason: 'approval' });
    expect(waiting.trace_id).toMatch(/^[0-9a-f]{32}$/);
    waitingId = run.id;

    const first = await traceOf(run.id);
    expect(first.trace_id).toBe(waiting.trace_id);
    expectWellFormed(first);
    expect(first.spans.map((s) => s.name)).toEqual([`invoke_agent ${agent.id}`, 'chat echo', 'execute_tool http_request']);
    const [root, chat, tool] = first.spans as [Span, Span, Span];
    expect(root).toMatchObject({
      parent_span_id: null,
      run_id: run.id,
      attempt: 1,
      kind: 'internal',
      status: { code: 'ok' },
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'wsa.run.outcome': 'waiting',
        'wsa.run.wait_reason': 'approval',
        'wsa.run.lineage': 'root',
      },
      links: [],
    });
    expect(root.events).toEqual([
      expect.objectContaining({ name: 'wsa.pause', attributes: { 'wsa.pause.reason': 'approval', 'wsa.pause.tool_call_ids': ['h1'] } }),
    ]);
    expect(chat).toMatchObject({
      parent_span_id: root.span_id,
      kind: 'client',
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'development',
        'gen_ai.request.model': 'echo',
        'wsa.model.key': 'dev',
        'gen_ai.response.finish_reasons': ['tool-calls'],
      },
    });
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(tool).toMatchObject({
      parent_span_id: root.span_id,
      attributes: {
        'gen_ai.tool.name': 'http_request',
        'gen_ai.tool.call.id': 'h1',
        'wsa.tool.permission': 'ask',
        'wsa.tool.source': 'plugin',
        'wsa.tool.execution': 'server',
        'wsa.tool.outcome': 'waiting',
      },
      events: [expect.objectContaining({ name: 'wsa.pause', attributes: { 'wsa.pause.reason': 'approval' } })],
    });

    const resumed = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': 'trace-approve' },
      body: { approvals: { h1: { action: 'approve' } } },
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    successorId = resumed.body.id;
    const done = await settleRun(t, successorId);
    expect(done).toMatchObject({ status: 'completed', output: 'Fetched.' });
    // A new trace, linked to the parent run's run span.
    expect(done.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(done.trace_id).not.toBe(waiting.trace_id);
    const second = await traceOf(successorId);
    expectWellFormed(second);
    const [successorRoot] = runSpans(second.spans, successorId);
    expect(successorRoot!.links).toEqual([
      { trace_id: first.trace_id, span_id: root.span_id, attributes: { 'wsa.run.lineage': 'resume' } },
    ]);
    expect(successorRoot!.attributes).toMatchObject({
      'wsa.run.lineage': 'resume',
      'wsa.run.parent_run_id': run.id,
      'wsa.run.outcome': 'completed',
    });
    // The approved call runs before the model request, as its own span under the run span.
    const children = childrenOf(second.spans, successorRoot!);
    expect(children.map((s) => s.name)).toEqual(['execute_tool http_request', 'chat echo']);
    expect(children[0]).toMatchObject({
      attributes: { 'gen_ai.tool.call.id': 'h1', 'wsa.tool.outcome': 'ok', 'wsa.tool.approved_by': 'user', 'wsa.tool.permission': 'ask' },
      status: { code: 'unset' },
    });
    expect(children[1]!.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
  });

  it('a denied approval: the successor records the call as denied by the user', async () => {
    const agent = await agentWith({
      client_tools: [{ name: 'delete_file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
      ...script([call('d1', 'delete_file', { path: '/x' })], [{ text: 'Not deleted.' }]),
    });
    const run = await startRun(agent.id);
    expect(await settleRun(t, run.id)).toMatchObject({ status: 'waiting', wait_reason: 'approval' });
    const resumed = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': 'trace-deny' },
      body: { approvals: { d1: { action: 'deny' } } },
    });
    expect(await settleRun(t, resumed.body.id)).toMatchObject({ status: 'completed' });
    const denied = (await traceOf(resumed.body.id)).spans.find((s) => s.name === 'execute_tool delete_file');
    expect(denied).toMatchObject({
      attributes: { 'gen_ai.tool.call.id': 'd1', 'wsa.tool.outcome': 'denied', 'wsa.tool.denied_by': 'user' },
    });
  });

  it('a failed model request: each attempt is a run span of the same trace, its model span in error, retried as a new attempt', async () => {
    const agent = await agentWith({
      model_settings: { script: [[{ error: { message: 'overloaded', transient: true } }]], after_script: 'echo' },
    });
    const run = await startRun(agent.id);
    const failed = await settleRun(t, run.id, ['failed', 'completed']);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, failure: { code: 'model_error' } });
    const trace = await traceOf(run.id);
    expectWellFormed(trace);
    const attempts = runSpans(trace.spans, run.id);
    expect(attempts.map((s) => s.attempt)).toEqual([1, 2, 3]);
    for (const attempt of attempts) {
      expect(attempt.trace_id).toBe(failed.trace_id);
      expect(attempt.status.code).toBe('error');
      const [model] = childrenOf(trace.spans, attempt);
      expect(model).toMatchObject({ name: 'chat echo', attempt: attempt.attempt, status: { code: 'error', message: 'overloaded' } });
      expect(model!.attributes['error.type']).toBeTruthy();
    }
    // The first two attempts were retried; the last one failed the run.
    for (const retried of attempts.slice(0, 2)) {
      expect(retried.attributes['wsa.run.outcome']).toBe('retry');
      expect(retried.events).toEqual([
        expect.objectContaining({ name: 'wsa.retry', attributes: expect.objectContaining({ 'wsa.retry.reason': 'transient_error' }) }),
      ]);
    }
    expect(attempts[2]!.attributes).toMatchObject({ 'wsa.run.outcome': 'failed', 'wsa.run.failure_code': 'model_error' });
  });

  it('a tool error retried within the attempt: the call span is in error and the run span has a retry event', async () => {
    const agent = await agentWith({ retries: { tools: 1 }, ...script([call('u1', 'no_such_tool')], [{ text: 'Recovered.' }]) });
    const run = await startRun(agent.id);
    expect(await settleRun(t, run.id)).toMatchObject({ status: 'completed', output: 'Recovered.' });
    const trace = await traceOf(run.id);
    const [root] = runSpans(trace.spans, run.id);
    // The model's two requests, and the refused call between them — once, though the SDK reports it twice.
    const names = childrenOf(trace.spans, root!).map((s) => s.name);
    expect(names).toEqual(['chat echo', 'execute_tool no_such_tool', 'chat echo']);
    const tool = trace.spans.find((s) => s.name === 'execute_tool no_such_tool')!;
    expect(tool).toMatchObject({ status: { code: 'error' }, attributes: { 'wsa.tool.outcome': 'error', 'error.type': 'tool_error' } });
    expect(tool.status.message).toContain('no_such_tool');
    expect(root!.events).toEqual([
      expect.objectContaining({
        name: 'wsa.retry',
        attributes: expect.objectContaining({ 'wsa.retry.reason': 'tool_error', 'wsa.retry.left': 0 }),
      }),
    ]);
  });

  it("the reviewer: its verdict is on the call's span, its model request a span beneath it", async () => {
    const agent = await agentWith({
      plugins: [{ plugin_key: 'http_request' }],
      reviewer: {
        model: 'dev',
        on_flagged: 'deny',
        risk_threshold: 'high',
        model_settings: script([{ text: '{"risk":"high","reason":"deletes"}' }]).model_settings,
      },
      ...script([call('r1', 'http_request', { method: 'DELETE', url: `${target.url}/r` })], [{ text: 'Refused.' }]),
    });
    const run = await startRun(agent.id);
    expect(await settleRun(t, run.id)).toMatchObject({ status: 'completed', output: 'Refused.' });
    const trace = await traceOf(run.id);
    const tool = trace.spans.find((s) => s.name === 'execute_tool http_request')!;
    expect(tool.attributes).toMatchObject({
      'wsa.tool.permission': 'allow',
      'wsa.tool.outcome': 'denied',
      'wsa.tool.denied_by': 'reviewer',
      'wsa.review.action': 'deny',
      'wsa.review.risk': 'high',
      'wsa.review.flagged': true,
    });
    expect(childrenOf(trace.spans, tool)).toEqual([
      expect.objectContaining({
        name: 'chat echo',
        kind: 'client',
        attributes: expect.objectContaining({ 'wsa.model.purpose': 'review', 'wsa.model.key': 'dev' }),
      }),
    ]);
  });

  it("a subagent: the child run continues the parent's trace beneath the delegating call's span", async () => {
    const helper = await agentWith(script([{ text: 'The sum is 5.' }]));
    const parent = await agentWith({
      subagents: { adder: { agent_id: helper.id, description: 'adds numbers' } },
      ...script([call('d1', 'delegate_to_adder', { task: 'Add 2 and 3.' })], [{ text: 'It is 5.' }]),
    });
    const run = await startRun(parent.id);
    subagentParentId = run.id;
    const done = await settleRun(t, run.id);
    expect(done).toMatchObject({ status: 'completed', output: 'It is 5.' });
    const trace = await traceOf(run.id);
    expectWellFormed(trace);
    const delegate = trace.spans.find((s) => s.name === 'execute_tool delegate_to_adder')!;
    expect(delegate.attributes).toMatchObject({ 'wsa.tool.source': 'subagent', 'wsa.tool.outcome': 'ok' });
    const childRoot = trace.spans.find((s) => s.parent_span_id === delegate.span_id)!;
    expect(childRoot).toMatchObject({ name: `invoke_agent ${helper.id}`, attributes: { 'wsa.run.lineage': 'subagent' } });
    expect(childRoot.run_id).not.toBe(run.id);
    // The child's own model span, in the same trace; the child run names the same trace.
    expect(childrenOf(trace.spans, childRoot).map((s) => s.name)).toEqual(['chat echo']);
    const child = (await t.rest('GET', `/api/v1/runs/${childRoot.run_id}`)).body;
    expect(child).toMatchObject({ lineage: 'subagent', parent_run_id: run.id, trace_id: done.trace_id });
    expect((await traceOf(child.id)).spans.map((s) => s.span_id)).toEqual(trace.spans.map((s) => s.span_id));
  });

  it('GraphQL: Run.traceId, Run.trace and runTrace show the same spans as REST', async () => {
    const rest = await traceOf(successorId);
    const response = await t.graphql(
      `query ($id: ID!) {
        run(id: $id) { traceId trace { traceId spans { spanId parentSpanId name kind status { code } links { traceId spanId } durationMs } } }
        runTrace(runId: $id) { traceId runId spans { spanId name attributes events { name attributes } startTimeUnixNano } }
      }`,
      { id: successorId },
    );
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    const { run, runTrace } = response.data as any;
    expect(run.traceId).toBe(rest.trace_id);
    expect(run.trace.traceId).toBe(rest.trace_id);
    expect(run.trace.spans.map((s: any) => s.spanId)).toEqual(rest.spans.map((s) => s.span_id));
    expect(run.trace.spans[0]).toMatchObject({
      parentSpanId: null,
      kind: 'internal',
      status: { code: 'ok' },
      links: [{ spanId: rest.spans[0]!.links[0]!.span_id }],
    });
    expect(runTrace.runId).toBe(successorId);
    expect(runTrace.spans.map((s: any) => [s.spanId, s.name, s.startTimeUnixNano])).toEqual(
      rest.spans.map((s) => [s.span_id, s.name, s.start_time_unix_nano]),
    );
  });

  it('another workspace reads no trace: 404 over REST, not_found over GraphQL', async () => {
    const response = await t.rest('GET', `/api/v1/runs/${waitingId}/trace`, { token: otherKey });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
    const graph = await t.graphql('query ($id: ID!) { runTrace(runId: $id) { traceId } }', { id: waitingId }, { token: otherKey });
    expect(graph.errors?.[0]?.extensions?.code).toBe('not_found');
    expect((await t.rest('GET', '/api/v1/runs/run_unknown/trace')).status).toBe(404);
  });

  it('reading a trace takes the `read` permission', async () => {
    const reader = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: ['read'] });
    const runner = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: ['run'] });
    expect((await t.rest('GET', `/api/v1/runs/${waitingId}/trace`, { token: reader.token })).status).toBe(200);
    const refused = await t.rest('GET', `/api/v1/runs/${waitingId}/trace`, { token: runner.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('permission_denied');
  });

  it('reads a trace in a constant number of statements, however many spans it has', async () => {
    const counted = async (runId: string) => {
      const before = quiet.app.database.operationCount();
      const response = await quiet.rest('GET', `/api/v1/runs/${runId}/trace`);
      expect(response.status).toBe(200);
      return { spans: response.body.spans.length as number, used: quiet.app.database.operationCount() - before };
    };
    await counted(waitingId); // the caller's credential is remembered from here on
    const small = await counted(waitingId);
    const large = await counted(successorId);
    const larger = await counted(subagentParentId);
    expect(larger.spans).toBeGreaterThan(small.spans);
    expect(large.used).toBe(small.used);
    expect(larger.used).toBe(small.used);
    expect(small.used).toBeLessThanOrEqual(3);
  });

  it('reads the traces of a list of runs over GraphQL in a constant number of statements', async () => {
    const counted = async (first: number) => {
      const before = quiet.app.database.operationCount();
      const response = await quiet.graphql(
        'query ($first: Int) { runs(first: $first) { nodes { id traceId trace { spans { spanId runId } } } } }',
        {
          first,
        },
      );
      expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
      return { runs: (response.data as any).runs.nodes as any[], used: quiet.app.database.operationCount() - before };
    };
    await counted(1);
    const one = await counted(1);
    const many = await counted(8);
    expect(many.runs).toHaveLength(8);
    expect(many.used).toBe(one.used);
    for (const run of many.runs) {
      expect(run.trace.spans.length).toBeGreaterThan(0);
      // A run's trace holds its own spans (and, for subagent runs, the other run's of the same trace).
      expect(run.trace.spans.some((s: any) => s.runId === run.id)).toBe(true);
    }
  });
});

describe('OTLP/HTTP export', () => {
  it('exports every stored span to the configured endpoint, with its parent, attributes, events and links', async () => {
    await t.app.deps.tracer.forceFlush();
    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(receiver.requests.every((r) => r.contentType.startsWith('application/json'))).toBe(true);
    const stored = await traceOf(successorId);
    const exported = new Map(receiver.spans.map((s) => [s.spanId, s]));
    for (const span of stored.spans) {
      const sent = exported.get(span.span_id);
      expect(sent, span.name).toBeDefined();
      expect(sent).toMatchObject({
        traceId: span.trace_id,
        parentSpanId: span.parent_span_id,
        name: span.name,
        startTimeUnixNano: span.start_time_unix_nano,
        endTimeUnixNano: span.end_time_unix_nano,
        resource: expect.objectContaining({ 'service.name': 'wsa-under-test' }),
      });
      // Exported spans carry the run, workspace and agent the stored ones keep as columns.
      expect(sent!.attributes).toMatchObject({ ...span.attributes, 'wsa.run.id': span.run_id, 'wsa.run.attempt': span.attempt });
    }
    const root = exported.get(stored.spans[0]!.span_id)!;
    expect(root.kind).toBe(1);
    expect(root.status.code).toBe(1);
    expect(root.links).toEqual([
      {
        traceId: stored.spans[0]!.links[0]!.trace_id,
        spanId: stored.spans[0]!.links[0]!.span_id,
        attributes: { 'wsa.run.lineage': 'resume' },
      },
    ]);
    const model = [...exported.values()].find((s) => s.traceId === stored.trace_id && s.name === 'chat echo')!;
    expect(model.kind).toBe(3);
    expect(model.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    const failedModel = receiver.spans.find((s) => s.status.code === 2 && s.status.message === 'overloaded');
    expect(failedModel?.name).toBe('chat echo');
    const paused = receiver.spans.find((s) =>
      s.events.some((e) => e.name === 'wsa.pause' && e.attributes['wsa.pause.reason'] === 'approval'),
    );
    expect(paused).toBeDefined();
  });
});

describe('retention', () => {
  it('the workers delete spans older than TRACE_RETENTION_DAYS; younger ones stay', async () => {
    const { trace_id: traceId, spans } = await traceOf(waitingId);
    const old = spans[0]!;
    await t.app.deps.db
      .$executeRaw`UPDATE trace_spans SET start_time = now() - interval '31 days' WHERE trace_id = ${traceId} AND span_id = ${old.span_id}`;
    expect(t.app.deps.config.traceRetentionDays).toBe(30);
    const deleted = await t.app.housekeeping!.sweepTraces(Date.now() + 10 * 3_600_000);
    expect(deleted).toBe(1);
    const after = await traceOf(waitingId);
    expect(after.spans.map((s) => s.span_id)).toEqual(spans.slice(1).map((s) => s.span_id));
  });
});
