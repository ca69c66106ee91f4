// MCP connections in runs, against the reference MCP server from npm on loopback (streamable HTTP
// behind a recording proxy that demands the bearer token, and stdio): listing (filtered by `tools`),
// calls (a `tool_call` item, the result on its `tool_result`), errors, large results in content_refs
// read on with `read_tool_output`, `defer_loading` under the run's final names, per-tool ask and deny
// through the tool layer, names two connections share, the thread's `mcp_headers`, `allowed_hosts`,
// disable and revoke mid-run, tenancy, the credential never in a response or a log line — driven by
// the scripted model and by the real OpenAI-compatible and Anthropic adapters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { everythingStdioConfig, startEverythingServer, type McpTestServer } from '../helpers/mcp-servers.js';
import {
  startAnthropicServer,
  startOpenAICompatibleServer,
  streamGate,
  type ModelServer,
  type Recorded,
} from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';
import { recordStatements } from '../helpers/query-plans.js';
import { createWorkspace } from '../../src/features/access/admin.js';

const TOKEN = 'mcp-run-secret-token-42';
let t: TestApp;
let mcp: McpTestServer;
let openai: ModelServer;
let anthropic: ModelServer;
let providerId: string;
let connectionId: string;
const logLines: string[] = [];
const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

async function newConnection(name: string, body: Record<string, unknown> = {}): Promise<{ id: string; etag: string }> {
  const created = await t.rest('POST', '/api/v1/connections', {
    body: { provider_id: providerId, name, config: { url: mcp.url }, credential: { bearer_token: TOKEN }, ...body },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.id, etag: created.headers.get('etag')! };
}

async function loopbackModel(type: 'openai_compatible' | 'anthropic', server: ModelServer, key: string) {
  const provider = await t.rest('POST', '/api/v1/model-providers', {
    body: { type, name: key, config: { base_url: `${server.url}/v1` }, credential: { api_key: server.apiKey } },
  });
  expect(
    (await t.rest('POST', '/api/v1/models', { body: { key, provider_id: provider.body.id, provider_model: 'loop-model' } })).status,
  ).toBe(201);
}

async function agent(config: Record<string, unknown>): Promise<string> {
  const created = await t.rest('POST', '/api/v1/agents', { body: { name: 'MCP agent', config: { model: 'dev', ...config } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

const script = (...turns: unknown[][]) => ({ model_settings: { script: turns } });
const call = (id: string, name: string, args: Record<string, unknown>) => ({ tool_call: { id, name, arguments: args } });

async function run(agentId: string, body: Record<string, unknown> = {}) {
  const started = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go'), ...body } });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return settleRun(t, started.body.id);
}

async function items(runId: string): Promise<any[]> {
  return (await t.rest('GET', `/api/v1/runs/${runId}/items?limit=500`)).body.items;
}
const toolCalls = async (runId: string) => (await items(runId)).filter((item) => item.kind === 'tool_call');
const toolResults = async (runId: string) => (await items(runId)).filter((item) => item.kind === 'tool_result');

/** The tool names a recorded model request offered (OpenAI chat completions or Anthropic messages). */
const offered = (request: Recorded): string[] =>
  (request.body.tools ?? []).map((tool: { name?: string; function?: { name: string } }) => tool.function?.name ?? tool.name);
const modelRequests = (server: ModelServer, path: string) => server.requests.filter((r) => r.path === path);

beforeAll(async () => {
  mcp = await startEverythingServer(TOKEN);
  openai = await startOpenAICompatibleServer();
  anthropic = await startAnthropicServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'], allowStdioConnectors: true }, undefined, { logLines });
  await insertModel(t, 'dev');
  await loopbackModel('openai_compatible', openai, 'gpt-loop');
  await loopbackModel('anthropic', anthropic, 'claude-loop');
  providerId = (await t.rest('POST', '/api/v1/connector-providers', { body: { type: 'mcp', name: 'MCP', config: { url: mcp.url } } })).body
    .id;
  connectionId = (await newConnection('Everything')).id;
});
afterAll(async () => {
  await t?.stop();
  await mcp?.close();
  await openai?.close();
  await anthropic?.close();
});

describe('MCP connections in runs', () => {
  it('scripted model: lists the tools, calls one with the credential and the thread mcp_headers, errors go back to the model', async () => {
    const thread = await t.rest('POST', '/api/v1/threads', { body: { mcp_headers: { [connectionId]: { 'X-End-User': 'user-7' } } } });
    const agentId = await agent({
      connection_tools: [{ connection_id: connectionId, tools: ['echo', 'get-sum'] }],
      retries: { tools: 2 },
      ...script(
        [call('c1', 'echo', { message: 'hello over MCP' })],
        [call('c2', 'get-sum', { a: 'not a number', b: 1 })],
        [call('c3', 'get-env', {})],
        [{ text: 'done' }],
      ),
    });
    mcp.requests.length = 0;
    const finished = await run(agentId, { thread_id: thread.body.id });
    expect(finished.status, JSON.stringify(finished.failure)).toBe('completed');
    const all = await items(finished.id);
    const errorOf = (id: string) =>
      all.find(
        (item) => (item.kind === 'tool_call' || item.kind === 'tool_result') && item.content.tool_call_id === id && item.content.error,
      )?.content.error;
    const [echo] = await toolCalls(finished.id);
    expect(echo).toMatchObject({
      state: 'completed',
      content: { tool_name: 'echo', arguments: { message: 'hello over MCP' }, server: true },
    });
    const [echoed] = await toolResults(finished.id);
    expect(echoed.content).toEqual({ tool_call_id: 'c1', tool_name: 'echo', result: 'Echo: hello over MCP' });
    // Arguments that do not match the server's schema: the model is told why.
    expect(errorOf('c2')).toMatch(/number|invalid/i);
    // A tool the entry's `tools` leaves out is no tool of the run.
    expect(errorOf('c3')).toMatch(/unavailable tool 'get-env'|no tool named get-env/);
    // Every request carried the credential and the thread's header.
    expect(mcp.requests.length).toBeGreaterThan(2);
    for (const headers of mcp.requests) {
      expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(headers['x-end-user']).toBe('user-7');
    }
    expect(JSON.stringify(finished)).not.toContain(TOKEN);
  });

  it("a resumed run's claim brings the thread's mcp_headers and the parent's environments: its attempt reads neither again", async () => {
    const thread = await t.rest('POST', '/api/v1/threads', { body: { mcp_headers: { [connectionId]: { 'X-End-User': 'user-9' } } } });
    const agentId = await agent({
      connection_tools: [{ connection_id: connectionId, tools: ['echo'] }],
      client_tools: [{ name: 'pick' }],
      ...script(
        [call('r1', 'echo', { message: 'before' })],
        [call('r2', 'pick', {})],
        [call('r3', 'echo', { message: 'after' })],
        [{ text: 'done' }],
      ),
    });
    mcp.requests.length = 0;
    const { statements } = await recordStatements(async () => {
      const waiting = await run(agentId, { thread_id: thread.body.id });
      expect(waiting.status, JSON.stringify(waiting.failure)).toBe('waiting');
      const resumed = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
        headers: { 'idempotency-key': 'mcp-claimed-headers' },
        body: { calls: { r2: { status: 'returned', value: 'x' } } },
      });
      expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
      const finished = await settleRun(t, resumed.body.run?.id ?? resumed.body.id);
      expect(finished.status, JSON.stringify(finished.failure)).toBe('completed');
      expect((await toolResults(finished.id)).map((item) => item.content.result)).toEqual(['Echo: after']);
    });
    // Both attempts sent the thread's header with every request to the connection.
    expect(mcp.requests.length).toBeGreaterThan(2);
    for (const headers of mcp.requests) expect(headers['x-end-user']).toBe('user-9');
    // Neither attempt read the thread's headers or its parent's environment mounts by a statement of its own.
    const columnsRead = (text: string) => {
      const [, columns = '', table = ''] = /^\s*SELECT (.*?) FROM "public"\."(\w+)"/.exec(text) ?? [];
      return `${table}: ${columns.replace(/"public"\."\w+"\./g, '').replace(/"/g, '')}`;
    };
    const ownReads = statements.filter(({ text }) =>
      ['threads: id, mcp_headers', 'runs: id, environment_mounts'].includes(columnsRead(text)),
    );
    expect(ownReads.map(({ text }) => text)).toEqual([]);
  });

  it('OpenAI-compatible adapter: the filtered tools are offered; a large result is stored in content_refs and read on with read_tool_output', async () => {
    const big = 'x'.repeat(200_000);
    // The model's read is held until the test has learnt the ref from the items.
    const held = streamGate();
    const readTurn = { tool: { id: 'o2', name: 'read_tool_output', arguments: {} as Record<string, unknown> }, gate: held.gate };
    openai.turns.push({ tool: { id: 'o1', name: 'echo', arguments: { message: big } } }, readTurn, { text: 'echoed' });
    openai.requests.length = 0;
    const agentId = await agent({ model: 'gpt-loop', connection_tools: [{ connection_id: connectionId, tools: ['echo', 'get-sum'] }] });
    const started = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await held.reached;
    const stored = await waitFor(
      async () => (await toolResults(started.body.id)).find((item) => item.content.tool_call_id === 'o1'),
      (item) => item?.state === 'completed',
      'the large result item',
    );
    const ref = stored.content_refs.result;
    expect(ref).toMatchObject({ id: `${stored.id}:result`, media_type: 'text/plain; charset=utf-8', truncated: true });
    expect(ref.size_bytes).toBe(Buffer.byteLength(`Echo: ${big}`));
    expect(typeof stored.content.result).toBe('string');
    expect(stored.content.result.length).toBeLessThan(2_000);
    const requests = modelRequests(openai, '/v1/chat/completions');
    // The connection's filtered tools, and the reader of large results beside them.
    expect(offered(requests[0]!).sort()).toEqual(['echo', 'get-sum', 'read_tool_output']);
    // The model got a note naming the ref and the start of the result, not the whole of it.
    const told = requests[1]!.body.messages.find((m: { role: string }) => m.role === 'tool').content as string;
    expect(told).toContain(`read_tool_output {"ref": "${ref.id}", "offset": 8192}`);
    expect(told).toContain('Echo: xxx');
    expect(told.length).toBeLessThan(9_000);

    readTurn.tool.arguments = { ref: ref.id, offset: 199_000, limit: 8_192 };
    held.open();
    const finished = await settleRun(t, started.body.id);
    expect(finished.status, JSON.stringify(finished.failure)).toBe('completed');
    expect(finished.output).toBe('echoed');
    const read = (await toolResults(finished.id)).find((item) => item.content.tool_call_id === 'o2');
    expect(read.content.result).toMatchObject({ ref: ref.id, offset: 199_000, total_chars: big.length + 6, next_offset: null });
    expect(read.content.result.text).toBe('x'.repeat(1_006));
    // Clients read the whole result through GraphQL.
    const page = await t.graphql('query ($ref: String!) { runItemContent(ref: $ref, limit: 262144) { text sizeBytes nextOffset } }', {
      ref: ref.id,
    });
    expect(page.errors).toBeUndefined();
    expect(page.data.runItemContent).toEqual({ text: `Echo: ${big}`, sizeBytes: ref.size_bytes, nextOffset: null });
  });

  it('Anthropic adapter: calls a tool of a stdio connection', async () => {
    const local = await newConnection('Local', { config: everythingStdioConfig(), credential: null });
    anthropic.turns.push({ tool: { id: 'toolu_1', name: 'get-sum', arguments: { a: 2, b: 3 } } }, { text: 'five' });
    anthropic.requests.length = 0;
    const agentId = await agent({ model: 'claude-loop', connection_tools: [{ connection_id: local.id, tools: ['get-sum'] }] });
    const finished = await run(agentId);
    expect(finished.status, JSON.stringify(finished.failure)).toBe('completed');
    const requests = modelRequests(anthropic, '/v1/messages');
    expect(offered(requests[0]!)).toEqual(['get-sum', 'read_tool_output']);
    expect(JSON.stringify(requests[1]!.body.messages)).toContain('The sum of 2 and 3 is 5.');
    expect((await toolResults(finished.id))[0].content).toMatchObject({ tool_name: 'get-sum', result: 'The sum of 2 and 3 is 5.' });
  });

  it('defer_loading: the model first gets search_tools, and only the tools it finds are loaded', async () => {
    openai.turns.push(
      { tool: { id: 's1', name: 'search_tools', arguments: { query: 'sum of two numbers', limit: 1 } } },
      { tool: { id: 's2', name: 'get-sum', arguments: { a: 20, b: 22 } } },
      { text: 'forty-two' },
    );
    openai.requests.length = 0;
    const agentId = await agent({ model: 'gpt-loop', connection_tools: [{ connection_id: connectionId, defer_loading: true }] });
    const finished = await run(agentId);
    expect(finished.status, JSON.stringify(finished.failure)).toBe('completed');
    const requests = modelRequests(openai, '/v1/chat/completions');
    // Only search_tools (and the reader of large results) at first; the tool it found from the next request on.
    expect(offered(requests[0]!)).toEqual(['search_tools', 'read_tool_output']);
    expect(offered(requests[1]!)).toEqual(['search_tools', 'read_tool_output', 'get-sum']);
    expect(offered(requests[2]!)).toEqual(['search_tools', 'read_tool_output', 'get-sum']);
    const [search, sum] = await toolResults(finished.id);
    expect(search.content).toMatchObject({ tool_call_id: 's1', tool_name: 'search_tools' });
    expect(search.content.result.loaded.map((tool: { name: string }) => tool.name)).toEqual(['get-sum']);
    expect(sum.content).toMatchObject({ tool_call_id: 's2', tool_name: 'get-sum', result: 'The sum of 20 and 22 is 42.' });
  });

  it('a deferred tool called directly with arguments that break its schema: refused before the server is asked, the model is told', async () => {
    const agentId = await agent({
      connection_tools: [{ connection_id: connectionId, defer_loading: true }],
      retries: { tools: 1 },
      ...script([call('e1', 'get-sum', { a: 'one', b: 2 })], [{ text: 'told' }]),
    });
    const finished = await run(agentId);
    expect(finished.status, JSON.stringify(finished.failure)).toBe('completed');
    // The tool's MCP inputSchema says `a` is a number: no `tool_call` item, nothing sent to the server.
    expect(await toolCalls(finished.id)).toEqual([]);
    const [refused] = await toolResults(finished.id);
    expect(refused.content).toEqual({ tool_call_id: 'e1', tool_name: 'get-sum', error: 'invalid arguments: /a must be number' });
  });

  it('per-tool permissions: deny is reported to the model; ask waits for an approval and runs in the successor', async () => {
    const agentId = await agent({
      connection_tools: [
        { connection_id: connectionId, tools: ['echo', 'get-sum'], permission: 'ask', permissions: { 'get-sum': 'deny' } },
      ],
      retries: { tools: 1 },
      ...script([call('d1', 'get-sum', { a: 1, b: 1 })], [call('a1', 'echo', { message: 'approved' })], [{ text: 'after approval' }]),
    });
    const waiting = await run(agentId);
    expect(waiting).toMatchObject({
      status: 'waiting',
      wait_reason: 'approval',
      pending: { approvals: [{ tool_call_id: 'a1', tool_name: 'echo' }] },
    });
    const before = await items(waiting.id);
    const denied = before.find((item) => item.kind === 'tool_result' && item.content.tool_call_id === 'd1');
    expect(denied.content).toMatchObject({
      tool_name: 'get-sum',
      denied: true,
      denied_by: 'configuration',
      error: expect.stringMatching(/not allowed/),
    });
    expect(before.find((item) => item.kind === 'approval_request').content).toMatchObject({ tool_call_id: 'a1', tool_name: 'echo' });
    // Nothing ran: neither call reached the server.
    expect(before.filter((item) => item.kind === 'tool_call')).toEqual([]);
    const successor = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
      headers: { 'idempotency-key': 'approve-echo' },
      body: { approvals: { a1: { action: 'approve' } } },
    });
    const done = await settleRun(t, successor.body.id);
    expect(done).toMatchObject({ status: 'completed', output: 'after approval' });
    // The approved call ran in the successor, before its first model turn.
    expect((await toolCalls(done.id))[0]).toMatchObject({ state: 'completed', content: { tool_call_id: 'a1', tool_name: 'echo' } });
    expect((await toolResults(done.id))[0].content).toEqual({ tool_call_id: 'a1', tool_name: 'echo', result: 'Echo: approved' });
  });

  it('a name two connections share becomes connection__tool, offered, searched and called under that name', async () => {
    const second = await newConnection('Second server');
    openai.turns.push({ text: 'nothing to do' });
    openai.requests.length = 0;
    const agentId = await agent({
      model: 'gpt-loop',
      connection_tools: [
        { connection_id: connectionId, tools: ['echo'] },
        { connection_id: second.id, tools: ['echo', 'get-sum'], permissions: { echo: 'deny' } },
      ],
    });
    expect((await run(agentId)).status).toBe('completed');
    expect(offered(modelRequests(openai, '/v1/chat/completions')[0]!).sort()).toEqual([
      'everything__echo',
      'get-sum',
      'read_tool_output',
      'second_server__echo',
    ]);

    // Deferred: search_tools finds and loads the namespaced names; each keeps its own entry's permission.
    openai.turns.push(
      { tool: { id: 'n1', name: 'search_tools', arguments: { query: 'echo' } } },
      { tool: { id: 'n2', name: 'everything__echo', arguments: { message: 'one' } } },
      { tool: { id: 'n3', name: 'second_server__echo', arguments: { message: 'two' } } },
      { text: 'both tried' },
    );
    openai.requests.length = 0;
    const deferredAgent = await agent({
      model: 'gpt-loop',
      connection_tools: [
        { connection_id: connectionId, tools: ['echo'], defer_loading: true },
        { connection_id: second.id, tools: ['echo'], defer_loading: true, permissions: { echo: 'deny' } },
      ],
    });
    const finished = await run(deferredAgent);
    expect(finished.status, JSON.stringify(finished.failure)).toBe('completed');
    const requests = modelRequests(openai, '/v1/chat/completions');
    expect(offered(requests[0]!)).toEqual(['search_tools', 'read_tool_output']);
    expect(offered(requests[1]!)).toEqual(['search_tools', 'read_tool_output', 'everything__echo', 'second_server__echo']);
    const results = await toolResults(finished.id);
    expect(results.map((item) => item.content.tool_name)).toEqual(['search_tools', 'everything__echo', 'second_server__echo']);
    expect(results[0].content.result.loaded.map((tool: { name: string }) => tool.name).sort()).toEqual([
      'everything__echo',
      'second_server__echo',
    ]);
    expect(results[1].content.result).toBe('Echo: one');
    expect(results[2].content).toMatchObject({ denied: true, denied_by: 'configuration' });
  });

  it('revoked mid-run: the call fails with a clear error the model sees; disabled mid-run: `disabled`', async () => {
    const target = await newConnection('Revocable');
    const gate = streamGate();
    const gate2 = streamGate();
    openai.turns.push(
      { tool: { id: 'r1', name: 'echo', arguments: { message: 'a' } }, gate: gate.gate },
      { text: 'noted' },
      { tool: { id: 'r2', name: 'echo', arguments: { message: 'b' } }, gate: gate2.gate },
      { text: 'noted again' },
    );
    const agentId = await agent({
      model: 'gpt-loop',
      retries: { tools: 1 },
      connection_tools: [{ connection_id: target.id, tools: ['echo'] }],
    });
    const started = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } });
    await gate.reached;
    expect((await t.rest('POST', `/api/v1/connections/${target.id}/revoke`)).status).toBe(200);
    gate.open();
    const revoked = await settleRun(t, started.body.id);
    expect(revoked.status).toBe('completed');
    expect((await toolCalls(revoked.id))[0].content.error).toMatch(/credential of the connection "Revocable" was revoked/);

    // A new credential, then disabled while the model is mid-stream.
    const restored = await t.rest('PATCH', `/api/v1/connections/${target.id}`, {
      headers: { 'if-match': '*' },
      body: { credential: { bearer_token: TOKEN } },
    });
    expect(restored.body.credential_configured).toBe(true);
    const again = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } });
    await gate2.reached;
    await t.rest('PATCH', `/api/v1/connections/${target.id}`, { headers: { 'if-match': '*' }, body: { enabled: false } });
    gate2.open();
    const disabled = await settleRun(t, again.body.id);
    expect(disabled.status).toBe('completed');
    expect((await toolCalls(disabled.id))[0].content.error).toMatch(/is disabled/);

    // Disabled before the run: new use refused with `disabled`.
    const refused = await run(agentId);
    expect(refused).toMatchObject({ status: 'failed', failure: { code: 'disabled' } });
  });

  it('allowed_hosts bounds the servers a run may reach', async () => {
    const agentId = await agent({ connection_tools: [{ connection_id: connectionId, tools: ['echo'] }], ...script([{ text: 'ok' }]) });
    const refused = await run(agentId, { options: { configuration: { allowed_hosts: ['*.example.com'] } } });
    expect(refused).toMatchObject({ status: 'failed', failure: { code: 'permission_denied' } });
    expect(refused.failure.message).toMatch(/not in the run's allowed_hosts/);
    const allowed = await run(agentId, { options: { configuration: { allowed_hosts: ['127.0.0.1'] } } });
    expect(allowed.status).toBe('completed');
  });

  it("another workspace's connection is not found for its runs", async () => {
    const other = await createWorkspace(t.app.deps, { name: 'Other' });
    const otherModel = await insertModel(t, 'dev', { workspaceId: other.workspace.id });
    expect(otherModel.key).toBe('dev');
    const created = await t.rest('POST', '/api/v1/agents', {
      token: other.apiKey.token,
      body: { name: 'Other', config: { model: 'dev', connection_tools: [{ connection_id: connectionId }] } },
    });
    expect(created.status).toBe(404);
    const plain = await t.rest('POST', '/api/v1/agents', { token: other.apiKey.token, body: { name: 'Other', config: { model: 'dev' } } });
    const started = await t.rest('POST', '/api/v1/runs', {
      token: other.apiKey.token,
      body: { agent_id: plain.body.id, input: text('go'), options: { overrides: { connection_tools: [{ connection_id: connectionId }] } } },
    });
    if (started.status === 201) {
      const settled = await settleRun({ ...t, rest: (m, p, o) => t.rest(m, p, { token: other.apiKey.token, ...o }) }, started.body.id);
      expect(settled).toMatchObject({ status: 'failed', failure: { code: 'not_found' } });
    } else expect(started.status).toBe(404);
  });

  it('no log line carries the credential', () => {
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(line).not.toContain(TOKEN);
  });
});
