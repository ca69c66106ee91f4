// A model turn reads the provider's own stream of parts (no `streamText` pipeline): what the model
// streams must still end up as `streamText` reported it. A loopback server speaks the OpenAI chat
// completions wire protocol with answers written event by event here, through the real
// OpenAI-compatible adapter: several text parts of one answer, reasoning, the usage with cached and
// reasoning tokens, a provider's error event mid-stream (its message, not "[object Object]"), a
// stream without a finish reason (the adapter's own error), and text with a tool call in pieces read
// by the lean chat-completions reader (src/providers/lean-chat-*.ts), which reads every answer here.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';
import { addLoopbackModel, sse, start, type ModelServer } from '../helpers/model-servers.js';

/** The events of the next answers, each written in its own network write. */
const answers: string[][] = [];
let model: ModelServer;
let t: TestApp;

const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'loop-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
const usage = {
  prompt_tokens: 40,
  completion_tokens: 9,
  prompt_tokens_details: { cached_tokens: 30 },
  completion_tokens_details: { reasoning_tokens: 4 },
};

beforeAll(async () => {
  model = await start(async (_state, req, res) => {
    if (req.method !== 'POST') return void res.writeHead(404).end();
    sse(res);
    for (const event of answers.shift() ?? [chunk({ content: 'out of answers' }, 'stop')]) {
      // One write per event, each waited for: the service may read them one at a time.
      await new Promise<void>((resolve) => res.write(`data: ${event}\n\n`, () => resolve()));
    }
    res.end('data: [DONE]\n\n');
  }, 'sk-model-stream');
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await addLoopbackModel(t, model, 'loop');
});
beforeEach(() => {
  answers.length = 0;
});
afterAll(async () => {
  await t?.stop();
  await model?.close();
});

async function run(events: string[]) {
  answers.push(events);
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'streamer', config: { model: 'loop' } } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const started = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'go' }] } },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const settled = await settleRun(t, started.body.id);
  const items = (await t.rest('GET', `/api/v1/runs/${started.body.id}/items`)).body.items as {
    kind: string;
    state: string;
    content: any;
  }[];
  return { run: settled, items };
}

it('text in many events becomes one message; reasoning its own item; usage counts cached and reasoning tokens', async () => {
  const words = Array.from({ length: 60 }, (_, n) => `w${n} `);
  const { run: done, items } = await run([
    chunk({ role: 'assistant', content: '' }),
    chunk({ reasoning_content: 'thinking ' }),
    chunk({ reasoning_content: 'hard' }),
    ...words.map((word) => chunk({ content: word })),
    chunk({}, 'stop', { usage: { ...usage, total_tokens: 49 } }),
  ]);
  expect(done.status).toBe('completed');
  const reasoning = items.filter((item) => item.kind === 'reasoning');
  expect(reasoning.map((item) => [item.state, item.content.text])).toEqual([['completed', 'thinking hard']]);
  const messages = items.filter((item) => item.kind === 'text_message');
  expect(messages.map((item) => [item.state, item.content.text])).toEqual([['completed', words.join('')]]);
  expect(done.usage_at_seal).toMatchObject({
    requests: 1,
    input_tokens: 40,
    output_tokens: 9,
    cached_input_tokens: 30,
    reasoning_tokens: 4,
  });
});

it("a provider's error event mid-stream fails the run with the provider's message", async () => {
  const { run: done, items } = await run([
    chunk({ role: 'assistant', content: 'partial ' }),
    JSON.stringify({ error: { message: 'The upstream model crashed', type: 'server_error', code: 'upstream_crash' } }),
  ]);
  expect(done).toMatchObject({ status: 'failed', failure: { code: 'model_error' } });
  const errors = items.filter((item) => item.kind === 'error');
  expect(errors.length).toBeGreaterThan(0);
  for (const item of errors) expect(JSON.stringify(item.content)).toContain('The upstream model crashed');
});

it("a stream that ends without a finish reason fails with the adapter's error, its request counted", async () => {
  const { run: done, items } = await run([chunk({ role: 'assistant', content: 'no ' }), chunk({ content: 'finish' })]);
  expect(done, JSON.stringify(done)).toMatchObject({
    status: 'failed',
    failure: { code: 'model_error', message: 'Response stream ended without a finish reason.' },
    usage_at_seal: { requests: 1 },
  });
  // The text streamed before the end stays, as it was streamed.
  expect(items.filter((item) => item.kind === 'text_message').map((item) => item.content.text)).toEqual(['no finish']);
});

it('an openai_compatible answer is read by the lean reader: text and a tool call in pieces become the same items', async () => {
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: { name: 'lean', config: { model: 'loop', client_tools: [{ name: 'pick', parameters_json_schema: { type: 'object' } }] } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  answers.push([
    chunk({ role: 'assistant', content: '' }),
    ...['Let ', 'me ', 'pïck 🎯'].map((word) => chunk({ content: word })),
    chunk({ tool_calls: [{ index: 0, id: 'call_pick', type: 'function', function: { name: 'pick', arguments: '' } }] }),
    ...['{"colour"', ': "bl', 'ue"}'].map((piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
    chunk({}, 'tool_calls', { usage: { prompt_tokens: 12, completion_tokens: 5 } }),
  ]);
  const requestsBefore = model.requests.length;
  const started = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'go' }] } },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const settled = await settleRun(t, started.body.id);
  expect(settled).toMatchObject({ status: 'waiting', usage_at_seal: { requests: 1, input_tokens: 12, output_tokens: 5 } });
  const items = (await t.rest('GET', `/api/v1/runs/${started.body.id}/items`)).body.items as {
    kind: string;
    state: string;
    content: any;
  }[];
  expect(items.filter((item) => item.kind === 'text_message').map((item) => [item.state, item.content.text])).toEqual([
    ['completed', 'Let me pïck 🎯'],
  ]);
  expect(items.filter((item) => item.kind === 'client_call').map((item) => [item.state, item.content])).toEqual([
    ['completed', { tool_call_id: 'call_pick', tool_name: 'pick', arguments: { colour: 'blue' } }],
  ]);
  // The request went through the outbound policy's dispatcher, not fetch (fetch adds `sec-fetch-mode`
  // to every request): so the SDK was handed an empty event stream, and the items above were read
  // from the body by the lean reader.
  const [request] = model.requests.slice(requestsBefore);
  expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { stream: true } });
  expect(request!.headers['sec-fetch-mode']).toBeUndefined();
  expect(request!.headers['user-agent']).toMatch(/^ai-sdk-openai-compatible\//);
});

// The vendor types built on the OpenAI-compatible package read their streaming answers through the
// lean reader too: each, pointed at the loopback server, gets its items from an answer the outbound
// policy's dispatcher fetched (fetch would have added `sec-fetch-mode`).
for (const type of ['xai', 'huggingface', 'pydantic'])
  it(`a ${type} answer is read by the lean reader`, async () => {
    const provider = await t.rest('POST', '/api/v1/model-providers', {
      body: { type, name: `lean ${type}`, config: { base_url: `${model.url}/v1` }, credential: { api_key: model.apiKey } },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    const registered = await t.rest('POST', '/api/v1/models', {
      body: { key: `lean-${type}`, provider_id: provider.body.id, provider_model: 'loop-model' },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const agent = await t.rest('POST', '/api/v1/agents', { body: { name: `lean ${type}`, config: { model: `lean-${type}` } } });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    answers.push([
      chunk({ role: 'assistant', content: '' }),
      ...['Hello ', 'from ', type].map((word) => chunk({ content: word })),
      chunk({}, 'stop', { usage: { prompt_tokens: 7, completion_tokens: 3 } }),
    ]);
    const requestsBefore = model.requests.length;
    const started = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'go' }] } },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const settled = await settleRun(t, started.body.id);
    expect(settled).toMatchObject({ status: 'completed', usage_at_seal: { requests: 1, input_tokens: 7, output_tokens: 3 } });
    const items = (await t.rest('GET', `/api/v1/runs/${started.body.id}/items`)).body.items as {
      kind: string;
      state: string;
      content: any;
    }[];
    expect(items.filter((item) => item.kind === 'text_message').map((item) => [item.state, item.content.text])).toEqual([
      ['completed', `Hello from ${type}`],
    ]);
    const [request] = model.requests.slice(requestsBefore);
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { stream: true } });
    expect(request!.headers['sec-fetch-mode']).toBeUndefined();
  });
