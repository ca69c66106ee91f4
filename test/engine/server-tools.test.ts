// Server tools through the tool layer, end to end over the public API, with the `http_request`
// plugin against a loopback HTTP server: permissions (allow, ask → approve / deny, deny), results
// as tool_result items, retries under retries.tools, large results in content_refs (read by the
// model and by clients), colliding names, allowed_hosts and the endpoint policy, size and time
// limits, and a cancel that aborts a running request. Scripted model, and the real OpenAI-compatible
// and Anthropic adapters against loopback model servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import {
  addLoopbackModel,
  startAnthropicServer,
  startOpenAICompatibleServer,
  streamGate,
  type ModelServer,
} from '../helpers/model-servers.js';
import { waitFor } from '../helpers/wait.js';
import { recordStatements } from '../helpers/query-plans.js';
import { createWorkspace } from '../../src/features/access/admin.js';

interface Target {
  url: string;
  requests: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[];
  /** Resolves with the request held by `/hang` once it arrived; `closed` when the client gave up. */
  hanging: Promise<{ closed: Promise<void> }>;
  close(): Promise<void>;
}

/** The loopback HTTP server the tool calls reach. */
async function startTarget(): Promise<Target> {
  let held!: (value: { closed: Promise<void> }) => void;
  const target: Target = { url: '', requests: [], hanging: new Promise((resolve) => (held = resolve)), close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    target.requests.push({ method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    if (req.url === '/hang') {
      held({ closed: new Promise((resolve) => res.on('close', () => resolve())) });
      return;
    }
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${'0123456789'.repeat(10_000)}THE END`);
      return;
    }
    if (req.url === '/moved') {
      res.writeHead(302, { location: 'http://redirected.example/elsewhere' }).end();
      return;
    }
    res
      .writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json', 'x-noise': 'yes' })
      .end(JSON.stringify({ path: req.url, method: req.method, echo: Buffer.concat(chunks).toString('utf8') }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  target.close = () =>
    new Promise((done) => {
      server.close(() => done());
      server.closeAllConnections();
    });
  return target;
}

let t: TestApp;
let target: Target;
let openai: ModelServer;
let anthropic: ModelServer;
beforeAll(async () => {
  target = await startTarget();
  openai = await startOpenAICompatibleServer();
  anthropic = await startAnthropicServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
  await addLoopbackModel(t, openai, 'loop');
  await addLoopbackModel(t, anthropic, 'claude', { type: 'anthropic', providerModel: 'claude-loop' });
});
afterAll(async () => {
  await t.stop();
  await target.close();
  await openai.close();
  await anthropic.close();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const script = (...turns: unknown[][]) => ({ model_settings: { script: turns } });
const httpCall = (id: string, args: Record<string, unknown>, name = 'http_request') => ({ tool_call: { id, name, arguments: args } });
const plugin = (config: Record<string, unknown> = {}, instance_name?: string) => ({
  plugin_key: 'http_request',
  ...(instance_name ? { instance_name } : {}),
  config,
});

async function agentWith(config: Record<string, unknown>) {
  const response = await t.rest('POST', '/api/v1/agents', { body: { name: 'actor', config: { model: 'dev', ...config } } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string };
}

async function startRun(agentId: string, body: Record<string, unknown> = {}) {
  const response = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go'), ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; thread_id: string };
}

const settle = (runId: string, statuses?: string[]) => settleRun(t, runId, statuses);
const itemsOf = async (runId: string) => (await t.rest('GET', `/api/v1/runs/${runId}/items`)).body.items as any[];
const historyOf = async (threadId: string) => JSON.stringify((await t.rest('GET', `/api/v1/threads/${threadId}`)).body.message_history);
const requestsTo = (path: string) => target.requests.filter((r) => r.path === path);

describe('server tools: permissions and approvals', () => {
  it('allow: the call runs at once; a tool_call item, then a tool_result item; the model reads the result', async () => {
    const agent = await agentWith({
      plugins: [plugin()],
      ...script(
        [httpCall('h1', { method: 'POST', url: `${target.url}/allow`, headers: { 'x-trace': 'abc' }, body: 'hello' })],
        [{ text: 'Posted.' }],
      ),
    });
    const run = await startRun(agent.id);
    expect(await settle(run.id)).toMatchObject({ status: 'completed', output: 'Posted.' });
    expect(requestsTo('/allow')).toEqual([
      expect.objectContaining({ method: 'POST', body: 'hello', headers: expect.objectContaining({ 'x-trace': 'abc' }) }),
    ]);
    const items = await itemsOf(run.id);
    const call = items.find((i) => i.kind === 'tool_call');
    const result = items.find((i) => i.kind === 'tool_result');
    expect(call).toMatchObject({ state: 'completed', content: { tool_call_id: 'h1', tool_name: 'http_request', server: true } });
    expect(result).toMatchObject({
      state: 'completed',
      content: { tool_call_id: 'h1', result: { status: 200, headers: { 'content-type': 'application/json' }, truncated: false } },
    });
    expect(result.ordinal).toBeGreaterThan(call.ordinal);
    expect(JSON.parse(result.content.result.body)).toEqual({ path: '/allow', method: 'POST', echo: 'hello' });
    expect(result.content.result.headers['x-noise']).toBeUndefined();
    expect(await historyOf(run.thread_id)).toContain('\\"echo\\":\\"hello\\"');
  });

  it('ask → approve: the run waits with a pending approval; the approved call runs in the successor before its next model turn', async () => {
    const agent = await agentWith({
      plugins: [plugin({ permission: 'ask' })],
      ...script([httpCall('a1', { method: 'GET', url: `${target.url}/approved` })], [{ text: 'Fetched after approval.' }]),
    });
    const run = await startRun(agent.id);
    const waiting = await settle(run.id);
    expect(waiting).toMatchObject({
      status: 'waiting',
      wait_reason: 'approval',
      pending: {
        approvals: [
          {
            tool_call_id: 'a1',
            tool_name: 'http_request',
            arguments: { method: 'GET' },
            presentation: { kind: 'approval', title: 'http_request' },
          },
        ],
        calls: [],
      },
    });
    expect(requestsTo('/approved')).toEqual([]);
    expect((await itemsOf(run.id)).map((i) => i.kind)).toContain('approval_request');
    const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': 'approve-a1' },
      body: { approvals: { a1: { action: 'approve' } } },
    });
    expect(successor.status).toBe(200);
    expect(await settle(successor.body.id)).toMatchObject({ status: 'completed', output: 'Fetched after approval.' });
    expect(requestsTo('/approved')).toHaveLength(1);
    const items = await itemsOf(successor.body.id);
    // Executed before the successor's model turn: its call and result come before the answer.
    expect(items.map((i) => i.kind)).toEqual(['tool_call', 'tool_result', 'text_message']);
    expect(items[1].content.result.status).toBe(200);
  });

  it('ask → deny: nothing is sent; the model is told the user denied the call', async () => {
    const agent = await agentWith({
      plugins: [plugin({ permission: 'allow', permissions: { http_request: 'ask' } })],
      ...script([httpCall('d1', { method: 'DELETE', url: `${target.url}/denied` })], [{ text: 'Not deleted.' }]),
    });
    const run = await startRun(agent.id);
    expect(await settle(run.id)).toMatchObject({ status: 'waiting', wait_reason: 'approval' });
    const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': 'deny-d1' },
      body: { approvals: { d1: { action: 'deny' } } },
    });
    expect(await settle(successor.body.id)).toMatchObject({ status: 'completed', output: 'Not deleted.' });
    expect(requestsTo('/denied')).toEqual([]);
    expect(await historyOf(run.thread_id)).toContain('The user denied this tool call.');
    expect((await itemsOf(successor.body.id))[0]).toMatchObject({
      kind: 'tool_result',
      content: { tool_call_id: 'd1', denied: true, denied_by: 'user' },
    });
  });

  it('deny: the call is refused and reported to the model, without spending retries.tools', async () => {
    const agent = await agentWith({
      plugins: [plugin({ permissions: { http_request: 'deny' } })],
      ...script([httpCall('x1', { method: 'GET', url: `${target.url}/refused` })], [{ text: 'I may not.' }]),
    });
    const run = await startRun(agent.id);
    expect(await settle(run.id)).toMatchObject({ status: 'completed', output: 'I may not.' });
    expect(requestsTo('/refused')).toEqual([]);
    expect((await itemsOf(run.id)).find((i) => i.kind === 'tool_result')).toMatchObject({
      content: { tool_call_id: 'x1', denied: true, denied_by: 'configuration', error: 'This tool call is not allowed for this agent.' },
    });
    expect(await historyOf(run.thread_id)).toContain('This tool call is not allowed for this agent.');
  });
});

describe('server tools: results, errors and retries', () => {
  it('a failed call is an error result the model sees; retries.tools bounds how often', async () => {
    // A port nobody listens on any more: the connection is refused.
    const gone = await startTarget();
    await gone.close();
    const turns = script(
      [httpCall('r1', { method: 'GET', url: `${gone.url}/unreachable` })],
      [httpCall('r2', { method: 'GET', url: `${target.url}/second-try` })],
      [{ text: 'Second try worked.' }],
    );
    const patient = await agentWith({ plugins: [plugin()], retries: { tools: 1 }, ...turns });
    const run = await startRun(patient.id);
    expect(await settle(run.id)).toMatchObject({ status: 'completed', output: 'Second try worked.' });
    const results = (await itemsOf(run.id)).filter((i) => i.kind === 'tool_result');
    expect(results[0].content).toMatchObject({ tool_call_id: 'r1', error: expect.stringContaining('ECONNREFUSED') });
    expect(results[1].content).toMatchObject({ tool_call_id: 'r2', result: { status: 200 } });
    expect((await itemsOf(run.id)).find((i) => i.kind === 'tool_call' && i.content.tool_call_id === 'r1').state).toBe('failed');

    const strict = await agentWith({ plugins: [plugin()], ...turns });
    const failed = await settle((await startRun(strict.id)).id);
    expect(failed).toMatchObject({ status: 'failed', failure: { code: 'tool_error', message: expect.stringContaining('http_request') } });
  });

  it('a non-2xx status is a result, not an error', async () => {
    const agent = await agentWith({
      plugins: [plugin()],
      ...script([httpCall('n1', { method: 'GET', url: `${target.url}/missing` })], [{ text: 'Not there.' }]),
    });
    const run = await startRun(agent.id);
    expect(await settle(run.id)).toMatchObject({ status: 'completed' });
    expect((await itemsOf(run.id)).find((i) => i.kind === 'tool_result').content.result.status).toBe(404);
  });

  it('a large result is stored in content_refs; the model gets a preview naming the ref and reads on; clients read it through GraphQL', async () => {
    // The OpenAI-compatible adapter: the test learns the ref from the items while the model's next turn is held.
    const held = streamGate();
    const readTurn = { tool: { id: 'read_1', name: 'read_tool_output', arguments: {} as Record<string, unknown> }, gate: held.gate };
    openai.turns.push({ tool: { id: 'big_1', name: 'http_request', arguments: { method: 'GET', url: `${target.url}/big` } } }, readTurn, {
      text: 'Read it all.',
    });
    const agent = await agentWith({ model: 'loop', plugins: [plugin()] });
    const before = openai.requests.length;
    const {
      result: { run, result },
      statements,
    } = await recordStatements(async () => {
      const run = await startRun(agent.id);
      await held.reached;
      const result = await waitFor(
        async () => (await itemsOf(run.id)).find((i) => i.kind === 'tool_result'),
        (item) => item?.state === 'completed',
        'the large result item',
      );
      return { run, result };
    });
    // The asset's row, its audit row and its webhook event: one statement, in no transaction (no
    // pool connection held across round trips while the run streams).
    const assetWrites = statements.filter((statement) => /INSERT INTO assets\b/.test(statement.text));
    expect(
      assetWrites.map((statement) => ({
        inTransaction: statement.inTransaction,
        audited: /INSERT INTO audit_events\b/.test(statement.text),
        announced: /webhook_enqueue\(/.test(statement.text),
      })),
    ).toEqual([{ inTransaction: false, audited: true, announced: true }]);
    const ref = result.content_refs.result;
    expect(ref).toMatchObject({ media_type: 'application/json', truncated: true, size_bytes: expect.any(Number) });
    expect(ref.size_bytes).toBeGreaterThan(100_000);
    expect(ref.full).toBeUndefined();
    expect(typeof result.content.result).toBe('string');
    // The whole result is an asset of the workspace (the item's row keeps only the reference).
    expect(ref.asset_id).toMatch(/^ast_/);
    const asset = await t.rest('GET', `/api/v1/assets/${ref.asset_id}`);
    expect(asset.body).toMatchObject({
      media_type: 'application/json',
      size_bytes: ref.size_bytes,
      labels: { source: 'run_output', run_id: run.id },
    });
    const audit = (await t.rest('GET', `/api/v1/audit-events?resource_id=${ref.asset_id}`)).body.items;
    expect(audit).toMatchObject([
      { action: 'create', resource_kind: 'asset', version: 1, changes: { size_bytes: { from: null, to: ref.size_bytes } } },
    ]);
    const file = await fetch(`${t.url}/api/v1/assets/${ref.asset_id}/content`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    expect(JSON.parse(await file.text()).body.endsWith('THE END')).toBe(true);
    const row = await t.app.deps.db.runItem.findUniqueOrThrow({ where: { id: result.id } });
    expect((row.contentRefs as { result: Record<string, unknown> }).result.full).toBeUndefined();
    // What the model got instead of the whole result: a note naming the ref, and the start of the text.
    const secondRequest = openai.requests[before + 1]!.body;
    const told = secondRequest.messages.find((m: { role: string }) => m.role === 'tool').content as string;
    expect(told).toContain(`read_tool_output {"ref": "${ref.id}", "offset": 8192}`);
    expect(told.length).toBeLessThan(9_000);
    expect(secondRequest.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
      'http_request',
      'read_tool_output',
    ]);
    readTurn.tool.arguments = { ref: ref.id, offset: 100_000, limit: 100 };
    held.open();
    expect(await settle(run.id)).toMatchObject({ status: 'completed', output: 'Read it all.' });
    const read = (await itemsOf(run.id)).filter((i) => i.kind === 'tool_result')[1];
    expect(read.content.result).toMatchObject({ ref: ref.id, offset: 100_000, next_offset: 100_100 });
    expect(read.content.result.text).toHaveLength(100);

    // Clients: the whole text, a page at a time.
    const query = `query ($ref: String!, $offset: Int, $limit: Int) { runItemContent(ref: $ref, offset: $offset, limit: $limit) { ref itemId member mediaType sizeBytes totalChars offset text nextOffset } }`;
    const page = await t.graphql(query, { ref: ref.id, offset: 0, limit: 262_144 });
    expect(page.errors).toBeUndefined();
    const whole = JSON.parse(page.data.runItemContent.text);
    expect(whole.body.endsWith('THE END')).toBe(true);
    expect(page.data.runItemContent).toMatchObject({ itemId: result.id, member: 'result', nextOffset: null, sizeBytes: ref.size_bytes });
    expect((await t.graphql(query, { ref: ref.id, limit: 0 })).errors?.[0]?.extensions?.code).toBe('invalid_argument');
    // Another workspace does not see it.
    const other = await createWorkspace(t.app.deps, { name: 'elsewhere' });
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${other.apiKey.token}` },
      body: JSON.stringify({ query, variables: { ref: ref.id } }),
    });
    expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('not_found');

    // REST: the same pages at /api/v1/content-refs/{id}.
    const rest = await t.rest('GET', `/api/v1/content-refs/${ref.id}?offset=0&limit=262144`);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({
      ref: ref.id,
      item_id: result.id,
      member: 'result',
      offset: 0,
      next_offset: null,
      size_bytes: ref.size_bytes,
    });
    expect(rest.body.text).toBe(page.data.runItemContent.text);
    const second = await t.rest('GET', `/api/v1/content-refs/${ref.id}?offset=10&limit=5`);
    expect(second.body).toMatchObject({ offset: 10, next_offset: 15, text: page.data.runItemContent.text.slice(10, 15) });
    expect((await t.rest('GET', `/api/v1/content-refs/${ref.id}?limit=0`)).body.error.code).toBe('invalid_argument');
    expect((await t.rest('GET', `/api/v1/content-refs/${ref.id}`, { token: other.apiKey.token })).status).toBe(404);
  });

  it('names are unique: two instances of a plugin are namespaced by their instance names', async () => {
    const agent = await agentWith({
      plugins: [plugin({}, 'alpha'), plugin({ permission: 'deny' }, 'beta')],
      ...script([httpCall('b1', { method: 'GET', url: `${target.url}/beta` }, 'beta__http_request')], [{ text: 'Done.' }]),
    });
    const run = await startRun(agent.id);
    expect(await settle(run.id)).toMatchObject({ status: 'completed' });
    // `beta` denies: the namespaced name kept its instance's permission.
    expect(requestsTo('/beta')).toEqual([]);
    expect((await itemsOf(run.id)).find((i) => i.kind === 'tool_result').content).toMatchObject({
      tool_name: 'beta__http_request',
      denied: true,
    });
  });
});

describe('the http_request plugin: bounds', () => {
  it('refuses hosts outside allowed_hosts and plain HTTP the endpoint policy does not allow, redirects included', async () => {
    const agent = await agentWith({
      plugins: [plugin()],
      retries: { tools: 3 },
      ...script(
        [httpCall('o1', { method: 'GET', url: `${target.url}/outside` })],
        [httpCall('o2', { method: 'GET', url: `${target.url.replace('127.0.0.1', 'localhost')}/policy` })],
        [httpCall('o3', { method: 'GET', url: `${target.url}/moved` })],
        [{ text: 'Bounded.' }],
      ),
    });
    const limited = await startRun(agent.id, { options: { configuration: { allowed_hosts: ['example.com'] } } });
    expect(await settle(limited.id)).toMatchObject({ status: 'completed' });
    const errors = (await itemsOf(limited.id)).filter((i) => i.kind === 'tool_result').map((i) => i.content.error);
    expect(errors[0]).toContain("the host 127.0.0.1 is not in this run's allowed_hosts (example.com)");
    expect(requestsTo('/outside')).toEqual([]);

    const open = await startRun(agent.id, { options: { configuration: { allowed_hosts: ['127.0.0.1', '*.localhost'] } } });
    expect(await settle(open.id)).toMatchObject({ status: 'completed' });
    const results = (await itemsOf(open.id)).filter((i) => i.kind === 'tool_result');
    expect(results[0].content.result.status).toBe(200);
    // localhost is an allowed host here, but the deployment allows plain HTTP only to 127.0.0.1.
    expect(results[1].content.error).toContain('plain HTTP');
    expect(requestsTo('/policy')).toEqual([]);
    // The redirect's target is checked as well.
    expect(results[2].content.error).toContain('the host redirected.example is not in');
  });

  it('reads at most max_response_bytes and gives up after timeout_seconds', async () => {
    const agent = await agentWith({
      plugins: [plugin({ max_response_bytes: 16, timeout_seconds: 1 })],
      retries: { tools: 1 },
      ...script(
        [httpCall('s1', { method: 'GET', url: `${target.url}/big` }), httpCall('s2', { method: 'GET', url: `${target.url}/hang` })],
        [{ text: 'Limited.' }],
      ),
    });
    const run = await startRun(agent.id);
    expect(await settle(run.id)).toMatchObject({ status: 'completed', output: 'Limited.' });
    const results = (await itemsOf(run.id)).filter((i) => i.kind === 'tool_result');
    expect(results[0].content.result).toMatchObject({ body: '0123456789012345', truncated: true });
    expect(results[1].content.error).toBe('the request took longer than 1 s');
  });

  it('a cancel aborts the running request and the run ends cancelled', async () => {
    const hangingTarget = await startTarget();
    try {
      const agent = await agentWith({
        plugins: [plugin()],
        ...script([httpCall('c1', { method: 'GET', url: `${hangingTarget.url}/hang` })]),
      });
      const run = await startRun(agent.id);
      const { closed } = await hangingTarget.hanging;
      expect((await t.rest('POST', `/api/v1/runs/${run.id}/cancel`)).status).toBe(200);
      await closed; // the service closed the connection: the request was aborted
      expect(await settle(run.id, ['cancelled', 'completed', 'failed'])).toMatchObject({ status: 'cancelled' });
      const call = (await itemsOf(run.id)).find((i) => i.kind === 'tool_call');
      expect(call.state).toBe('failed');
    } finally {
      await hangingTarget.close();
    }
  });

  it('validates plugin_key and config when an agent is configured or a run overrides it: 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [[{ plugin_key: 'nope' }], 'config.plugins[0].plugin_key'],
      [[{ plugin_key: 'http_request', config: { methods: ['TRACE'] } }], 'config.plugins[0].config.methods[0]'],
      [[{ plugin_key: 'http_request', config: { timeout_seconds: 121 } }], 'config.plugins[0].config.timeout_seconds'],
      [[{ plugin_key: 'http_request', config: { headers: {} } }], 'config.plugins[0].config.headers'],
      [[{ plugin_key: 'http_request', config: { permission: 'maybe' } }], 'config.plugins[0].config.permission'],
    ];
    for (const [plugins, field] of cases) {
      const response = await t.rest('POST', '/api/v1/agents', { body: { name: 'bad', config: { model: 'dev', plugins } } });
      expect(response.status, field).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_argument', details: { field } });
    }
    const agent = await agentWith({});
    const override = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.id, input: text('go'), options: { overrides: { plugins: [{ plugin_key: 'nope' }] } } },
    });
    expect(override.status).toBe(400);
    expect(override.body.error.details.field).toBe('options.overrides.plugins[0].plugin_key');
    const graphql = await t.graphql(`mutation ($input: CreateAgentInput!) { createAgent(input: $input) { id } }`, {
      input: { name: 'bad', config: { model: 'dev', plugins: [{ plugin_key: 'nope' }] } },
    });
    expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_argument' });
  });
});

describe('server tools with the real adapters', () => {
  it('Anthropic: ask → approve → the call runs in the successor, and the model reads its result', async () => {
    anthropic.turns.push(
      { tool: { id: 'toolu_1', name: 'http_request', arguments: { method: 'GET', url: `${target.url}/anthropic` } } },
      { text: 'Claude fetched it.' },
    );
    const agent = await agentWith({ model: 'claude', plugins: [plugin({ permission: 'ask' })] });
    const run = await startRun(agent.id);
    expect(await settle(run.id)).toMatchObject({ status: 'waiting', wait_reason: 'approval' });
    const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': 'approve-claude' },
      body: { approvals: { toolu_1: { action: 'approve' } } },
    });
    expect(await settle(successor.body.id)).toMatchObject({ status: 'completed', output: 'Claude fetched it.' });
    expect(requestsTo('/anthropic')).toHaveLength(1);
    const last = anthropic.requests[anthropic.requests.length - 1]!.body;
    const block = last.messages
      .flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
      .find((b: { type: string }) => b.type === 'tool_result');
    expect(block.tool_use_id).toBe('toolu_1');
    expect(JSON.parse(JSON.parse(block.content).body).path).toBe('/anthropic');
  });
});
