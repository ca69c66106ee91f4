// A2A at /a2a/{agent_id} against the real service, with @a2a-js/sdk's client as the peer agent: the card
// resolved from its well-known path, a message sent blocking and streamed (answers as artifact
// chunks, the task settled by its last status update), a task read, cancelled and resubscribed, an
// input-required round trip (the answer resumes the run, the task id stays), tenancy between
// workspaces, refused keys. A run started through A2A is the same run everywhere: listed by REST,
// followed over graphql-ws, traced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { createApiKey } from '../../src/features/access/admin.js';
import { streamGate, type ModelServer } from '../helpers/model-servers.js';
import { createAgent, followOverWs, startProtocolApp, type ProtocolApp } from '../helpers/protocol-app.js';
import type { TestApp } from '../helpers/app.js';

let app: ProtocolApp;
let t: TestApp;
let loopback: ModelServer;
let other: ProtocolApp['other'];

beforeAll(async () => {
  app = await startProtocolApp();
  ({ t, loopback, other } = app);
});

afterAll(() => app.stop());

const agent = (name: string, config: Record<string, unknown>, token = t.apiKey) => createAgent(t, name, config, token, `The ${name} agent`);

/** fetch with the workspace key, as a peer configured with it sends every request. */
const withKey =
  (token: string | null): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };

/** A peer agent's client of one of our agents, from the agent's card. */
function peer(agentId: string, token: string | null = t.apiKey): Promise<Client> {
  const fetchImpl = withKey(token);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  // The base ends with "/": the card path is resolved against it.
  return factory.createFromUrl(`${t.url}/a2a/${agentId}/`);
}

function userMessage(text: string, ids: { taskId?: string; contextId?: string } = {}): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const request = (message: Message, returnImmediately = false) => ({
  tenant: '',
  message,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
});

async function send(client: Client, message: Message, returnImmediately = false): Promise<Task> {
  const result = await client.sendMessage(request(message, returnImmediately));
  expect('status' in result, 'a task, not a message').toBe(true);
  return result as Task;
}

const partText = (parts: { content?: { $case: string; value: unknown } }[]) =>
  parts.map((part) => (part.content?.$case === 'text' ? (part.content.value as string) : '')).join('');
const answerOf = (task: Task) => task.artifacts.map((artifact) => partText(artifact.parts)).join('');

async function collect(stream: AsyncGenerator<StreamResponse>, onEvent?: (event: StreamResponse) => void) {
  const events: StreamResponse[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent?.(event);
  }
  return events;
}
const streamedText = (events: StreamResponse[]) =>
  events.map((event) => (event.payload?.$case === 'artifactUpdate' ? partText(event.payload.value.artifact!.parts) : '')).join('');
const lastState = (events: StreamResponse[]) => {
  const last = events.at(-1)!.payload!;
  return last.$case === 'statusUpdate' ? last.value.status!.state : null;
};

/** A raw JSON-RPC call, for what the client does not show (HTTP statuses, error envelopes). */
async function rpc(agentId: string, method: string, params: unknown, token: string | null = t.apiKey) {
  const response = await fetch(`${t.url}/a2a/${agentId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe('A2A at /a2a/{agent_id}', () => {
  it('resolves the card, sends a message blocking, reads the task, and continues its context', async () => {
    const chat = await agent('chat', {
      model: 'dev',
      model_settings: { script: [[{ text_chunks: ['Hello', ', ', 'peer!'] }], [{ text: 'Second answer.' }]] },
    });
    const client = await peer(chat.id);
    const card = await client.getAgentCard();
    expect(card.name).toBe('chat');
    expect(card.description).toBe('The chat agent');
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${t.url}/a2a/${chat.id}`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });

    const task = await send(client, userMessage('hi'));
    expect(task.id).toMatch(/^run_/);
    expect(task.contextId).toMatch(/^thr_/);
    expect(task.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBe('Hello, peer!');
    expect(partText(task.history[0]!.parts)).toBe('hi');
    expect(task.metadata).toMatchObject({ run_id: task.id, thread_id: task.contextId, status: 'completed' });

    const read = await client.getTask({ tenant: '', id: task.id });
    expect(read.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(read)).toBe('Hello, peer!');

    // The same context continues the thread: a new task, the model's second turn.
    const second = await send(client, userMessage('again', { contextId: task.contextId }));
    expect(second.id).not.toBe(task.id);
    expect(second.contextId).toBe(task.contextId);
    expect(answerOf(second)).toBe('Second answer.');
    const thread = await t.rest('GET', `/api/v1/threads/${task.contextId}`);
    expect(thread.body.message_history.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    // A message to a completed task is refused: the peer starts a new task.
    await expect(send(client, userMessage('more', { taskId: task.id }))).rejects.toThrow(/completed/);
  });

  it('streams a task; the run is listed by REST, followed over graphql-ws and traced (the same run everywhere)', async () => {
    const streaming = await agent('streamer', { model: 'loop' });
    const held = streamGate(2);
    loopback.turns.push({ text: 'Hello world', gate: held.gate });
    const client = await peer(streaming.id);
    let sawFirstText!: () => void;
    const firstText = new Promise<void>((resolve) => (sawFirstText = resolve));
    const streamed = collect(client.sendMessageStream(request(userMessage('stream please'))), (event) => {
      if (event.payload?.$case === 'artifactUpdate') sawFirstText();
    });
    await held.reached;
    // The text before the gate reaches the peer before the rest is written: the stream carries it in
    // more than one update whatever the machine's speed (on a busy one, the service could otherwise
    // read the whole answer in one network read and send it in one update).
    await firstText;
    const listed = (await t.rest('GET', `/api/v1/runs?agent_id=${streaming.id}`)).body.items as { id: string }[];
    expect(listed).toHaveLength(1);
    const runId = listed[0]!.id;
    const followed = followOverWs(t, 'subscription($id: ID!) { runItems(runId: $id) { kind state } }', runId);
    held.open();
    const events = await streamed;
    await followed.done;
    const kinds = followed.values.map((value) => value.runItems.kind as string);
    const first = events[0]!.payload!;
    expect(first.$case).toBe('task');
    expect((first.value as Task).id).toBe(runId);
    expect(streamedText(events)).toBe('Hello world');
    const updates = events.flatMap((event) => (event.payload?.$case === 'artifactUpdate' ? [event.payload.value] : []));
    expect(updates.length).toBeGreaterThan(1);
    expect(updates[0]!.append).toBe(false);
    expect(updates.slice(1).every((update) => update.append)).toBe(true);
    expect(updates.at(-1)!.lastChunk).toBe(true);
    expect(lastState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(kinds).toContain('text_message');
    const trace = await t.rest('GET', `/api/v1/runs/${runId}/trace`);
    expect(trace.status).toBe(200);
    expect(trace.body.spans.length).toBeGreaterThan(0);
  });

  it('cancels a working task; a resubscribed stream ends with the cancellation', async () => {
    const streaming = await agent('cancelled', { model: 'loop' });
    const held = streamGate(1);
    loopback.turns.push({ text: 'never finished', gate: held.gate });
    const client = await peer(streaming.id);
    const task = await send(client, userMessage('start'), true);
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status!.state);
    await held.reached;
    // The resubscribed stream has begun (its first event, the task) before the task is cancelled.
    const resubscribed = client.resubscribeTask({ tenant: '', id: task.id });
    const opening = await resubscribed.next();
    expect(opening.value!.payload!.$case).toBe('task');
    const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(cancelled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
    const events = await collect(resubscribed);
    expect(lastState(events)).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await t.rest('GET', `/api/v1/runs/${task.id}`)).body.status).toBe('cancelled');
    // A canceled task cannot be cancelled again, nor followed.
    await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(/cancelled/);
    const again = await rpc(streaming.id, 'SubscribeToTask', { id: task.id });
    expect(again.body.error.code).toBe(-32004);
    held.open();
  });

  it('is input-required while the run waits for an answer; the answer resumes the run under the same task', async () => {
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
    const client = await peer(asking.id);
    const waiting = await send(client, userMessage('plan a trip'));
    expect(waiting.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const prompt = waiting.status!.message!;
    expect(prompt.role).toBe(Role.ROLE_AGENT);
    expect(partText(prompt.parts)).toBe('Which city? (Oslo, Rome)');
    const pending = prompt.parts.find((part) => part.content?.$case === 'data')!.content!.value;
    expect(pending).toMatchObject({ pending: { wait_reason: 'user_question', calls: [{ tool_call_id: 'q1', kind: 'question' }] } });
    // A new task in the context would queue behind the waiting one: refused.
    await expect(send(client, userMessage('never mind', { contextId: waiting.contextId }))).rejects.toThrow(/input-required/);

    const done = await send(client, userMessage('Oslo', { taskId: waiting.id, contextId: waiting.contextId }));
    expect(done.id).toBe(waiting.id);
    expect(done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(done)).toBe('Oslo it is.');
    expect(done.history.map((message) => partText(message.parts))).toEqual(['plan a trip']);
    const successor = (await t.rest('GET', `/api/v1/runs/${done.metadata!.run_id}`)).body;
    expect(successor).toMatchObject({
      lineage: 'resume',
      parent_run_id: waiting.id,
      resume: { calls: { q1: { status: 'returned', value: 'Oslo' } } },
    });
    expect((await client.getTask({ tenant: '', id: waiting.id })).status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('asks for an approval as input-required and streams the answer to a "deny"', async () => {
    const careful = await agent('careful', {
      model: 'dev',
      model_settings: {
        script: [[{ tool_call: { id: 'del_1', name: 'delete_file', arguments: { path: '/tmp/x' } } }], [{ text: 'Not deleted.' }]],
      },
      client_tools: [{ name: 'delete_file', description: 'Deletes a file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
    });
    const client = await peer(careful.id);
    const first = await collect(client.sendMessageStream(request(userMessage('clean up'))));
    expect(lastState(first)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const taskId = (first[0]!.payload!.value as Task).id;
    const task = await client.getTask({ tenant: '', id: taskId });
    expect(task.metadata).toMatchObject({ wait_reason: 'approval' });
    const answered = await collect(client.sendMessageStream(request(userMessage('deny', { taskId }))));
    expect((answered[0]!.payload!.value as Task).id).toBe(taskId);
    // The stream's task is the whole task: its first run's message too.
    expect((answered[0]!.payload!.value as Task).history.map((entry) => partText(entry.parts))).toEqual(['clean up']);
    expect(streamedText(answered)).toBe('Not deleted.');
    expect(lastState(answered)).toBe(TaskState.TASK_STATE_COMPLETED);
    const successor = (await t.rest('GET', `/api/v1/runs/${(await client.getTask({ tenant: '', id: taskId })).metadata!.run_id}`)).body;
    expect(successor).toMatchObject({ resume: { approvals: { del_1: { action: 'deny' } } } });
  });

  it('sends an approved client tool call back as input-required; a data part answers it', async () => {
    const careful = await agent('careful-approved', {
      model: 'dev',
      model_settings: {
        script: [[{ tool_call: { id: 'del_2', name: 'delete_file', arguments: { path: '/tmp/y' } } }], [{ text: 'Deleted.' }]],
      },
      client_tools: [{ name: 'delete_file', description: 'Deletes a file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
    });
    const client = await peer(careful.id);
    const asked = await send(client, userMessage('clean up'));
    const approved = await send(client, userMessage('approve', { taskId: asked.id }));
    expect(approved.id).toBe(asked.id);
    expect(approved.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(approved.metadata).toMatchObject({ wait_reason: 'client_tool' });
    const data = approved.status!.message!.parts.find((part) => part.content?.$case === 'data')!.content!.value;
    expect(data).toMatchObject({
      pending: { calls: [{ tool_call_id: 'del_2', tool_name: 'delete_file', arguments: { path: '/tmp/y' } }] },
    });
    const result: Message = {
      ...userMessage('', { taskId: asked.id }),
      parts: [
        {
          content: { $case: 'data', value: { calls: { del_2: { status: 'returned', value: { deleted: true } } } } },
          metadata: undefined,
          filename: '',
          mediaType: 'application/json',
        },
      ],
    };
    const done = await send(client, result);
    expect(done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(done)).toBe('Deleted.');
    const last = (await t.rest('GET', `/api/v1/runs/${done.metadata!.run_id}`)).body;
    expect(last).toMatchObject({ resume: { calls: { del_2: { status: 'returned', value: { deleted: true } } } } });
  });

  it("answers another workspace's agent 404 and its tasks not found; a read-only key reads but cannot send", async () => {
    const theirs = await agent('theirs', { model: 'dev', model_settings: { script: [[{ text: 'theirs' }]] } }, other.apiKey);
    const mine = await agent('mine', { model: 'dev', model_settings: { script: [[{ text: 'mine' }]] } });
    const card = await fetch(`${t.url}/a2a/${theirs.id}/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    expect(card.status).toBe(404);
    await expect(peer(theirs.id)).rejects.toThrow(/404/);
    const foreign = await rpc(theirs.id, 'GetTask', { id: 'run_x' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.data).toMatchObject({ code: 'not_found' });

    // B's task (a run of B's agent) is not found through A's agent, whatever the method.
    const theirTask = await send(await peer(theirs.id, other.apiKey), userMessage('hello'));
    const client = await peer(mine.id);
    await expect(client.getTask({ tenant: '', id: theirTask.id })).rejects.toThrow(/not found/);
    for (const method of ['GetTask', 'CancelTask', 'SubscribeToTask']) {
      const answer = await rpc(mine.id, method, { id: theirTask.id });
      expect(answer.body.error.code, method).toBe(-32001);
    }
    const answerTo = await rpc(mine.id, 'SendMessage', { message: { ...jsonMessage('hi'), taskId: theirTask.id } });
    expect(answerTo.body.error.code).toBe(-32001);
    // B's thread is no context here.
    const foreignContext = await rpc(mine.id, 'SendMessage', { message: { ...jsonMessage('hi'), contextId: theirTask.contextId } });
    expect(foreignContext.body.error.code).toBe(-32001);

    const readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
    const reader = await peer(mine.id, readOnly);
    await expect(send(reader, userMessage('hi'))).rejects.toThrow();
    const refused = await rpc(mine.id, 'SendMessage', { message: jsonMessage('hi') }, readOnly);
    expect(refused.body.error).toMatchObject({
      code: -32000,
      data: [{ reason: 'PERMISSION_DENIED', metadata: { code: 'permission_denied' } }],
    });
    const mineTask = await send(client, userMessage('hi'));
    expect((await reader.getTask({ tenant: '', id: mineTask.id })).status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // A task belongs to its agent: another agent of the same workspace does not know it.
    const sibling = await agent('sibling', { model: 'dev' });
    expect((await rpc(sibling.id, 'GetTask', { id: mineTask.id })).body.error.code).toBe(-32001);
  });

  it('serves v0.3 peers (no A2A-Version header): the v0.3 card, message/send, tasks/get and message/stream', async () => {
    const legacy = await agent('legacy', { model: 'dev', model_settings: { script: [[{ text: 'Hello, old peer.' }]] } });
    const streamer = await agent('legacy-streamer', {
      model: 'dev',
      model_settings: { script: [[{ text_chunks: ['Streamed, ', 'old peer.'] }]] },
    });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${t.apiKey}` };
    const card = (await (await fetch(`${t.url}/a2a/${legacy.id}/.well-known/agent-card.json`, { headers })).json()) as any;
    expect(card).toMatchObject({ name: 'legacy', url: `${t.url}/a2a/${legacy.id}`, preferredTransport: 'JSONRPC', protocolVersion: '0.3' });
    const call = async (method: string, params: unknown) =>
      (await (
        await fetch(`${t.url}/a2a/${legacy.id}`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id: 'a', method, params }),
        })
      ).json()) as any;
    const sent = await call('message/send', {
      message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
    });
    expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(sent.result.artifacts[0].parts).toEqual([{ kind: 'text', text: 'Hello, old peer.' }]);
    const read = await call('tasks/get', { id: sent.result.id });
    expect(read.result).toMatchObject({
      kind: 'task',
      id: sent.result.id,
      contextId: sent.result.contextId,
      status: { state: 'completed' },
    });
    expect((await call('tasks/get', { id: 'run_nothing' })).error.code).toBe(-32001);
    // message/stream: server-sent events in v0.3 shapes, the last one the task's final status.
    const streamed = await fetch(`${t.url}/a2a/${streamer.id}`, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 's',
        method: 'message/stream',
        params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'go' }] } },
      }),
    });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const results = (await streamed.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)).result);
    expect(results[0]).toMatchObject({ kind: 'task' });
    const chunks = results.filter((result) => result.kind === 'artifact-update');
    expect(chunks.map((chunk) => chunk.artifact.parts.map((part: { text: string }) => part.text).join('')).join('')).toBe(
      'Streamed, old peer.',
    );
    expect(results.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' }, final: true });
  });

  it('refuses a missing or invalid key with 401, and bad requests with JSON-RPC errors', async () => {
    const mine = await agent('plain', { model: 'dev' });
    const missingCard = await fetch(`${t.url}/a2a/${mine.id}/.well-known/agent-card.json`);
    expect(missingCard.status).toBe(401);
    expect(missingCard.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await expect(peer(mine.id, null)).rejects.toThrow(/401/);
    const missing = await rpc(mine.id, 'SendMessage', { message: jsonMessage('hi') }, null);
    expect(missing.status).toBe(401);
    expect(missing.body.error.data).toMatchObject({ code: 'unauthenticated' });
    expect((await rpc(mine.id, 'GetTask', { id: 'run_x' }, 'wsk_not_a_key')).status).toBe(401);

    const notJson = await fetch(`${t.url}/a2a/${mine.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.apiKey}` },
      body: '{nope',
    });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as any).error.code).toBe(-32700);
    expect((await rpc(mine.id, 'NoSuchMethod', {})).body.error.code).toBe(-32601);
    expect((await rpc(mine.id, 'GetTask', { id: 'run_nothing' })).body.error.code).toBe(-32001);
    const noText = await rpc(mine.id, 'SendMessage', { message: { ...jsonMessage('x'), parts: [] } });
    expect(noText.body.error.code).toBe(-32602);
    const push = await rpc(mine.id, 'CreateTaskPushNotificationConfig', { taskId: 'run_x', url: 'https://example.com' });
    expect(push.body.error.code).toBe(-32003);

    // The key's rate limit counts A2A requests; past it, 429 with a JSON-RPC error naming the code.
    const limited = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read', rateLimit: '1/60s' })).token;
    expect((await rpc(mine.id, 'GetTask', { id: 'run_x' }, limited)).status).toBe(200);
    const over = await rpc(mine.id, 'GetTask', { id: 'run_x' }, limited);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'rate_limited' } } });
  });
});

/** A message as the JSON-RPC binding carries it (the wire form, for raw requests). */
function jsonMessage(text: string) {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
}
