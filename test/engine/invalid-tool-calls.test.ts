// Tool calls the model gets wrong — a tool that does not exist, arguments that are not JSON or do
// not match the tool's schema — through the real OpenAI-compatible adapter against a loopback model server: each
// call is recorded once (one `tool_result` item, one tool span in the trace), the model's next
// request carries the call and its error once, and `retries.tools` decides whether the run goes on
// (the model is told) or fails with `tool_error`. The AI SDK reports such a call twice in its stream
// (the refused call, then an error for it); the engine must record it once all the same. Arguments
// that break the schema never reach the tool (a loopback HTTP target counts what arrives), an
// approval, the reviewer or the client.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';
import {
  addLoopbackModel,
  startAnthropicServer,
  startOpenAICompatibleServer,
  type ModelServer,
  type Recorded,
} from '../helpers/model-servers.js';

let t: TestApp;
let model: ModelServer;
let anthropic: ModelServer;
/** What http_request calls reach: the paths requested, in order. */
const target = { url: '', paths: [] as string[], methods: [] as string[] };
let targetServer: Server;
beforeAll(async () => {
  targetServer = createServer((req, res) => {
    target.paths.push(req.url!);
    target.methods.push(req.method!);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => targetServer.listen(0, '127.0.0.1', resolve));
  target.url = `http://127.0.0.1:${(targetServer.address() as AddressInfo).port}`;
  model = await startOpenAICompatibleServer();
  anthropic = await startAnthropicServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await addLoopbackModel(t, model, 'loop');
  await addLoopbackModel(t, anthropic, 'claude', { type: 'anthropic', providerModel: 'claude-loop' });
});
// A test that failed early leaves its turns unanswered: the next one starts with its own.
beforeEach(() => {
  target.paths.length = 0;
  target.methods.length = 0;
  model.turns.length = 0;
  anthropic.turns.length = 0;
});
afterAll(async () => {
  await t?.stop();
  await model?.close();
  await anthropic?.close();
  await new Promise((resolve) => targetServer?.close(resolve));
});

interface OpenAIMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

async function agentWith(config: Record<string, unknown>) {
  const response = await t.rest('POST', '/api/v1/agents', { body: { name: 'caller', config: { model: 'loop', ...config } } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string };
}

/** Starts a run of the agent and settles it; the model requests it made are those `server` recorded meanwhile. */
async function runOf(agentId: string, server = model) {
  const before = server.requests.length;
  const response = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agentId, input: { content: [{ type: 'text', text: 'go' }] } },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  const settled = await settleRun(t, response.body.id, ['completed', 'failed', 'cancelled', 'waiting']);
  const requests = server.requests.slice(before).filter((r) => r.method === 'POST');
  return { run: settled, requests };
}

const itemsOf = async (runId: string) => {
  const response = await t.rest('GET', `/api/v1/runs/${runId}/items`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.items as { kind: string; state: string; content: Record<string, any> }[];
};

const itemsOfCall = async (runId: string, toolCallId: string) =>
  (await itemsOf(runId)).filter((i) => i.content?.tool_call_id === toolCallId).map((i) => ({ kind: i.kind, content: i.content }));

async function toolSpans(runId: string, toolName: string) {
  const response = await t.rest('GET', `/api/v1/runs/${runId}/trace`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body.spans as { name: string; status: { code: string; message: string | null } }[]).filter(
    (s) => s.name === `execute_tool ${toolName}`,
  );
}

/** The assistant tool calls and the tool results with this id in a recorded request's messages. */
function callAndResults(request: Recorded, toolCallId: string) {
  const messages = request.body.messages as OpenAIMessage[];
  return {
    calls: messages.flatMap((m) => (m.tool_calls ?? []).filter((c) => c.id === toolCallId)),
    results: messages.filter((m) => m.role === 'tool' && m.tool_call_id === toolCallId),
  };
}

/** The tool-call and tool-result parts with this id in the thread's committed history (AI SDK messages). */
async function historyParts(threadId: string, toolCallId: string) {
  const response = await t.rest('GET', `/api/v1/threads/${threadId}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const history = response.body.message_history as { content: unknown }[];
  const parts = history.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; toolCallId?: string }[]) : []));
  return {
    calls: parts.filter((p) => p.type === 'tool-call' && p.toolCallId === toolCallId),
    results: parts.filter((p) => p.type === 'tool-result' && p.toolCallId === toolCallId),
  };
}

const unknownToolCall = (id: string) => ({ tool: { id, name: 'no_such_tool', arguments: { q: 'x' } } });

describe('a call of a tool that does not exist', () => {
  it('with retries.tools 1: one tool_result with the error, one span; the model is told once and answers', async () => {
    model.turns.push(unknownToolCall('call_unknown_1'), { text: 'Recovered.' });
    const agent = await agentWith({ retries: { tools: 1 } });
    const { run, requests } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'completed', output: 'Recovered.' });

    expect(await itemsOfCall(run.id, 'call_unknown_1')).toEqual([
      {
        kind: 'tool_result',
        content: { tool_call_id: 'call_unknown_1', tool_name: 'no_such_tool', error: expect.stringContaining('no_such_tool') },
      },
    ]);
    const spans = await toolSpans(run.id, 'no_such_tool');
    expect(spans).toHaveLength(1);
    expect(spans[0]!.status).toMatchObject({ code: 'error', message: expect.stringContaining('no_such_tool') });

    expect(requests).toHaveLength(2);
    const told = callAndResults(requests[1]!, 'call_unknown_1');
    expect(told.calls).toEqual([expect.objectContaining({ function: { name: 'no_such_tool', arguments: '{"q":"x"}' } })]);
    expect(told.results).toHaveLength(1);
    expect(String(told.results[0]!.content)).toContain('no_such_tool');
    // The thread keeps the turn as the model saw it: the call and its error once each.
    const kept = await historyParts(run.thread_id, 'call_unknown_1');
    expect(kept.calls).toHaveLength(1);
    expect(kept.results).toHaveLength(1);
  });

  it('with retries.tools 0: the run fails with tool_error naming the call once; one tool_result, one span', async () => {
    model.turns.push(unknownToolCall('call_unknown_0'), { text: 'never asked' });
    const agent = await agentWith({});
    const { run, requests } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'failed', failure: { code: 'tool_error' } });
    const items = await itemsOfCall(run.id, 'call_unknown_0');
    expect(items).toEqual([
      {
        kind: 'tool_result',
        content: expect.objectContaining({ tool_name: 'no_such_tool', error: expect.stringContaining('no_such_tool') }),
      },
    ]);
    // One call, one error in the message (not the same error twice, joined by "; ").
    expect(run.failure.message).toBe(`no_such_tool: ${items[0]!.content.error}`);
    expect(await toolSpans(run.id, 'no_such_tool')).toHaveLength(1);
    expect(requests).toHaveLength(1);
  });
});

describe('a call with invalid arguments', () => {
  const plugin = { plugin_key: 'http_request', config: {} };
  // Arguments that are not JSON: the SDK refuses the call before anything runs.
  const malformed = (id: string) => ({ tool: { id, name: 'http_request', arguments: {}, rawArguments: '{"method": "GET", "url": ' } });

  it('not JSON, retries.tools 1: one tool_result with the error, nothing runs; the model is told once and answers', async () => {
    model.turns.push(malformed('call_bad_1'), { text: 'Fixed nothing.' });
    const agent = await agentWith({ plugins: [plugin], retries: { tools: 1 } });
    const { run, requests } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'completed', output: 'Fixed nothing.' });
    expect(await itemsOfCall(run.id, 'call_bad_1')).toEqual([
      {
        kind: 'tool_result',
        content: {
          tool_call_id: 'call_bad_1',
          tool_name: 'http_request',
          error: expect.stringContaining('Invalid input for tool http_request'),
        },
      },
    ]);
    expect(await toolSpans(run.id, 'http_request')).toEqual([
      expect.objectContaining({ status: expect.objectContaining({ code: 'error' }) }),
    ]);
    expect(requests).toHaveLength(2);
    const told = callAndResults(requests[1]!, 'call_bad_1');
    expect(told.calls).toHaveLength(1);
    expect(told.results).toHaveLength(1);
    expect(String(told.results[0]!.content)).toContain('Invalid input for tool http_request');
  });

  it('not JSON, retries.tools 0: the run fails with tool_error naming the call once', async () => {
    model.turns.push(malformed('call_bad_0'), { text: 'never asked' });
    const agent = await agentWith({ plugins: [plugin] });
    const { run, requests } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'failed', failure: { code: 'tool_error' } });
    const items = await itemsOfCall(run.id, 'call_bad_0');
    expect(items.map((i) => i.kind)).toEqual(['tool_result']);
    expect(run.failure.message).toBe(`http_request: ${items[0]!.content.error}`);
    expect(await toolSpans(run.id, 'http_request')).toHaveLength(1);
    expect(requests).toHaveLength(1);
  });
});

describe("a call whose arguments do not match the tool's schema", () => {
  const plugin = { plugin_key: 'http_request', config: {} };

  it('a server tool, retries.tools 1: nothing runs, one tool_result with the error; the model retries and the call runs', async () => {
    model.turns.push(
      { tool: { id: 'call_schema_1', name: 'http_request', arguments: { method: 'GET' } } },
      { tool: { id: 'call_schema_2', name: 'http_request', arguments: { method: 'GET', url: `${target.url}/fixed` } } },
      { text: 'Fetched.' },
    );
    const agent = await agentWith({ plugins: [plugin], retries: { tools: 1 } });
    const { run, requests } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'completed', output: 'Fetched.' });
    // The refused call reached nothing: only the corrected one was sent.
    expect(target.paths).toEqual(['/fixed']);
    const error = "invalid arguments: must have required property 'url'";
    expect(await itemsOfCall(run.id, 'call_schema_1')).toEqual([
      { kind: 'tool_result', content: { tool_call_id: 'call_schema_1', tool_name: 'http_request', error } },
    ]);
    expect((await itemsOfCall(run.id, 'call_schema_2')).map((i) => i.kind)).toEqual(['tool_call', 'tool_result']);
    const spans = await toolSpans(run.id, 'http_request');
    expect(spans.map((s) => s.status)).toEqual([
      expect.objectContaining({ code: 'error', message: error }),
      expect.objectContaining({ code: 'unset' }),
    ]);
    expect(requests).toHaveLength(3);
    const told = callAndResults(requests[1]!, 'call_schema_1');
    expect(told.calls).toHaveLength(1);
    expect(told.results).toHaveLength(1);
    expect(String(told.results[0]!.content)).toContain(error);
  });

  it('http_request takes a method in any case: the call runs in upper case, and its item shows it so', async () => {
    model.turns.push(
      { tool: { id: 'call_lower', name: 'http_request', arguments: { method: 'post', url: `${target.url}/lower`, body: 'x' } } },
      { text: 'Posted.' },
    );
    const agent = await agentWith({ plugins: [plugin] });
    const { run } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'completed', output: 'Posted.' });
    expect(target.methods).toEqual(['POST']);
    const [call, result] = await itemsOfCall(run.id, 'call_lower');
    expect(call).toMatchObject({ kind: 'tool_call', content: { arguments: { method: 'POST', url: `${target.url}/lower` } } });
    expect(result).toMatchObject({ kind: 'tool_result', content: { result: expect.objectContaining({ status: 200 }) } });
  });

  it('nulls for optional members are taken as left out: the call runs without them; a null where one is required is refused', async () => {
    model.turns.push(
      {
        tool: {
          id: 'call_nulls',
          name: 'http_request',
          arguments: { method: 'GET', url: `${target.url}/nulls`, headers: null, body: null },
        },
      },
      { tool: { id: 'call_null_url', name: 'http_request', arguments: { method: 'GET', url: null } } },
      { text: 'Done.' },
    );
    const agent = await agentWith({ plugins: [plugin], retries: { tools: 1 } });
    const { run } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'completed', output: 'Done.' });
    expect(target.paths).toEqual(['/nulls']);
    const ran = await itemsOfCall(run.id, 'call_nulls');
    expect(ran.map((i) => i.kind)).toEqual(['tool_call', 'tool_result']);
    expect(ran[0]!.content.arguments).toEqual({ method: 'GET', url: `${target.url}/nulls` });
    expect(await itemsOfCall(run.id, 'call_null_url')).toEqual([
      {
        kind: 'tool_result',
        content: { tool_call_id: 'call_null_url', tool_name: 'http_request', error: 'invalid arguments: /url must be string' },
      },
    ]);
  });

  it('a server tool, retries.tools 0: the run fails with tool_error naming where the arguments are wrong', async () => {
    model.turns.push(
      { tool: { id: 'call_schema_0', name: 'http_request', arguments: { method: 'GET', url: 5 } } },
      { text: 'never asked' },
    );
    const agent = await agentWith({ plugins: [plugin] });
    const { run, requests } = await runOf(agent.id);
    expect(run).toMatchObject({
      status: 'failed',
      failure: { code: 'tool_error', message: 'http_request: invalid arguments: /url must be string' },
    });
    expect((await itemsOfCall(run.id, 'call_schema_0')).map((i) => i.kind)).toEqual(['tool_result']);
    expect(await toolSpans(run.id, 'http_request')).toHaveLength(1);
    expect(requests).toHaveLength(1);
    expect(target.paths).toEqual([]);
  });

  it('a server tool that needs an approval: no approval is asked, the reviewer is not asked; the model is told', async () => {
    model.turns.push(
      { tool: { id: 'call_schema_ask', name: 'http_request', arguments: { method: 'BREW', url: `${target.url}/x` } } },
      { text: 'Understood.' },
    );
    // The reviewer uses the same loopback model: a review would be one more request to it.
    const agent = await agentWith({
      plugins: [{ plugin_key: 'http_request', config: { permission: 'ask' } }],
      reviewer: { model: 'loop' },
      retries: { tools: 1 },
    });
    const { run, requests } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'completed', output: 'Understood.' });
    expect(run.pending?.approvals ?? []).toEqual([]);
    expect(await itemsOfCall(run.id, 'call_schema_ask')).toEqual([
      {
        kind: 'tool_result',
        content: expect.objectContaining({
          error: expect.stringMatching(/^invalid arguments: \/method must be equal to one of the allowed values: "GET", /),
        }),
      },
    ]);
    expect(requests).toHaveLength(2);
    expect(target.paths).toEqual([]);
  });

  const pick = {
    name: 'pick',
    description: 'Pick a colour',
    parameters_json_schema: {
      type: 'object',
      properties: { color: { type: 'string', enum: ['red', 'blue'] } },
      required: ['color'],
      additionalProperties: false,
    },
  };

  it('a client tool: the run does not wait for the client; the model is told, and its corrected call is handed out', async () => {
    model.turns.push(
      { tool: { id: 'call_pick_bad', name: 'pick', arguments: { color: 'red', shade: 'dark' } } },
      { tool: { id: 'call_pick_good', name: 'pick', arguments: { color: 'red' } } },
    );
    const agent = await agentWith({ client_tools: [pick], retries: { tools: 1 } });
    const { run, requests } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'waiting', wait_reason: 'client_tool' });
    // Only the call that matches the schema reaches the client.
    expect(run.pending.calls).toEqual([expect.objectContaining({ tool_call_id: 'call_pick_good', arguments: { color: 'red' } })]);
    const error = "invalid arguments: must not have the property 'shade'";
    expect(await itemsOfCall(run.id, 'call_pick_bad')).toEqual([
      { kind: 'tool_result', content: { tool_call_id: 'call_pick_bad', tool_name: 'pick', error } },
    ]);
    expect(requests).toHaveLength(2);
    const told = callAndResults(requests[1]!, 'call_pick_bad');
    expect(told.calls).toHaveLength(1);
    expect(told.results).toHaveLength(1);
    expect(String(told.results[0]!.content)).toContain(error);
  });

  it('a client tool whose schema cannot be compiled: its calls go to the client unchecked, as the model sent them', async () => {
    // A valid JSON Schema (the agent is accepted) whose $ref points nowhere: ajv cannot compile it.
    const dangling = { name: 'pick', parameters_json_schema: { type: 'object', properties: { color: { $ref: '#/$defs/missing' } } } };
    model.turns.push({ tool: { id: 'call_pick_dangling', name: 'pick', arguments: { color: 7, extra: true } } });
    const agent = await agentWith({ client_tools: [dangling] });
    const { run, requests } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'waiting', wait_reason: 'client_tool' });
    expect(run.pending.calls).toEqual([
      expect.objectContaining({ tool_call_id: 'call_pick_dangling', arguments: { color: 7, extra: true } }),
    ]);
    expect((await itemsOfCall(run.id, 'call_pick_dangling')).map((i) => i.kind)).toEqual(['client_call']);
    expect(requests).toHaveLength(1);
  });
});

describe('a call of a tool the run has but does not offer', () => {
  it("a read-only memory's write tool: the tool answers once (one tool_call, one tool_result), never twice", async () => {
    const memory = (await t.rest('POST', '/api/v1/memories', { body: { name: 'Reference' } })).body;
    model.turns.push({ tool: { id: 'call_write_1', name: 'add_memory_reference', arguments: { text: 'sneaky' } } }, { text: 'ok' });
    const agent = await agentWith({ memory_mounts: [{ memory_id: memory.id, access: 'read', recall: false }], retries: { tools: 1 } });
    const { run, requests } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'completed', output: 'ok' });
    const items = await itemsOfCall(run.id, 'call_write_1');
    expect(items.map((i) => i.kind)).toEqual(['tool_call', 'tool_result']);
    expect(items[1]!.content.error).toContain('read-only');
    expect(await toolSpans(run.id, 'add_memory_reference')).toHaveLength(1);
    const told = callAndResults(requests[1]!, 'call_write_1');
    expect(told.calls).toHaveLength(1);
    expect(told.results).toHaveLength(1);
  });

  it("a call whose arguments break the write tool's schema is refused as invalid, before the tool answers", async () => {
    const memory = (await t.rest('POST', '/api/v1/memories', { body: { name: 'Notes' } })).body;
    model.turns.push({ tool: { id: 'call_write_bad', name: 'add_memory_notes', arguments: { text: 42 } } }, { text: 'ok' });
    const agent = await agentWith({ memory_mounts: [{ memory_id: memory.id, access: 'read', recall: false }], retries: { tools: 1 } });
    const { run } = await runOf(agent.id);
    expect(run).toMatchObject({ status: 'completed', output: 'ok' });
    expect(await itemsOfCall(run.id, 'call_write_bad')).toEqual([
      {
        kind: 'tool_result',
        content: { tool_call_id: 'call_write_bad', tool_name: 'add_memory_notes', error: 'invalid arguments: /text must be string' },
      },
    ]);
  });
});

describe('the Anthropic adapter', () => {
  it('a call of a tool that does not exist: one tool_result; the next request carries one tool_use and one tool_result', async () => {
    anthropic.turns.push({ tool: { id: 'toolu_unknown', name: 'no_such_tool', arguments: {} } }, { text: 'Claude recovered.' });
    const agent = await agentWith({ model: 'claude', retries: { tools: 1 } });
    const { run, requests } = await runOf(agent.id, anthropic);
    expect(run).toMatchObject({ status: 'completed', output: 'Claude recovered.' });
    expect((await itemsOfCall(run.id, 'toolu_unknown')).map((i) => i.kind)).toEqual(['tool_result']);
    expect(await toolSpans(run.id, 'no_such_tool')).toHaveLength(1);
    expect(requests).toHaveLength(2);
    const blocks = (requests[1]!.body.messages as { content: unknown }[]).flatMap((m) =>
      Array.isArray(m.content) ? (m.content as { type: string; id?: string; tool_use_id?: string }[]) : [],
    );
    expect(blocks.filter((b) => b.type === 'tool_use' && b.id === 'toolu_unknown')).toHaveLength(1);
    expect(blocks.filter((b) => b.type === 'tool_result' && b.tool_use_id === 'toolu_unknown')).toHaveLength(1);
  });
});
