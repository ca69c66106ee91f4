// The OpenAI-compatible endpoints (/openai/v1) with the official `openai` client as a real client:
// Responses (plain, streamed, background, resumed streams, continued threads, client tools as function
// calls), Chat Completions (plain, streamed, tool calls), the model list, errors, tenancy, and the run
// each request starts being the same run the REST API lists and traces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let loopback: ModelServer;
let client: OpenAI;
let otherClient: OpenAI;
let echo: { id: string; name: string };
let streaming: { id: string; name: string };

const script = (...turns: unknown[][]) => ({ model_settings: { script: turns } });

async function agentWith(name: string, config: Record<string, unknown>) {
  const response = await t.rest('POST', '/api/v1/agents', { body: { name, config: { model: 'dev', ...config } } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; name: string };
}

beforeAll(async () => {
  loopback = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
  await addLoopbackModel(t, loopback, 'loop');
  client = new OpenAI({ apiKey: t.apiKey, baseURL: `${t.url}/openai/v1`, maxRetries: 0 });
  const other = await createWorkspace(t.app.deps, { name: 'B' });
  otherClient = new OpenAI({ apiKey: other.apiKey.token, baseURL: `${t.url}/openai/v1`, maxRetries: 0 });
  echo = await agentWith('echo agent', { instructions: 'Be brief.' });
  streaming = await agentWith('streaming agent', { model: 'loop', instructions: 'Speak plainly.' });
});
afterAll(async () => {
  await t?.stop();
  await loopback?.close();
});

describe('models', () => {
  it('lists the agents as models and finds one by id', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toEqual(expect.arrayContaining([expect.objectContaining({ id: echo.id, object: 'model', name: 'echo agent' })]));
    expect((await client.models.retrieve(echo.id)).id).toBe(echo.id);
    // Another workspace's agent is unknown there.
    await expect(otherClient.models.retrieve(echo.id)).rejects.toMatchObject({
      status: 404,
      type: 'not_found_error',
      code: 'model_not_found',
    });
  });

  it('refuses an invalid key with 401 in OpenAI error shape', async () => {
    const bad = new OpenAI({ apiKey: 'wsk_not_a_key', baseURL: `${t.url}/openai/v1`, maxRetries: 0 });
    const error = await bad.models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'authentication_error' });
  });
});

describe('responses', () => {
  it('answers a plain request by agent name, and the run is the same run the REST API lists and traces', async () => {
    const response = await client.responses.create({ model: 'echo agent', input: 'hello' });
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: echo.id });
    expect(response.output_text).toBe('echo: hello');
    expect(response.id).toMatch(/^run_/);
    const listed = await t.rest('GET', `/api/v1/runs?agent_id=${echo.id}`);
    expect(listed.body.items.map((run: { id: string }) => run.id)).toContain(response.id);
    const trace = await t.rest('GET', `/api/v1/runs/${response.id}/trace`);
    expect(trace.status).toBe(200);
    expect(trace.body.spans.length).toBeGreaterThan(0);
    expect((await client.responses.retrieve(response.id)).output_text).toBe('echo: hello');
    // And a graphql-ws client subscribes to it like to any run.
    const ws = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
    });
    const statuses: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.subscribe(
        { query: 'subscription($id: ID!) { runStatus(runId: $id) { id status } }', variables: { id: response.id } },
        {
          next: (value) => statuses.push((value.data as { runStatus: { status: string } }).runStatus.status),
          error: reject,
          complete: resolve,
        },
      );
    });
    await ws.dispose();
    expect(statuses).toEqual(['completed']);
  });

  it('respects permissions: a read-only key lists models and reads responses, but starts none', async () => {
    const readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
    const reader = new OpenAI({ apiKey: readOnly, baseURL: `${t.url}/openai/v1`, maxRetries: 0 });
    expect((await reader.models.retrieve(echo.id)).id).toBe(echo.id);
    const error = await reader.responses.create({ model: echo.id, input: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error).toMatchObject({ status: 403, type: 'permission_error', code: 'permission_denied' });
    await expect(reader.chat.completions.create({ model: echo.id, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 403,
    });
  });

  it('adds instructions to the agent’s and continues the thread with previous_response_id', async () => {
    loopback.turns.push({ text: 'First answer.' }, { text: 'Second answer.' });
    const first = await client.responses.create({ model: streaming.id, input: 'one', instructions: 'Answer in English.' });
    expect(first.output_text).toBe('First answer.');
    const system = loopback.requests.at(-1)!.body.messages.find((m: { role: string }) => m.role === 'system');
    expect(system.content).toContain('Speak plainly.\n\nAnswer in English.');
    const second = await client.responses.create({ model: streaming.id, input: 'two', previous_response_id: first.id });
    expect(second.output_text).toBe('Second answer.');
    // The second run saw the first exchange: same thread, history before its input.
    const messages = loopback.requests.at(-1)!.body.messages.filter((m: { role: string }) => m.role !== 'system');
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    const runs = await Promise.all([first.id, second.id].map((id) => t.rest('GET', `/api/v1/runs/${id}`)));
    expect(runs[1]!.body.thread_id).toBe(runs[0]!.body.thread_id);
  });

  it('streams events whose text deltas assemble the exact output', async () => {
    const text = 'Streaming works, chunk by chunk.';
    loopback.turns.push({ text });
    const stream = await client.responses.create({ model: streaming.id, input: 'stream please', stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_text.done');
    expect(types).toContain('response.output_item.done');
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas.join('')).toBe(text);
    const numbers = events.map((e) => e.sequence_number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    const done = events.at(-1) as { response: { output_text?: string; output: { content: { text: string }[] }[] } };
    expect(done.response.output[0]!.content[0]!.text).toBe(text);
  });

  it('runs in the background, is retrieved, and a stream resumed with starting_after has no gap and no duplicate', async () => {
    const text = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const held = streamGate(3);
    loopback.turns.push({ text, gate: held.gate });
    const queued = await client.responses.create({ model: streaming.id, input: 'in the background', background: true });
    expect(['queued', 'in_progress']).toContain(queued.status);
    await held.reached;
    // Mid-answer: the first three chunks are out, the rest is held.
    const stream = await client.responses.retrieve(queued.id, { stream: true });
    const before: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) {
      before.push(event);
      if (event.type === 'response.output_text.delta') break;
    }
    stream.controller.abort();
    const last = before.at(-1)!.sequence_number;
    // Resumed while the answer is still held, so the rest arrives live on the resumed stream.
    const resumed = await client.responses.retrieve(queued.id, { stream: true, starting_after: last });
    held.open();
    const after: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of resumed) after.push(event);
    expect(after[0]!.sequence_number).toBeGreaterThan(last);
    expect(after.at(-1)!.type).toBe('response.completed');
    const all = [...before, ...after];
    expect(new Set(all.map((e) => e.sequence_number)).size).toBe(all.length);
    expect(all.map((e) => e.type).filter((type) => type === 'response.output_item.added')).toHaveLength(1);
    const deltas = all.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas.join('')).toBe(text);
    const retrieved = await client.responses.retrieve(queued.id);
    expect(retrieved).toMatchObject({ status: 'completed', output_text: text });
    // Resuming again from the very start replays the whole response with the same numbers.
    const replay: { sequence_number: number }[] = [];
    for await (const event of await client.responses.retrieve(queued.id, { stream: true })) replay.push(event);
    expect(replay.map((e) => e.sequence_number)).toEqual(expect.arrayContaining(after.map((e) => e.sequence_number)));
  });

  it('surfaces a client tool as a function call, answered with function_call_output in the next request', async () => {
    const agent = await agentWith('weather', {
      ...script([{ tool_call: { id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } } }], [{ text: 'It is sunny in Oslo.' }]),
      client_tools: [
        {
          name: 'get_weather',
          description: 'Weather',
          parameters_json_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
    });
    const first = await client.responses.create({ model: agent.id, input: 'Weather in Oslo?' });
    expect(first.status).toBe('completed');
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_1', name: 'get_weather' });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ city: 'Oslo' });
    // Without the output, the next request is refused and names what is awaited.
    await expect(client.responses.create({ model: agent.id, input: 'hm', previous_response_id: first.id })).rejects.toMatchObject({
      status: 400,
    });
    const second = await client.responses.create({
      model: agent.id,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_1', output: 'sunny' }],
    });
    expect(second.output_text).toBe('It is sunny in Oslo.');
    expect(second.previous_response_id).toBe(first.id);
  });

  it('surfaces a question of the agent as an ask_user function call, answered the same way', async () => {
    const agent = await agentWith('asker', {
      user_questions: true,
      ...script(
        [{ tool_call: { id: 'q1', name: 'ask_user', arguments: { question: 'Which city?', choices: ['Oslo', 'Bergen'] } } }],
        [{ text: 'Noted.' }],
      ),
    });
    const first = await client.responses.create({ model: agent.id, input: 'Ask me something.' });
    const call = first.output.find((item) => item.type === 'function_call') as { call_id: string; name: string; arguments: string };
    expect(call).toMatchObject({ call_id: 'q1', name: 'ask_user' });
    expect(JSON.parse(call.arguments)).toEqual({ question: 'Which city?', choices: ['Oslo', 'Bergen'] });
    const second = await client.responses.create({
      model: agent.id,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'q1', output: 'Oslo' }],
    });
    expect(second.output_text).toBe('Noted.');
  });

  it('cancels a background response', async () => {
    const held = streamGate(1);
    loopback.turns.push({ text: 'never finished', gate: held.gate });
    const queued = await client.responses.create({ model: streaming.id, input: 'cancel me', background: true });
    await held.reached;
    await client.responses.cancel(queued.id);
    held.open();
    await settleRun(t, queued.id);
    expect((await client.responses.retrieve(queued.id)).status).toBe('cancelled');
  });

  it('answers 404 for another workspace’s response and model, and 400 for bad input', async () => {
    const mine = await client.responses.create({ model: echo.id, input: 'private' });
    await expect(otherClient.responses.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(otherClient.responses.cancel(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(otherClient.responses.create({ model: echo.id, input: 'x' })).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
    await expect(otherClient.responses.create({ model: 'echo agent', input: 'x', previous_response_id: mine.id })).rejects.toMatchObject({
      status: 404,
    });
    await expect(client.responses.create({ model: 'no such agent', input: 'x' })).rejects.toMatchObject({ status: 404, param: 'model' });
    await expect(client.responses.create({ model: 'bad\u0000name', input: 'x' })).rejects.toMatchObject({ status: 400, param: 'model' });
    await expect(
      client.responses.create({ model: echo.id, input: 'x', previous_response_id: `run_${'x'.repeat(300)}` }),
    ).rejects.toMatchObject({
      status: 400,
      param: 'previous_response_id',
    });
    await expect(client.responses.create({ model: echo.id, input: 'x', seed: 1 } as never)).rejects.toMatchObject({
      status: 400,
      code: 'unsupported_parameter',
    });
    await expect(
      client.responses.create({ model: echo.id, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'x' }] }] as never }),
    ).rejects.toMatchObject({
      status: 400,
      type: 'invalid_request_error',
    });
    const get = (path: string) => fetch(`${t.url}/openai/v1${path}`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    const badPosition = await get(`/responses/${mine.id}?stream=true&starting_after=abc`);
    expect(badPosition.status).toBe(400);
    expect((await badPosition.json()).error).toMatchObject({ type: 'invalid_request_error', param: 'starting_after' });
    const unknownRoute = await get('/embeddings');
    expect(unknownRoute.status).toBe(404);
    expect((await unknownRoute.json()).error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    const raw = await fetch(`${t.url}/openai/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(raw.status).toBe(400);
    expect((await raw.json()).error).toMatchObject({ type: 'invalid_request_error' });
  });
});

describe('the contract', () => {
  it('publishes an OpenAPI document of the routes, to anonymous callers', async () => {
    const response = await fetch(`${t.url}/openai/v1/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.fromEntries(Object.entries(document.paths).map(([path, methods]) => [path, Object.keys(methods)]))).toEqual({
      '/models': ['get'],
      '/models/{model}': ['get'],
      '/responses': ['post'],
      '/responses/{id}': ['get'],
      '/responses/{id}/cancel': ['post'],
      '/chat/completions': ['post'],
    });
  });
});

describe('rate limits', () => {
  it('answers 429 in OpenAI error shape past the key’s quota', async () => {
    // A second instance on the same database with a quota of one request a minute per key.
    const limited = await startTestApp({ rateLimitPerKey: { quota: 1, windowSeconds: 60 } }, t);
    try {
      const capped = new OpenAI({ apiKey: t.apiKey, baseURL: `${limited.url}/openai/v1`, maxRetries: 0 });
      await capped.models.list();
      const error = await capped.models.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect(error).toMatchObject({ status: 429, type: 'rate_limit_error', code: 'rate_limited' });
    } finally {
      await limited.stop();
    }
  });
});

describe('chat completions', () => {
  it('answers plainly, with earlier messages as history and system messages as instructions', async () => {
    loopback.turns.push({ text: 'Plain answer.' });
    const completion = await client.chat.completions.create({
      model: streaming.name,
      messages: [
        { role: 'system', content: 'Use one sentence.' },
        { role: 'user', content: 'earlier question' },
        { role: 'assistant', content: 'earlier answer' },
        { role: 'user', content: 'now' },
      ],
    });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: streaming.id,
      choices: [{ message: { role: 'assistant', content: 'Plain answer.' }, finish_reason: 'stop' }],
    });
    const request = loopback.requests.at(-1)!.body;
    expect(request.messages[0].content).toContain('Speak plainly.\n\nUse one sentence.');
    expect(JSON.stringify(request.messages.at(-1))).toContain('assistant: earlier answer');
  });

  it('streams chunks that assemble the answer, then [DONE]', async () => {
    const text = 'Chunked chat answer.';
    loopback.turns.push({ text });
    const stream = await client.chat.completions.create({
      model: streaming.id,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    const finishes: (string | null)[] = [];
    let usage: unknown = null;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      content += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(content).toBe(text);
    expect(finishes.at(-1)).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
  });

  it('returns a client tool as tool_calls and resumes the run from the tool message', async () => {
    const agent = await agentWith('chat weather', {
      ...script([{ tool_call: { id: 'w1', name: 'get_weather', arguments: { city: 'Bergen' } } }], [{ text: 'Rainy in Bergen.' }]),
      client_tools: [{ name: 'get_weather', parameters_json_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Bergen?' }];
    const first = await client.chat.completions.create({ model: agent.id, messages });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]! as { id: string; function: { name: string; arguments: string } };
    expect(call.function).toEqual({ name: 'get_weather', arguments: JSON.stringify({ city: 'Bergen' }) });
    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: 'rain' });
    const stream = await client.chat.completions.create({ model: agent.id, messages, stream: true });
    let content = '';
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
    expect(content).toBe('Rainy in Bergen.');
    // Another workspace cannot answer it (the run is not found there).
    await expect(otherClient.chat.completions.create({ model: agent.id, messages })).rejects.toMatchObject({ status: 404 });
  });
});
