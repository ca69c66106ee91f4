// The MCP server at /mcp against the real service, with the MCP SDK's own Client over streamable
// HTTP as a host would connect: agents listed as tools, a call and the same thread continued, a pause
// returned as the result and answered, progress notifications while a run streams, cancellation from
// the client cancelling the run, tenancy between workspaces, and refused keys. A run started through
// MCP is the same run everywhere: listed by REST, followed over graphql-ws, traced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let loopback: ModelServer;
let other: { workspaceId: string; apiKey: string };
let readOnly: string;
const clients: Client[] = [];

beforeAll(async () => {
  loopback = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
  await addLoopbackModel(t, loopback, 'loop');
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
  const created = await createWorkspace(t.app.deps, { name: 'B' });
  other = { workspaceId: created.workspace.id, apiKey: created.apiKey.token };
  await insertModel(t, 'dev', { workspaceId: other.workspaceId });
  const agentB = await t.rest('POST', '/api/v1/agents', { token: other.apiKey, body: { name: 'Only in B', config: { model: 'dev' } } });
  expect(agentB.status).toBe(201);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await t.stop();
  await loopback.close();
});

async function connect(token = t.apiKey): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function agent(name: string, config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const response = await t.rest('POST', '/api/v1/agents', { body: { name, config, ...extra } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; name: string };
}

const textOf = (result: CallToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('MCP server at /mcp', () => {
  it('lists the agents as tools with their schemas and calls one, then continues its thread', async () => {
    const chat = await agent(
      'Chat Bot (v2)',
      { model: 'dev', model_settings: { script: [[{ text: 'first turn' }], [{ text: 'second turn' }]] } },
      {
        description: 'Answers questions.',
      },
    );
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe('workspace-agent-service');
    const { tools } = await client.listTools();
    const tool = tools.find((candidate) => candidate._meta?.agent_id === chat.id)!;
    expect(tool).toMatchObject({ name: 'Chat_Bot_v2', title: 'Chat Bot (v2)', inputSchema: { type: 'object', required: ['message'] } });
    expect(tool.description).toContain('Answers questions.');
    expect(tool.outputSchema).toMatchObject({ required: ['run_id', 'thread_id', 'status'] });
    expect(tools.map((candidate) => candidate.title)).not.toContain('Only in B');

    const first = await client.callTool({ name: tool.name, arguments: { message: 'hello' } });
    expect(first.isError).toBeFalsy();
    expect(textOf(first as CallToolResult)).toBe('first turn');
    const structured = first.structuredContent as { run_id: string; thread_id: string; status: string };
    expect(structured).toMatchObject({
      run_id: expect.stringMatching(/^run_/),
      thread_id: expect.stringMatching(/^thr_/),
      status: 'completed',
    });

    // The second call on the thread is the thread's second model request: the model saw the history.
    const second = await client.callTool({ name: tool.name, arguments: { message: 'and again', thread_id: structured.thread_id } });
    expect(textOf(second as CallToolResult)).toBe('second turn');
    expect(second.structuredContent).toMatchObject({ thread_id: structured.thread_id, status: 'completed' });
    const thread = await t.rest('GET', `/api/v1/threads/${structured.thread_id}`);
    expect(thread.body.message_history.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('returns a pause as the result and answers it on the same thread', async () => {
    const asking = await agent('asker', {
      model: 'dev',
      user_questions: true,
      model_settings: {
        script: [
          [{ tool_call: { id: 'q1', name: 'ask_user', arguments: { question: 'Which city?', choices: ['Oslo', 'Rome'] } } }],
          [{ text: 'Oslo it is.' }],
        ],
      },
    });
    const client = await connect();
    const name = (await client.listTools()).tools.find((tool) => tool._meta?.agent_id === asking.id)!.name;
    const paused = await client.callTool({ name, arguments: { message: 'plan a trip' } });
    expect(paused.isError).toBeFalsy();
    const structured = paused.structuredContent as Record<string, any>;
    expect(structured).toMatchObject({
      status: 'waiting',
      wait_reason: 'user_question',
      pending: [{ tool_call_id: 'q1', kind: 'question', question: 'Which city?', choices: ['Oslo', 'Rome'] }],
    });
    expect(textOf(paused as CallToolResult)).toContain('Which city?');
    expect(textOf(paused as CallToolResult)).toContain(structured.thread_id);

    const answered = await client.callTool({ name, arguments: { message: 'Oslo', thread_id: structured.thread_id } });
    expect(textOf(answered as CallToolResult)).toBe('Oslo it is.');
    const run = (await t.rest('GET', `/api/v1/runs/${(answered.structuredContent as any).run_id}`)).body;
    expect(run).toMatchObject({
      lineage: 'resume',
      parent_run_id: structured.run_id,
      resume: { calls: { q1: { status: 'returned', value: 'Oslo' } } },
    });
  });

  it('returns an approval as the result; "deny" answers it, anything else is asked again', async () => {
    const careful = await agent('careful', {
      model: 'dev',
      model_settings: {
        script: [[{ tool_call: { id: 'del_1', name: 'delete_file', arguments: { path: '/tmp/x' } } }], [{ text: 'Not deleted.' }]],
      },
      client_tools: [{ name: 'delete_file', description: 'Deletes a file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
    });
    const client = await connect();
    const name = (await client.listTools()).tools.find((tool) => tool._meta?.agent_id === careful.id)!.name;
    const paused = await client.callTool({ name, arguments: { message: 'clean up' } });
    const structured = paused.structuredContent as Record<string, any>;
    expect(structured).toMatchObject({
      status: 'waiting',
      wait_reason: 'approval',
      pending: [{ tool_call_id: 'del_1', kind: 'approval', tool_name: 'delete_file', arguments: { path: '/tmp/x' } }],
    });
    expect(textOf(paused as CallToolResult)).toMatch(/"approve" or "deny"/);
    const unclear = await client.callTool({ name, arguments: { message: 'maybe later', thread_id: structured.thread_id } });
    expect(unclear).toMatchObject({ isError: true });
    expect(textOf(unclear as CallToolResult)).toMatch(/approve.*deny/);
    const denied = await client.callTool({ name, arguments: { message: 'Deny', thread_id: structured.thread_id } });
    expect(textOf(denied as CallToolResult)).toBe('Not deleted.');
    expect((await t.rest('GET', `/api/v1/runs/${(denied.structuredContent as any).run_id}`)).body.resume).toMatchObject({
      approvals: { del_1: { action: 'deny' } },
    });
  });

  it('offers only the agents carrying MCP_AGENT_LABEL when it is set', async () => {
    const shown = await agent('labelled', { model: 'dev' }, { labels: { mcp: 'yes' } });
    await agent('unlabelled', { model: 'dev' });
    // A second instance on the same database, with the setting.
    const labelled = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'], mcpAgentLabel: 'mcp:yes' }, t);
    try {
      const client = new Client({ name: 'mcp-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${labelled.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${t.apiKey}` } },
        }),
      );
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool._meta?.agent_id)).toEqual([shown.id]);
      await client.close();
    } finally {
      await labelled.stop();
    }
  });

  it('sends progress while a run streams; the run is listed by REST, followed over graphql-ws and traced', async () => {
    const streaming = await agent('streamer', { model: 'loop' });
    const held = streamGate(2);
    loopback.turns.push({ text: 'Hello world', gate: held.gate });
    const client = await connect();
    const name = (await client.listTools()).tools.find((tool) => tool._meta?.agent_id === streaming.id)!.name;
    const progress: { progress: number; message?: string }[] = [];
    const call = client.callTool({ name, arguments: { message: 'stream please' } }, undefined, {
      onprogress: (notification) => progress.push(notification),
      resetTimeoutOnProgress: true,
    });
    await held.reached;
    // Held mid-stream: the items so far have arrived as progress notifications.
    await waitFor(
      async () => progress.length,
      (count) => count >= 2,
      'progress notifications',
    );
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, index) => index + 1));
    expect(progress.map((p) => p.message)).toContain('item 1 user_message completed');

    const listed = (await t.rest('GET', `/api/v1/runs?agent_id=${streaming.id}`)).body.items as { id: string; status: string }[];
    expect(listed).toHaveLength(1);
    const runId = listed[0]!.id;
    const ws = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
    });
    const statuses: string[] = [];
    const followed = new Promise<void>((resolve, reject) => {
      ws.subscribe(
        { query: 'subscription($id: ID!) { runStatus(runId: $id) { status } }', variables: { id: runId } },
        { next: (value) => void statuses.push((value.data as any).runStatus.status), error: reject, complete: resolve },
      );
    });
    await waitFor(
      async () => statuses.length,
      (count) => count >= 1,
      'the first runStatus event',
    );
    held.open();
    const result = await call;
    await followed;
    await ws.dispose();
    expect(textOf(result as CallToolResult)).toBe('Hello world');
    expect(result.structuredContent).toMatchObject({ run_id: runId, status: 'completed' });
    expect(statuses.at(-1)).toBe('completed');
    expect(progress.map((p) => p.message)).toContain('item 2 text_message completed');
    const trace = await t.rest('GET', `/api/v1/runs/${runId}/trace`);
    expect(trace.status).toBe(200);
    expect(trace.body.spans.length).toBeGreaterThan(0);
  });

  it('cancels the run when the client cancels the call', async () => {
    const slow = await agent('slow', { model: 'loop' });
    const held = streamGate(1);
    loopback.turns.push({ text: 'never finished', gate: held.gate });
    const client = await connect();
    const name = (await client.listTools()).tools.find((tool) => tool._meta?.agent_id === slow.id)!.name;
    const controller = new AbortController();
    const call = client.callTool({ name, arguments: { message: 'take your time' } }, undefined, { signal: controller.signal });
    await held.reached;
    const runId = (await t.rest('GET', `/api/v1/runs?agent_id=${slow.id}`)).body.items[0].id as string;
    controller.abort('the user pressed stop');
    await expect(call).rejects.toThrow();
    const run = await settleRun(t, runId);
    expect(run).toMatchObject({ status: 'cancelled', failure: { code: 'cancelled' } });
    held.open();
  });

  it("shows another workspace only its own agents, and refuses its key for this workspace's threads", async () => {
    const mine = await agent('mine', { model: 'dev' });
    const ownClient = await connect();
    const own = await ownClient.callTool({
      name: (await ownClient.listTools()).tools.find((tool) => tool._meta?.agent_id === mine.id)!.name,
      arguments: { message: 'hi' },
    });
    const threadId = (own.structuredContent as { thread_id: string }).thread_id;

    const client = await connect(other.apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.title)).toEqual(['Only in B']);
    const result = await client.callTool({ name: tools[0]!.name, arguments: { message: 'hi', thread_id: threadId } });
    expect(result.isError).toBe(true);
    expect(textOf(result as CallToolResult)).toMatch(/^not_found: /);
    await expect(client.callTool({ name: 'mine', arguments: { message: 'hi' } })).rejects.toThrow(/no tool/);
  });

  it('lists with a read-only key but refuses it a run, as the API does', async () => {
    const client = await connect(readOnly);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const result = await client.callTool({ name: tools[0]!.name, arguments: { message: 'hi' } });
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result as CallToolResult)).toMatch(/^permission_denied: /);
  });

  it('answers tool argument mistakes as error results', async () => {
    const echo = await agent('echo args', { model: 'dev' });
    const client = await connect();
    const name = (await client.listTools()).tools.find((tool) => tool._meta?.agent_id === echo.id)!.name;
    const empty = await client.callTool({ name, arguments: { message: '' } });
    expect(empty).toMatchObject({ isError: true });
    expect(textOf(empty as CallToolResult)).toMatch(/^invalid_argument: /);
    const unknownThread = await client.callTool({ name, arguments: { message: 'x', thread_id: 'thr_nothing' } });
    expect(textOf(unknownThread as CallToolResult)).toMatch(/^not_found: /);
  });

  it('refuses a missing or invalid key with 401 and a Bearer challenge', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const missing = await fetch(`${t.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(initialize) });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    expect(await missing.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { code: 'unauthenticated' } } });
    const invalid = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer wsk_not_a_key' },
      body: JSON.stringify(initialize),
    });
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The SDK client sees the refusal as an HTTP error of its transport.
    await expect(connect('wsk_not_a_key')).rejects.toSatisfy(
      (error: unknown) => error instanceof StreamableHTTPError || /401/.test(String(error)),
    );
    const parseError = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${t.apiKey}` },
      body: '{nope',
    });
    expect(parseError.status).toBe(400);
    expect(await parseError.json()).toMatchObject({ error: { code: -32700 } });
  });

  it("counts requests against the key's rate limit and refuses past it with a JSON-RPC error", async () => {
    const limited = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read', rateLimit: '1/60s' })).token;
    const send = () =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${limited}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
    const first = await send();
    expect(first.status).toBe(200);
    await first.body?.cancel();
    const second = await send();
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { code: 'rate_limited' } } });
  });

  it("keeps a session to the key that opened it: another key's request for it is not found", async () => {
    const client = await connect();
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${other.apiKey}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
  });
});
