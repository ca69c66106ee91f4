// AG-UI at /ag-ui/{agent_id} against the real service, with @ag-ui/client's HttpAgent as a front-end
// connects: a run streamed as events in order with the exact text, a server tool's call and result
// inside a step, a front-end tool round trip (the call ends the run, the tool message of the next run
// resumes it), the front-end's threadId kept on the service's thread, tenancy between workspaces,
// refused keys and bad input before the stream starts. A run started through AG-UI is the same run
// everywhere: listed by REST, followed over graphql-ws, traced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { streamGate, type ModelServer } from '../helpers/model-servers.js';
import { createAgent, followOverWs, startProtocolApp, type ProtocolApp } from '../helpers/protocol-app.js';
import type { TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';
import { createApiKey } from '../../src/features/access/admin.js';

let app: ProtocolApp;
let t: TestApp;
let loopback: ModelServer;
let other: ProtocolApp['other'];

beforeAll(async () => {
  app = await startProtocolApp();
  ({ t, loopback, other } = app);
});

afterAll(() => app.stop());

const agent = (name: string, config: Record<string, unknown>, token = t.apiKey) => createAgent(t, name, config, token);

function frontEnd(agentId: string, options: { token?: string; threadId?: string } = {}) {
  return new HttpAgent({
    url: `${t.url}/ag-ui/${agentId}`,
    headers: { authorization: `Bearer ${options.token ?? t.apiKey}` },
    ...(options.threadId ? { threadId: options.threadId } : {}),
  });
}

/** Runs the agent with a new user message; answers the events it received and the run's result. */
async function say(client: HttpAgent, text: string | null, parameters: Parameters<HttpAgent['runAgent']>[0] = {}) {
  if (text !== null) client.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
  const events: BaseEvent[] = [];
  const result = await client.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
  return { events, result };
}

const types = (events: BaseEvent[]) => events.map((event) => event.type);
const textOf = (events: BaseEvent[]) =>
  events
    .filter((event) => event.type === EventType.TEXT_MESSAGE_CONTENT)
    .map((event) => (event as unknown as { delta: string }).delta)
    .join('');

describe('AG-UI at /ag-ui/{agent_id}', () => {
  it('streams a run as events in order with the exact text, and continues the thread', async () => {
    const chat = await agent('chat', {
      model: 'dev',
      model_settings: { script: [[{ text_chunks: ['Hello', ', ', 'front-end!'] }], [{ text: 'Second answer.' }]] },
    });
    const client = frontEnd(chat.id);
    const first = await say(client, 'hi');
    expect(types(first.events)[0]).toBe(EventType.RUN_STARTED);
    expect(types(first.events).at(-1)).toBe(EventType.RUN_FINISHED);
    const start = types(first.events).indexOf(EventType.TEXT_MESSAGE_START);
    const end = types(first.events).indexOf(EventType.TEXT_MESSAGE_END);
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    expect(
      types(first.events)
        .slice(start + 1, end)
        .every((type) => type === EventType.TEXT_MESSAGE_CONTENT),
    ).toBe(true);
    expect(textOf(first.events)).toBe('Hello, front-end!');
    const started = first.events[0] as unknown as { threadId: string; runId: string; metadata: { run_id: string; thread_id: string } };
    expect(started.threadId).toBe(client.threadId);
    expect(started.metadata.run_id).toMatch(/^run_/);
    const finished = first.events.at(-1) as unknown as { outcome: { type: string }; metadata: { status: string } };
    expect(finished.outcome).toEqual({ type: 'success' });
    expect(finished.metadata.status).toBe('completed');
    // The client's own view: the assistant's message joined the conversation.
    expect(client.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello, front-end!' });

    // The same threadId continues the same service thread: the model's second turn answers.
    const second = await say(client, 'again');
    expect(textOf(second.events)).toBe('Second answer.');
    const secondIds = (second.events[0] as unknown as { metadata: { thread_id: string } }).metadata;
    expect(secondIds.thread_id).toBe(started.metadata.thread_id);
    const thread = await t.rest('GET', `/api/v1/threads/${started.metadata.thread_id}`);
    expect(thread.body.labels).toEqual({ 'ag-ui-thread': client.threadId });
    expect(thread.body.message_history.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    // A service thread id is accepted as the threadId too.
    const direct = frontEnd(chat.id, { threadId: started.metadata.thread_id });
    const third = await say(direct, 'third');
    expect((third.events[0] as unknown as { metadata: { thread_id: string } }).metadata.thread_id).toBe(started.metadata.thread_id);
  });

  it('completes a front-end tool round trip: the call ends the run, the tool message resumes it', async () => {
    const weather = await agent('weather', {
      model: 'dev',
      model_settings: {
        script: [
          [{ text: 'Let me look.' }, { tool_call: { id: 'call_w1', name: 'get_weather', arguments: { city: 'Oslo' } } }],
          [{ text: 'It is 3 degrees in Oslo.' }],
        ],
      },
      client_tools: [{ name: 'confirm', description: 'Asks the user to confirm', parameters_json_schema: { type: 'object' } }],
    });
    const client = frontEnd(weather.id);
    const tools = [
      {
        name: 'get_weather',
        description: 'The weather in a city (the browser asks its own service)',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    const first = await say(client, 'weather in Oslo?', { tools });
    expect(types(first.events)).toEqual([
      EventType.RUN_STARTED,
      EventType.TEXT_MESSAGE_START,
      ...types(first.events).filter((type) => type === EventType.TEXT_MESSAGE_CONTENT),
      EventType.TEXT_MESSAGE_END,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.RUN_FINISHED,
    ]);
    expect(first.events.find((event) => event.type === EventType.TOOL_CALL_START)).toMatchObject({
      toolCallId: 'call_w1',
      toolCallName: 'get_weather',
    });
    expect(JSON.parse((first.events.find((event) => event.type === EventType.TOOL_CALL_ARGS) as any).delta)).toEqual({ city: 'Oslo' });
    const finished = first.events.at(-1) as any;
    expect(finished.outcome).toEqual({ type: 'success', pendingToolCallIds: ['call_w1'] });
    expect(finished.metadata).toMatchObject({ status: 'waiting', wait_reason: 'client_tool' });
    const waitingRunId = finished.metadata.run_id as string;
    // The front-end's tool was the run's client tool.
    const waiting = (await t.rest('GET', `/api/v1/runs/${waitingRunId}`)).body;
    expect(waiting).toMatchObject({ status: 'waiting', pending: { calls: [{ tool_call_id: 'call_w1', tool_name: 'get_weather' }] } });
    // Added to the agent's own client tools for this run.
    const view = (await t.rest('GET', `/api/v1/runs/${waitingRunId}/agent`)).body;
    expect(view.config.client_tools.map((tool: { name: string }) => tool.name)).toEqual(['confirm', 'get_weather']);
    expect(view.config.client_tools[1]).toMatchObject({ parameters_json_schema: tools[0]!.parameters });

    // The browser ran the tool: its result arrives as a tool message in the next run.
    client.addMessage({ id: crypto.randomUUID(), role: 'tool', toolCallId: 'call_w1', content: JSON.stringify({ celsius: 3 }) });
    const second = await say(client, null, { tools });
    expect(textOf(second.events)).toBe('It is 3 degrees in Oslo.');
    expect((second.events.at(-1) as any).outcome).toEqual({ type: 'success' });
    const resumed = (await t.rest('GET', `/api/v1/runs/${(second.events[0] as any).metadata.run_id}`)).body;
    expect(resumed).toMatchObject({
      status: 'completed',
      lineage: 'resume',
      parent_run_id: waitingRunId,
      resume: { calls: { call_w1: { status: 'returned', value: { celsius: 3 } } } },
    });
  });

  it('answers a front-end call the user passed over with an error, and sends the new message with it', async () => {
    const picker = await agent('picker', {
      model: 'dev',
      model_settings: {
        script: [[{ tool_call: { id: 'call_p1', name: 'pick_color', arguments: {} } }], [{ text: 'Fine, no color then.' }]],
      },
    });
    const client = frontEnd(picker.id);
    const tools = [{ name: 'pick_color', description: 'Shows a color picker', parameters: { type: 'object', properties: {} } }];
    const first = await say(client, 'paint it', { tools });
    expect((first.events.at(-1) as any).outcome).toEqual({ type: 'success', pendingToolCallIds: ['call_p1'] });
    const second = await say(client, 'forget the color', { tools });
    expect(textOf(second.events)).toBe('Fine, no color then.');
    const resumed = (await t.rest('GET', `/api/v1/runs/${(second.events[0] as any).metadata.run_id}`)).body;
    expect(resumed).toMatchObject({
      lineage: 'resume',
      resume: { calls: { call_p1: { status: 'error' } }, input: { content: [{ type: 'text', text: 'forget the color' }] } },
    });
  });

  it('shows a server tool as a step with its call and result', async () => {
    const worker = await agent('worker', {
      model: 'dev',
      platform_tools: { groups: ['models'], read_permission: 'allow' },
      model_settings: {
        script: [[{ tool_call: { id: 'call_s1', name: 'list_models', arguments: { limit: 1 } } }], [{ text: 'One model.' }]],
      },
    });
    const { events } = await say(frontEnd(worker.id), 'which models?');
    expect(types(events)).toEqual([
      EventType.RUN_STARTED,
      EventType.STEP_STARTED,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.STEP_FINISHED,
      EventType.TOOL_CALL_RESULT,
      EventType.TEXT_MESSAGE_START,
      ...types(events).filter((type) => type === EventType.TEXT_MESSAGE_CONTENT),
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    expect(events[1]).toMatchObject({ stepName: 'tool:list_models' });
    expect(events[5]).toMatchObject({ stepName: 'tool:list_models' });
    expect(events[2]).toMatchObject({ toolCallId: 'call_s1', toolCallName: 'list_models' });
    const result = events[6] as unknown as { toolCallId: string; content: string };
    expect(result.toolCallId).toBe('call_s1');
    expect(JSON.parse(result.content).models.map((m: { key: string }) => m.key)).toEqual(['dev']);
    expect(textOf(events)).toBe('One model.');
  });

  it('ends a run that asks a question with an interrupt, and a resume entry answers it', async () => {
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
    const client = frontEnd(asking.id);
    const first = await say(client, 'plan a trip');
    const finished = first.events.at(-1) as any;
    expect(finished.type).toBe(EventType.RUN_FINISHED);
    expect(finished.outcome).toEqual({
      type: 'interrupt',
      interrupts: [
        {
          id: 'q1',
          reason: 'user_question',
          message: 'Which city?',
          toolCallId: 'q1',
          responseSchema: { type: 'string', enum: ['Oslo', 'Rome'] },
        },
      ],
    });
    // HttpAgent itself insists on an answer to every open interrupt; a raw request without one is a new
    // turn, which the service refuses while the run waits.
    await expect(say(client, 'never mind')).rejects.toThrow(/pending interrupt/);
    const raw = await fetch(`${t.url}/ag-ui/${asking.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.apiKey}` },
      body: JSON.stringify({ threadId: client.threadId, runId: 'raw', messages: [{ id: 'm', role: 'user', content: 'never mind' }] }),
    });
    expect(raw.status).toBe(409);
    expect(await raw.json()).toMatchObject({ error: { code: 'conflict' } });
    const second = await say(client, null, { resume: [{ interruptId: 'q1', status: 'resolved', payload: 'Oslo' }] });
    expect(textOf(second.events)).toBe('Oslo it is.');
    const resumed = (await t.rest('GET', `/api/v1/runs/${(second.events[0] as any).metadata.run_id}`)).body;
    expect(resumed).toMatchObject({ lineage: 'resume', resume: { calls: { q1: { status: 'returned', value: 'Oslo' } } } });
  });

  it('ends a run that waits for an approval with an interrupt; a cancelled resume entry denies the call', async () => {
    const careful = await agent('careful', {
      model: 'dev',
      model_settings: {
        script: [[{ tool_call: { id: 'del_1', name: 'delete_file', arguments: { path: '/tmp/x' } } }], [{ text: 'Not deleted.' }]],
      },
      client_tools: [{ name: 'delete_file', description: 'Deletes a file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
    });
    const client = frontEnd(careful.id);
    const first = await say(client, 'clean up');
    expect(first.events.find((event) => event.type === EventType.TOOL_CALL_START)).toMatchObject({
      toolCallId: 'del_1',
      toolCallName: 'delete_file',
    });
    expect((first.events.at(-1) as any).outcome).toMatchObject({
      type: 'interrupt',
      interrupts: [{ id: 'del_1', reason: 'approval', toolCallId: 'del_1', metadata: { tool_name: 'delete_file' } }],
    });
    const second = await say(client, null, { resume: [{ interruptId: 'del_1', status: 'cancelled' }] });
    expect(textOf(second.events)).toBe('Not deleted.');
    const resumed = (await t.rest('GET', `/api/v1/runs/${(second.events[0] as any).metadata.run_id}`)).body;
    expect(resumed).toMatchObject({ lineage: 'resume', resume: { approvals: { del_1: { action: 'deny' } } } });
  });

  it('sends an approved call to the front-end: the successor waits for it and its tool message completes the run', async () => {
    const careful = await agent('careful-approved', {
      model: 'dev',
      model_settings: {
        script: [[{ tool_call: { id: 'del_2', name: 'delete_file', arguments: { path: '/tmp/y' } } }], [{ text: 'Deleted.' }]],
      },
      client_tools: [{ name: 'delete_file', description: 'Deletes a file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
    });
    const client = frontEnd(careful.id);
    await say(client, 'clean up');
    const approved = await say(client, null, { resume: [{ interruptId: 'del_2', status: 'resolved', payload: { action: 'approve' } }] });
    expect(approved.events.find((event) => event.type === EventType.TOOL_CALL_START)).toMatchObject({ toolCallId: 'del_2' });
    expect((approved.events.at(-1) as any).outcome).toEqual({ type: 'success', pendingToolCallIds: ['del_2'] });
    client.addMessage({ id: crypto.randomUUID(), role: 'tool', toolCallId: 'del_2', content: 'ok' });
    const done = await say(client, null);
    expect(textOf(done.events)).toBe('Deleted.');
  });

  it('needs write to start a run: a read-only key is refused with 403 before the stream starts', async () => {
    const plain = await agent('guarded', { model: 'dev' });
    const readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
    const refused = await fetch(`${t.url}/ag-ui/${plain.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${readOnly}` },
      body: JSON.stringify({ threadId: 'ro', runId: 'ro', messages: [{ id: '1', role: 'user', content: 'hi' }] }),
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'permission_denied' } });
  });

  it("counts requests against the key's rate limit and refuses past it with the REST error body", async () => {
    const plain = await agent('limited', { model: 'dev' });
    const limited = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read', rateLimit: '1/60s' })).token;
    const send = () =>
      fetch(`${t.url}/ag-ui/${plain.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${limited}` },
        body: '{}',
      });
    expect((await send()).status).toBe(400);
    const second = await send();
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it('reports a run that fails after the stream started as RUN_ERROR with the service code', async () => {
    const failing = await agent('failing', {
      model: 'dev',
      retries: { output: 0 },
      model_settings: { script: [[{ text: 'Starting…' }, { error: { message: 'the model broke' } }]] },
    });
    const events: BaseEvent[] = [];
    const client = frontEnd(failing.id);
    client.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'go' });
    await client.runAgent({}, { onEvent: ({ event }) => void events.push(event) }).catch(() => undefined);
    expect(types(events)[0]).toBe(EventType.RUN_STARTED);
    const error = events.at(-1) as any;
    expect(error.type).toBe(EventType.RUN_ERROR);
    const run = (await t.rest('GET', `/api/v1/runs/${(events[0] as any).metadata.run_id}`)).body;
    expect(run.status).toBe('failed');
    expect(error.code).toBe(run.failure.code);
    expect(error.message).toBe(run.failure.message);
  });

  it('cancels the run when the front-end aborts the stream', async () => {
    const streaming = await agent('aborted', { model: 'loop' });
    const held = streamGate(1);
    loopback.turns.push({ text: 'never finished', gate: held.gate });
    const client = frontEnd(streaming.id);
    const running = say(client, 'start').catch((error: unknown) => error);
    await held.reached;
    const runId = ((await t.rest('GET', `/api/v1/runs?agent_id=${streaming.id}`)).body.items as { id: string }[])[0]!.id;
    client.abortRun();
    await running;
    const cancelled = await waitFor(
      async () => (await t.rest('GET', `/api/v1/runs/${runId}`)).body,
      (run) => run.status === 'cancelled',
      'the run cancelled',
    );
    expect(cancelled.status).toBe('cancelled');
    held.open();
  });

  it('lists the run by REST, follows it over graphql-ws and finds its trace (the same run everywhere)', async () => {
    const streaming = await agent('streamer', { model: 'loop' });
    const held = streamGate(2);
    loopback.turns.push({ text: 'Hello world', gate: held.gate });
    const client = frontEnd(streaming.id);
    const running = say(client, 'stream please');
    await held.reached;
    const listed = (await t.rest('GET', `/api/v1/runs?agent_id=${streaming.id}`)).body.items as { id: string }[];
    expect(listed).toHaveLength(1);
    const runId = listed[0]!.id;
    const followed = followOverWs(t, 'subscription($id: ID!) { runStatus(runId: $id) { status } }', runId);
    await waitFor(
      async () => followed.values.length,
      (count) => count >= 1,
      'the first runStatus event',
    );
    held.open();
    const { events } = await running;
    await followed.done;
    const statuses = followed.values.map((value) => value.runStatus.status as string);
    expect(textOf(events)).toBe('Hello world');
    expect((events[0] as any).metadata.run_id).toBe(runId);
    expect(statuses.at(-1)).toBe('completed');
    const trace = await t.rest('GET', `/api/v1/runs/${runId}/trace`);
    expect(trace.status).toBe(200);
    expect(trace.body.spans.length).toBeGreaterThan(0);
  });

  it("answers another workspace's agent and an unknown one 404, and a foreign service thread 404", async () => {
    const theirs = await agent('theirs', { model: 'dev' }, other.apiKey);
    const mine = await agent('mine', { model: 'dev' });
    const body = (threadId: string = crypto.randomUUID()) =>
      JSON.stringify({
        threadId,
        runId: crypto.randomUUID(),
        messages: [{ id: '1', role: 'user', content: 'hi' }],
        tools: [],
        context: [],
      });
    const post = (path: string, payload = body(), token = t.apiKey) =>
      fetch(`${t.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
        body: payload,
      });
    const foreign = await post(`/ag-ui/${theirs.id}`);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await post('/ag-ui/agt_nothing')).status).toBe(404);
    // A run of B's agent leaves a thread of B: its id names nothing in this workspace.
    const theirRun = await say(frontEnd(theirs.id, { token: other.apiKey }), 'hello');
    const theirThread = (theirRun.events[0] as any).metadata.thread_id as string;
    const foreignThread = await post(`/ag-ui/${mine.id}`, body(theirThread));
    expect(foreignThread.status).toBe(404);
    // HttpAgent sees the refusal as an error of the run.
    await expect(say(frontEnd(theirs.id), 'hi')).rejects.toThrow(/404/);
  });

  it('refuses a missing or invalid key with 401, and bad input with 400 before the stream starts', async () => {
    const mine = await agent('plain', { model: 'dev' });
    const url = `${t.url}/ag-ui/${mine.id}`;
    const valid = JSON.stringify({ threadId: 't1', runId: 'r1', messages: [{ id: '1', role: 'user', content: 'hi' }] });
    const missing = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: valid });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await missing.json()).toMatchObject({ error: { code: 'unauthenticated' } });
    await expect(say(frontEnd(mine.id, { token: 'wsk_not_a_key' }), 'hi')).rejects.toThrow(/401/);

    const headers = { 'content-type': 'application/json', authorization: `Bearer ${t.apiKey}` };
    const notJson = await fetch(url, { method: 'POST', headers, body: '{nope' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: 'invalid_argument' } });
    const noThread = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ runId: 'r', messages: [] }) });
    expect(noThread.status).toBe(400);
    expect(await noThread.json()).toMatchObject({ error: { code: 'invalid_argument', details: { field: 'threadId' } } });
    const noUserMessage = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ threadId: 't2', runId: 'r2', messages: [] }),
    });
    expect(noUserMessage.status).toBe(400);
    expect(await noUserMessage.json()).toMatchObject({ error: { code: 'invalid_argument', details: { field: 'messages' } } });
  });
});
