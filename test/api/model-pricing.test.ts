// Model prices and run costs through the public API: a model's own `pricing` (create, PATCH, removal,
// validation, audit), the catalogue's prices for known vendor models, and `usage_at_seal.cost` from a
// loopback OpenAI-compatible server (the real AI SDK client) that reports cached and reasoning tokens.
// The price in effect when a request is made prices it: a later price change prices later runs only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
let server: ModelServer;
let providerId: string;

beforeAll(async () => {
  // Every answer: 1,000,000 input tokens of which 400,000 cached, 200,000 output of which 50,000 reasoning.
  server = await startOpenAICompatibleServer(undefined, {
    usage: { prompt: 1_000_000, completion: 200_000, cached: 400_000, reasoning: 50_000 },
  });
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  const provider = await t.rest('POST', '/api/v1/model-providers', {
    body: { type: 'openai_compatible', name: 'loopback', config: { base_url: `${server.url}/v1` }, credential: { api_key: server.apiKey } },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  providerId = provider.body.id;
});

afterAll(async () => {
  await t?.stop();
  await server?.close();
});

async function createModel(key: string, extra: Record<string, unknown> = {}) {
  return t.rest('POST', '/api/v1/models', { body: { key, provider_id: providerId, provider_model: 'loop-model', ...extra } });
}

/** PATCH with the model's current ETag. */
async function patchModel(key: string, body: Record<string, unknown>) {
  const current = await t.rest('GET', `/api/v1/models/${key}`);
  return t.rest('PATCH', `/api/v1/models/${key}`, { body, headers: { 'if-match': current.headers.get('etag')! } });
}

async function runWith(model: string) {
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: `Priced ${model}`, config: { model } } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  server.turns.push({ text: 'Done.' });
  const run = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'Hello' }] } },
  });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  const sealed = await settleRun(t, run.body.id);
  expect(sealed.status, JSON.stringify(sealed.failure)).toBe('completed');
  return sealed;
}

describe('model prices', () => {
  it('stores a model price, shows where the price came from, and replaces or removes it by PATCH', async () => {
    const created = await createModel('priced', {
      pricing: { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3, currency: 'USD' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      pricing: { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3, currency: 'USD' },
      pricing_source: 'model',
    });

    // Currency defaults to US dollars; a member the model leaves out (and the catalogue lacks) is null.
    const patched = await patchModel('priced', { pricing: { input_per_mtok: 2.5 } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.pricing).toEqual({ input_per_mtok: 2.5, output_per_mtok: null, cached_input_per_mtok: null, currency: 'USD' });

    // The change is audited with the old and new price.
    const audit = await t.rest('GET', '/api/v1/audit-events?resource_kind=model&resource_id=priced');
    const update = (audit.body.items as any[]).find((event) => event.action === 'update');
    expect(update?.changes?.pricing).toMatchObject({ from: { input_per_mtok: 3 }, to: { input_per_mtok: 2.5 } });

    // A model name the catalogue does not know has no price once its own is removed.
    const removed = await patchModel('priced', { pricing: null });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ pricing: null, pricing_source: null });
  });

  it('takes a known vendor model price from the catalogue, member by member under the model own', async () => {
    const known = await t.rest('POST', '/api/v1/models', {
      body: { key: 'sonnet', provider_id: providerId, provider_model: 'claude-3-7-sonnet-20250219' },
    });
    expect(known.status, JSON.stringify(known.body)).toBe(201);
    expect(known.body).toMatchObject({
      pricing: { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3, currency: 'USD' },
      pricing_source: 'catalogue',
    });
    const own = await patchModel('sonnet', { pricing: { output_per_mtok: 12 } });
    expect(own.body).toMatchObject({
      pricing: { input_per_mtok: 3, output_per_mtok: 12, cached_input_per_mtok: 0.3, currency: 'USD' },
      pricing_source: 'model',
    });
    // Another currency: the catalogue's US dollar prices do not fill in.
    const euro = await patchModel('sonnet', { pricing: { output_per_mtok: 12, currency: 'EUR' } });
    expect(euro.body.pricing).toEqual({ input_per_mtok: null, output_per_mtok: 12, cached_input_per_mtok: null, currency: 'EUR' });
  });

  it.each([
    [{ input_per_mtok: -1 }, 'pricing.input_per_mtok'],
    [{ output_per_mtok: '15' }, 'pricing.output_per_mtok'],
    [{ input_per_mtok: 0.0000001 }, 'pricing.input_per_mtok'],
    [{ currency: 'usd' }, 'pricing.currency'],
    [{ currency: { code: 'USD' } }, 'pricing.currency'],
    [{ per_request: 1 }, 'pricing.per_request'],
    ['3.0', 'pricing'],
  ])('refuses pricing %j with invalid_argument naming %s', async (pricing, field) => {
    const created = await createModel('refused', { pricing });
    expect(created.status, JSON.stringify(created.body)).toBe(400);
    expect(created.body.error).toMatchObject({ code: 'invalid_argument', details: { field } });
  });
});

describe('models created concurrently', () => {
  it('one of several creates of the same key wins; the others are told of the conflict (409), never an internal error', async () => {
    for (let round = 0; round < 3; round++) {
      const key = `race-${round}`;
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          t.rest('POST', '/api/v1/models', { body: { key, provider_id: providerId, provider_model: 'loop' } }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
      for (const lost of answers.filter((answer) => answer.status !== 201)) {
        expect(lost.status, JSON.stringify(lost.body)).toBe(409);
        expect(lost.body.error.code).toBe('conflict');
      }
    }
  });
});

describe('run cost', () => {
  it('prices each request with cached and reasoning tokens, exactly, at the price in effect when it was made', async () => {
    expect((await createModel('costed', { pricing: { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3 } })).status).toBe(
      201,
    );
    const first = await runWith('costed');
    // 600,000 uncached × 3 + 400,000 cached × 0.3 + 200,000 output × 15, per million: 1.8 + 0.12 + 3.
    expect(first.usage_at_seal).toEqual({
      requests: 1,
      input_tokens: 1_000_000,
      output_tokens: 200_000,
      cached_input_tokens: 400_000,
      reasoning_tokens: 50_000,
      cost: { amount: '4.920000', currency: 'USD', complete: true },
      // No subagent: none of their usage.
      subagents: null,
      // One model answered: its row is the run's usage, named by its key and provider type.
      by_model: [
        {
          model: 'costed',
          provider_type: 'openai_compatible',
          requests: 1,
          input_tokens: 1_000_000,
          output_tokens: 200_000,
          cached_input_tokens: 400_000,
          reasoning_tokens: 50_000,
          cost: { amount: '4.920000', currency: 'USD', complete: true },
        },
      ],
    });

    // A new price applies to the requests after it; the sealed run keeps its cost.
    expect((await patchModel('costed', { pricing: { input_per_mtok: 0.1, output_per_mtok: 0.7 } })).status).toBe(200);
    const second = await runWith('costed');
    // Cached input costs what input costs without a cached price: 1,000,000 × 0.1 + 200,000 × 0.7.
    expect(second.usage_at_seal.cost).toEqual({ amount: '0.240000', currency: 'USD', complete: true });
    expect((await t.rest('GET', `/api/v1/runs/${first.id}`)).body.usage_at_seal.cost.amount).toBe('4.920000');

    // GraphQL shows the same.
    const viaGraphql = await t.graphql(
      `{ run(id: "${first.id}") { usageAtSeal { reasoningTokens cost { amount currency complete }
        byModel { model providerType requests inputTokens outputTokens cachedInputTokens reasoningTokens cost { amount currency complete } } } } }`,
    );
    expect(viaGraphql.data.run.usageAtSeal).toEqual({
      reasoningTokens: 50_000,
      cost: { amount: '4.920000', currency: 'USD', complete: true },
      byModel: [
        {
          model: 'costed',
          providerType: 'openai_compatible',
          requests: 1,
          inputTokens: 1_000_000,
          outputTokens: 200_000,
          cachedInputTokens: 400_000,
          reasoningTokens: 50_000,
          cost: { amount: '4.920000', currency: 'USD', complete: true },
        },
      ],
    });
  });

  it('sums without float drift and rounds half up to 6 decimals', async () => {
    // 0.1 + 0.2 per million, ten times over, is exact: 1,000,000 × 0.1 + 200,000 × 0.2 = 0.14 per request.
    expect(
      (await createModel('drift', { pricing: { input_per_mtok: 0.1, output_per_mtok: 0.2, cached_input_per_mtok: 0.1 } })).status,
    ).toBe(201);
    const run = await runWith('drift');
    expect(run.usage_at_seal.cost).toEqual({ amount: '0.140000', currency: 'USD', complete: true });
  });

  it('marks the cost incomplete when a request model has no price', async () => {
    expect((await createModel('unpriced')).status).toBe(201);
    const run = await runWith('unpriced');
    expect(run.usage_at_seal.cost).toEqual({ amount: '0.000000', currency: null, complete: false });
    expect(run.usage_at_seal.by_model).toMatchObject([
      { model: 'unpriced', cost: { amount: '0.000000', currency: null, complete: false } },
    ]);
  });
});
