// Media understanding through the public API: an image in a run's input is described by the agent's
// `media_understanding.image` model before a text-only main model sees it (the run's items keep the
// image), a main model whose API reads images gets the image itself, the description is remembered
// across a resume, a describing model that cannot be used leaves a note, and unknown model keys are
// refused when the configuration is written. Models are real AI SDK clients against loopback servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';
import { startAnthropicServer, startOpenAICompatibleServer, userTexts, type ModelServer } from '../helpers/model-servers.js';

// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const imageInput = (text: string, data = PNG) => ({
  content: [
    { type: 'text', text },
    { type: 'image', media_type: 'image/png', data },
  ],
});

let t: TestApp;
let textOnly: ModelServer;
let describer: ModelServer;
let vision: ModelServer;

async function addModel(server: ModelServer, type: string, key: string, settings: Record<string, unknown> = {}) {
  const provider = await t.rest('POST', '/api/v1/model-providers', {
    body: { type, name: key, config: { base_url: `${server.url}/v1` }, credential: { api_key: server.apiKey } },
  });
  expect(provider.status).toBe(201);
  const model = await t.rest('POST', '/api/v1/models', {
    body: { key, provider_id: provider.body.id, provider_model: 'loop-model', settings },
  });
  expect(model.status, JSON.stringify(model.body)).toBe(201);
}

async function agentWith(config: Record<string, unknown>) {
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'Looker', config } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body;
}

async function runOf(agentId: string, input: unknown) {
  const run = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input } });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  return run.body;
}

const itemsOf = async (runId: string) => (await t.rest('GET', `/api/v1/runs/${runId}/items`)).body.items as any[];
const chatRequests = (server: ModelServer) => server.requests.filter((r) => r.path === '/v1/chat/completions');

beforeAll(async () => {
  [textOnly, describer, vision] = await Promise.all([startOpenAICompatibleServer(), startOpenAICompatibleServer(), startAnthropicServer()]);
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  // An OpenAI-compatible server promises text only; the describing model says it reads images.
  await addModel(textOnly, 'openai_compatible', 'text-main');
  await addModel(describer, 'openai_compatible', 'eyes', { input_media: ['image'] });
  // The Anthropic messages API declares images.
  await addModel(vision, 'anthropic', 'vision-main');
});

afterAll(async () => {
  await t?.stop();
  await Promise.all([textOnly?.close(), describer?.close(), vision?.close()]);
});

describe('media understanding', () => {
  it('describes an image for a text-only main model, keeps the image in the items and remembers the description across a resume', async () => {
    const agent = await agentWith({
      model: 'text-main',
      media_understanding: { image: 'eyes' },
      client_tools: [{ name: 'lookup', parameters_json_schema: { type: 'object', properties: {} } }],
    });
    describer.turns.push({ text: 'A single red pixel on white.' });
    textOnly.turns.push({ tool: { id: 'call_l1', name: 'lookup', arguments: {} } }, { text: 'It is a red pixel.' });
    const run = await runOf(agent.id, imageInput('What is in this picture?'));
    const waiting = await settleRun(t, run.id);
    expect(waiting.status).toBe('waiting');

    // The describing model got the image (as an image_url data URL) and was asked to describe it.
    const described = chatRequests(describer);
    expect(described).toHaveLength(1);
    expect(JSON.stringify(described[0]!.body)).toContain(`data:image/png;base64,${PNG}`);
    // The main model got the description in place of the image, and no image.
    const first = chatRequests(textOnly)[0]!;
    expect(JSON.stringify(first.body)).not.toContain(PNG);
    expect(userTexts(first).join('\n')).toContain('[image described by another model: A single red pixel on white.]');
    expect(userTexts(first).join('\n')).toContain('What is in this picture?');

    // The run's items keep the image as sent, and record the description.
    const items = await itemsOf(run.id);
    expect(items.find((i) => i.kind === 'user_message').content.content).toEqual(imageInput('What is in this picture?').content);
    const description = items.find((i) => i.kind === 'media_description');
    expect(description).toMatchObject({
      state: 'completed',
      content: { media_kind: 'image', media_type: 'image/png', model: 'eyes', cached: false, description: 'A single red pixel on white.' },
    });
    expect(description.content.sha256).toMatch(/^[0-9a-f]{64}$/);

    // The successor asks the main model again with the same history: the description is remembered.
    const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': 'media-resume' },
      body: { calls: { call_l1: { status: 'returned', value: { found: true } } } },
    });
    expect(successor.status).toBe(200);
    const done = await settleRun(t, successor.body.id);
    expect(done).toMatchObject({ status: 'completed', output: 'It is a red pixel.' });
    expect(chatRequests(describer)).toHaveLength(1);
    const second = chatRequests(textOnly)[1]!;
    expect(JSON.stringify(second.body)).not.toContain(PNG);
    expect(userTexts(second).join('\n')).toContain('A single red pixel on white.');
    const resumedItems = await itemsOf(successor.body.id);
    expect(resumedItems.find((i) => i.kind === 'media_description').content).toMatchObject({
      model: 'eyes',
      cached: true,
      description: 'A single red pixel on white.',
      sha256: description.content.sha256,
    });

    // GraphQL answers the new item kind as its enum value.
    const graph = await t.graphql(`query ($id: ID!) { run(id: $id) { items(first: 20) { nodes { kind } } } }`, { id: successor.body.id });
    expect(graph.errors).toBeUndefined();
    expect(graph.data.run.items.nodes.map((n: { kind: string }) => n.kind)).toContain('media_description');
  });

  it('gives the image itself to a main model that reads images, asking no describing model', async () => {
    const agent = await agentWith({ model: 'vision-main', media_understanding: { image: 'eyes' } });
    const before = chatRequests(describer).length;
    vision.turns.push({ text: 'A red pixel.' });
    const other = Buffer.from(PNG, 'base64');
    other.writeUInt8(other.readUInt8(other.length - 13) ^ 1, other.length - 13); // other bytes: a digest the cache does not know
    const data = other.toString('base64');
    const run = await runOf(agent.id, imageInput('Look.', data));
    expect(await settleRun(t, run.id)).toMatchObject({ status: 'completed', output: 'A red pixel.' });
    const request = vision.requests.filter((r) => r.path === '/v1/messages').at(-1)!;
    const userContent = request.body.messages[0].content;
    expect(userContent).toContainEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } });
    expect(chatRequests(describer)).toHaveLength(before);
    expect((await itemsOf(run.id)).some((i) => i.kind === 'media_description')).toBe(false);
  });

  it('describes media in a client tool result for a text-only model and passes it to a model that reads it', async () => {
    const screenshot = Buffer.from(PNG, 'base64');
    screenshot.writeUInt8(screenshot.readUInt8(screenshot.length - 14) ^ 1, screenshot.length - 14);
    const data = screenshot.toString('base64');
    const value = {
      content: [
        { type: 'text', text: 'the screen' },
        { type: 'image', media_type: 'image/png', data },
      ],
    };
    const tool = { name: 'screenshot', parameters_json_schema: { type: 'object', properties: {} } };
    // `vision-compat` reads images in messages, but its API (chat completions) sends tool results as text.
    await addModel(textOnly, 'openai_compatible', 'vision-compat', { input_media: ['image'] });
    const cases = [
      { model: 'text-main', server: textOnly, path: '/v1/chat/completions', key: 'tool-text' },
      { model: 'vision-compat', server: textOnly, path: '/v1/chat/completions', key: 'tool-compat' },
      { model: 'vision-main', server: vision, path: '/v1/messages', key: 'tool-vision' },
    ];
    for (const { model, server, path, key } of cases) {
      const agent = await agentWith({ model, media_understanding: { image: 'eyes' }, client_tools: [tool] });
      server.turns.push({ tool: { id: `call_${key}`, name: 'screenshot', arguments: {} } }, { text: 'Seen.' });
      if (model === 'text-main') describer.turns.push({ text: 'A screen with one dot.' });
      const described = model !== 'vision-main';
      const run = await runOf(agent.id, { content: [{ type: 'text', text: 'Take a screenshot.' }] });
      expect((await settleRun(t, run.id)).status).toBe('waiting');
      const before = chatRequests(describer).length;
      const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
        headers: { 'idempotency-key': key },
        body: { calls: { [`call_${key}`]: { status: 'returned', value } } },
      });
      expect(await settleRun(t, successor.body.id)).toMatchObject({ status: 'completed', output: 'Seen.' });
      const request = JSON.stringify(server.requests.filter((r) => r.path === path).at(-1)!.body);
      expect(request).toContain('the screen');
      if (described) {
        expect(request).not.toContain(data);
        expect(request).toContain('[image described by another model: A screen with one dot.]');
        // Described once, for the first model; the second reads the remembered description.
        expect(chatRequests(describer)).toHaveLength(model === 'text-main' ? before + 1 : before);
        expect(JSON.stringify(chatRequests(describer).at(-1)!.body)).toContain(data);
      } else {
        // The Anthropic messages API carries the image inside the tool result.
        expect(request).toContain(JSON.stringify({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }));
        expect(chatRequests(describer)).toHaveLength(before);
      }
    }
  });

  it('counts describing requests in the run’s usage and against max_usage.requests', async () => {
    const agent = await agentWith({ model: 'text-main', media_understanding: { image: 'eyes' } });
    // Media no earlier test described (a description from memory costs no request).
    const fresh = (offset: number) => {
      const bytes = Buffer.from(PNG, 'base64');
      bytes.writeUInt8(bytes.readUInt8(bytes.length - offset) ^ 1, bytes.length - offset);
      return bytes.toString('base64');
    };
    const start = async (data: string, requests: number) => {
      const run = await t.rest('POST', '/api/v1/runs', {
        body: { agent_id: agent.id, input: imageInput('What is it?', data), options: { max_usage: { requests } } },
      });
      expect(run.status, JSON.stringify(run.body)).toBe(201);
      return settleRun(t, run.body.id);
    };

    // Room for both: the main request and the description each count, tokens included.
    describer.turns.push({ text: 'A dot.' });
    textOnly.turns.push({ text: 'A dot, then.' });
    const describedBefore = chatRequests(describer).length;
    const roomy = await start(fresh(15), 2);
    expect(roomy).toMatchObject({ status: 'completed', output: 'A dot, then.' });
    expect(chatRequests(describer)).toHaveLength(describedBefore + 1);
    // Each loopback answer reports 11 prompt and 7 completion tokens.
    expect(roomy.usage_at_seal).toEqual({
      requests: 2,
      input_tokens: 22,
      output_tokens: 14,
      cached_input_tokens: 0,
      reasoning_tokens: 0,
      cost: { amount: '0.000000', currency: null, complete: false },
      subagents: null,
      // Each model's own requests, in model key order: the describing model is named too.
      by_model: ['eyes', 'text-main'].map((model) => ({
        model,
        provider_type: 'openai_compatible',
        requests: 1,
        input_tokens: 11,
        output_tokens: 7,
        cached_input_tokens: 0,
        reasoning_tokens: 0,
        cost: { amount: '0.000000', currency: null, complete: false },
      })),
    });

    // Room for the main request only: no describing request; the model gets a note, the run goes on.
    textOnly.turns.push({ text: 'I could not see it.' });
    const tight = await start(fresh(16), 1);
    expect(tight).toMatchObject({ status: 'completed', output: 'I could not see it.' });
    expect(tight.usage_at_seal.requests).toBe(1);
    expect(chatRequests(describer)).toHaveLength(describedBefore + 1);
    expect(userTexts(chatRequests(textOnly).at(-1)!).join('\n')).toContain(
      '[image omitted: the run reached its limit of 1 model requests]',
    );
    expect((await itemsOf(tight.id)).find((i) => i.kind === 'media_description').content).toMatchObject({
      model: 'eyes',
      cached: false,
      error: { code: 'usage_limit_exceeded' },
    });
  });

  it('replaces media it cannot have described by a note and records why', async () => {
    // No model named for images: a note.
    const bare = await agentWith({ model: 'text-main' });
    textOnly.turns.push({ text: 'I cannot see it.' });
    const run = await runOf(bare.id, imageInput('And this?'));
    expect(await settleRun(t, run.id)).toMatchObject({ status: 'completed' });
    expect(userTexts(chatRequests(textOnly).at(-1)!).join('\n')).toContain('[image omitted: the model cannot read image');
    expect((await itemsOf(run.id)).find((i) => i.kind === 'media_description').content).toMatchObject({
      model: null,
      error: { code: 'not_configured' },
    });

    // The describing model is disabled after the agent was configured: a note, the run goes on.
    await addModel(describer, 'openai_compatible', 'eyes-off', { input_media: ['image'] });
    const agent = await agentWith({ model: 'text-main', media_understanding: { image: 'eyes-off' } });
    const off = await t.rest('PATCH', '/api/v1/models/eyes-off', { headers: { 'if-match': '*' }, body: { enabled: false } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    textOnly.turns.push({ text: 'Still cannot see it.' });
    const second = await runOf(agent.id, imageInput('And now?'));
    expect(await settleRun(t, second.id)).toMatchObject({ status: 'completed', output: 'Still cannot see it.' });
    expect(userTexts(chatRequests(textOnly).at(-1)!).join('\n')).toContain(
      '[image omitted: the image could not be described by the model "eyes-off"',
    );
    const item = (await itemsOf(second.id)).find((i) => i.kind === 'media_description');
    expect(item.content).toMatchObject({ model: 'eyes-off', cached: false, error: { code: 'disabled' } });
  });

  it('refuses unknown model keys in media_understanding (agents and run overrides) and bad media parts', async () => {
    const created = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'Blind', config: { model: 'text-main', media_understanding: { video: 'no-such-model' } } },
    });
    expect(created.status).toBe(404);
    expect(created.body.error).toMatchObject({ code: 'not_found', details: { field: 'config.media_understanding.video' } });

    const agent = await agentWith({ model: 'text-main' });
    const overridden = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.id, input: imageInput('x'), options: { overrides: { media_understanding: { image: 'nope' } } } },
    });
    expect(overridden.status).toBe(404);
    expect(overridden.body.error.details.field).toBe('options.overrides.media_understanding.image');

    const cases: [unknown, string][] = [
      [{ type: 'image', media_type: 'audio/wav', data: PNG }, 'input.content[0].media_type'],
      [{ type: 'image', media_type: 'image/png', data: 'not base64!' }, 'input.content[0].data'],
      [{ type: 'audio', media_type: 'audio/wav' }, 'input.content[0].data'],
      [{ type: 'image', media_type: 'image/png', data: PNG, url: 'x' }, 'input.content[0].url'],
      [{ type: 'document', text: 'x' }, 'input.content[0].type'],
    ];
    for (const [part, field] of cases) {
      const response = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [part] } } });
      expect(response.status, JSON.stringify(part)).toBe(400);
      expect(response.body.error.details.field).toBe(field);
    }

    const badSettings = await t.rest('PATCH', '/api/v1/models/text-main', {
      headers: { 'if-match': '*' },
      body: { settings: { input_media: ['smell'] } },
    });
    expect(badSettings.status).toBe(400);
    expect(badSettings.body.error.details.field).toBe('settings.input_media');
  });

  it('describes what each model API reads (GraphQL provider types)', async () => {
    const response = await t.graphql(
      `{ providerTypes(kind: "model") { type ... on ModelProviderType { modelApis { api inputMedia toolResultMedia } } } }`,
    );
    expect(response.errors).toBeUndefined();
    const byType = Object.fromEntries(response.data.providerTypes.map((p: any) => [p.type, p.modelApis]));
    expect(byType.anthropic).toEqual([{ api: 'messages', inputMedia: ['image'], toolResultMedia: ['image'] }]);
    expect(byType.openai_compatible).toEqual([{ api: 'chat', inputMedia: [], toolResultMedia: [] }]);
    expect(byType.openai).toEqual([
      { api: 'responses', inputMedia: ['image'], toolResultMedia: ['image'] },
      { api: 'chat', inputMedia: ['image', 'audio'], toolResultMedia: [] },
    ]);
    expect(byType.google).toEqual([{ api: 'generate_content', inputMedia: ['image', 'audio', 'video'], toolResultMedia: [] }]);
  });
});
