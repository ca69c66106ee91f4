// The model provider types beyond the first seven, each through its real AI SDK adapter against a
// loopback server speaking its wire protocol: the type catalogue (21 types), the probe (or
// `unsupported` where the contract says so), and a run whose model streams a tool call and then a
// streamed text answer — paused for the client tool, resumed, completed. Every server refuses a wrong
// credential (and the Codex backend a missing account id), so a run that completes proves the adapter
// sent them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';
import { startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import {
  startCohereServer,
  startGatewayServer,
  startOllamaServer,
  startResponsesServer,
  startVertexServer,
} from '../helpers/model-wire-servers.js';

let t: TestApp;
const servers: Record<string, ModelServer> = {};

beforeAll(async () => {
  servers.chat = await startOpenAICompatibleServer('sk-chat-family-secret');
  servers.whole = await startOpenAICompatibleServer('sk-whole-calls-secret', { wholeToolCalls: true });
  servers.groq = await startOpenAICompatibleServer('gsk-test-secret', { groqUsage: true });
  servers.cohere = await startCohereServer();
  servers.ollama = await startOllamaServer();
  servers.vertex = await startVertexServer();
  servers.chatgpt = await startResponsesServer('chatgpt-access-token', { 'chatgpt-account-id': 'acct-123' });
  servers.gateway = await startGatewayServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
});
afterAll(async () => {
  await t.stop();
  for (const server of Object.values(servers)) await server.close();
});

interface Case {
  type: string;
  server: string;
  /** Where the adapter sends the model request. */
  path: string | RegExp;
  config: (url: string) => Record<string, unknown>;
  credential: (s: ModelServer) => Record<string, unknown>;
  /** The probe's request path; absent: the contract answers `unsupported`. */
  probe?: string;
}

const apiKey = (s: ModelServer) => ({ api_key: s.apiKey });
const v1 = (url: string) => ({ base_url: `${url}/v1` });
const CASES: Case[] = [
  // OpenAI-style chat completions, each through the vendor's own AI SDK package
  ...['deepseek', 'together', 'fireworks', 'huggingface'].map((type): Case => ({
    type,
    server: 'chat',
    path: '/v1/chat/completions',
    config: v1,
    credential: apiKey,
    probe: '/v1/models',
  })),
  { type: 'openrouter', server: 'chat', path: '/v1/chat/completions', config: v1, credential: apiKey, probe: '/v1/key' },
  { type: 'pydantic', server: 'chat', path: '/v1/chat/completions', config: v1, credential: apiKey },
  { type: 'groq', server: 'groq', path: '/v1/chat/completions', config: v1, credential: apiKey, probe: '/v1/models' },
  { type: 'xai', server: 'whole', path: '/v1/chat/completions', config: v1, credential: apiKey, probe: '/v1/models' },
  { type: 'mistral', server: 'whole', path: '/v1/chat/completions', config: v1, credential: apiKey, probe: '/v1/models' },
  // protocols of their own
  {
    type: 'cohere',
    server: 'cohere',
    path: '/v2/chat',
    config: (url) => ({ base_url: `${url}/v2` }),
    credential: apiKey,
    probe: '/v1/models?page_size=1',
  },
  {
    type: 'ollama',
    server: 'ollama',
    path: '/api/chat',
    config: (url) => ({ base_url: `${url}/api` }),
    credential: apiKey,
    probe: '/api/tags',
  },
  {
    type: 'chatgpt',
    server: 'chatgpt',
    path: '/v1/responses',
    config: v1,
    credential: (s) => ({ access_token: s.apiKey, account_id: 'acct-123' }),
  },
  {
    type: 'vertex',
    server: 'vertex',
    path: /^\/v1beta1\/projects\/p1\/locations\/us-central1\/publishers\/google\/models\/loop-model:streamGenerateContent\?alt=sse$/,
    config: (url) => ({
      project: 'p1',
      location: 'us-central1',
      base_url: `${url}/v1beta1/projects/p1/locations/us-central1/publishers/google`,
    }),
    credential: (s) => ({ access_token: s.apiKey }),
  },
  { type: 'vercel', server: 'gateway', path: '/v1/ai/language-model', config: (url) => ({ base_url: `${url}/v1/ai` }), credential: apiKey },
];

describe('the model type catalogue', () => {
  it('lists the 21 model types, the first seven first, each with schemas and model APIs', async () => {
    const items = (await t.rest('GET', '/api/v1/provider-types/model')).body.items as {
      type: string;
      test_supported: boolean;
      model_apis: { api: string }[];
      configuration_schema: { properties: Record<string, unknown> };
    }[];
    expect(items).toHaveLength(21);
    expect(items.slice(0, 7).map((i) => i.type)).toEqual([
      'anthropic',
      'azure',
      'bedrock',
      'development',
      'google',
      'openai',
      'openai_compatible',
    ]);
    expect(items.slice(7).map((i) => i.type)).toEqual(CASES.map((c) => c.type).sort());
    for (const item of items.slice(7)) {
      expect(item.model_apis.length, item.type).toBeGreaterThan(0);
      expect(item.configuration_schema.properties.base_url, item.type).toMatchObject({ type: 'string', format: 'uri' });
      expect(item.test_supported, item.type).toBe(Boolean(CASES.find((c) => c.type === item.type)!.probe));
    }
    // The contract's `unsupported` types: ChatGPT-subscription, Vertex, Bedrock, Vercel and the typesafe gateway.
    expect(items.filter((i) => !i.test_supported).map((i) => i.type)).toEqual(['bedrock', 'chatgpt', 'pydantic', 'vercel', 'vertex']);
  });

  it('a deployment that does not allow development models neither lists nor accepts the development type; existing ones keep working', async () => {
    // A development model made while the type was offered (the same database, a second instance without it).
    const provider = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'made earlier' } });
    expect(provider.status).toBe(201);
    expect(
      (await t.rest('POST', '/api/v1/models', { body: { key: 'dev-earlier', provider_id: provider.body.id, provider_model: 'echo' } }))
        .status,
    ).toBe(201);
    const production = await startTestApp({ allowDevelopmentModels: false }, t);
    try {
      const items = (await production.rest('GET', '/api/v1/provider-types/model')).body.items as { type: string }[];
      expect(items).toHaveLength(20);
      expect(items.map((i) => i.type)).not.toContain('development');
      const graphql = await production.graphql('{ providerTypes(kind: "model") { type } }');
      expect(graphql.data.providerTypes.map((i: { type: string }) => i.type)).not.toContain('development');
      const refused = await production.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'offline' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'type' } });
      expect(refused.body.error.message).toContain('ALLOW_DEVELOPMENT_MODELS');
      const agent = await production.rest('POST', '/api/v1/agents', { body: { name: 'earlier', config: { model: 'dev-earlier' } } });
      expect(agent.status, JSON.stringify(agent.body)).toBe(201);
      const run = await production.rest('POST', '/api/v1/runs', {
        body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'still here' }] } },
      });
      expect(await settleRun(production, run.body.id)).toMatchObject({ status: 'completed', output: 'echo: still here' });
    } finally {
      await production.stop();
    }
  });

  it('applies the endpoint policy to base_url and validates the credential', async () => {
    const plain = await t.rest('POST', '/api/v1/model-providers', {
      body: { type: 'mistral', name: 'm', config: { base_url: 'http://10.0.0.5/v1' }, credential: { api_key: 'k' } },
    });
    expect(plain.status).toBe(400);
    expect(plain.body.error.details.field).toBe('config.base_url');
    const vertexBoth = await t.rest('POST', '/api/v1/model-providers', {
      body: {
        type: 'vertex',
        name: 'v',
        config: { project: 'p', location: 'us-central1' },
        credential: { access_token: 'a', service_account_json: '{}' },
      },
    });
    expect(vertexBoth.status).toBe(400);
    const noKey = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'groq', name: 'g' } });
    expect(noKey.status).toBe(400);
  });
});

describe('runs and probes through each adapter', () => {
  for (const c of CASES) {
    it(`${c.type}: probe, then a streamed tool call and a streamed answer`, async () => {
      const s = servers[c.server]!;
      const created = await t.rest('POST', '/api/v1/model-providers', {
        body: { type: c.type, name: `${c.type} loop`, config: c.config(s.url), credential: c.credential(s) },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const provider = created.body;

      s.requests.length = 0;
      const test = await t.rest('POST', `/api/v1/model-providers/${provider.id}/test`);
      if (c.probe) {
        expect(test.body).toEqual({ status: 'succeeded', message: null });
        expect(s.requests.map((r) => r.path)).toEqual([c.probe]);
      } else {
        expect(test.body.status).toBe('unsupported');
        expect(s.requests).toEqual([]);
      }

      const key = `${c.type}-loop`;
      expect(
        (await t.rest('POST', '/api/v1/models', { body: { key, provider_id: provider.id, provider_model: 'loop-model' } })).status,
      ).toBe(201);
      const agent = (
        await t.rest('POST', '/api/v1/agents', {
          body: {
            name: c.type,
            config: {
              model: key,
              instructions: 'Be brief.',
              client_tools: [
                {
                  name: 'get_weather',
                  description: 'Weather for a city',
                  parameters_json_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
                },
              ],
            },
          },
        })
      ).body;
      s.requests.length = 0;
      s.turns.length = 0;
      s.turns.push({ tool: { id: 'call_w1', name: 'get_weather', arguments: { city: 'Oslo' } } }, { text: 'It is sunny in Oslo.' });
      const run = (
        await t.rest('POST', '/api/v1/runs', {
          body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'Weather in Oslo?' }] } },
        })
      ).body;
      const waiting = await settleRun(t, run.id);
      expect(waiting, JSON.stringify(waiting.failure)).toMatchObject({
        status: 'waiting',
        wait_reason: 'client_tool',
        pending: { calls: [{ tool_name: 'get_weather', arguments: { city: 'Oslo' } }] },
      });
      const callId = waiting.pending.calls[0].tool_call_id as string;
      const first = s.requests.find((r) => (typeof c.path === 'string' ? r.path === c.path : c.path.test(r.path)))!;
      expect(first, JSON.stringify(s.requests.map((r) => r.path))).toBeDefined();
      expect(JSON.stringify(first.body)).toContain('Weather in Oslo?');
      expect(JSON.stringify(first.body)).toContain('Be brief.');
      expect(JSON.stringify(first.body)).toContain('get_weather');
      // Responses-style backends get the thread's id as their prompt-cache key; the others none.
      expect((first.body as { prompt_cache_key?: string }).prompt_cache_key).toBe(c.type === 'chatgpt' ? run.thread_id : undefined);

      const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
        headers: { 'idempotency-key': `k-${c.type}` },
        body: { calls: { [callId]: { status: 'returned', value: { sky: 'clear' } } } },
      });
      expect(successor.status, JSON.stringify(successor.body)).toBeLessThan(300);
      const done = await settleRun(t, successor.body.id);
      expect(done, JSON.stringify(done.failure)).toMatchObject({ status: 'completed', output: 'It is sunny in Oslo.' });
      expect(done.usage_at_seal.input_tokens).toBeGreaterThan(0);
      const model = s.requests.filter((r) => (typeof c.path === 'string' ? r.path === c.path : c.path.test(r.path)));
      expect(model).toHaveLength(2);
      // The second request carries the tool's result back in the protocol's own shape.
      expect(JSON.stringify(model[1]!.body)).toContain('clear');
    });
  }

  it('a wrong credential fails the probe with the vendor status, never echoing the secret', async () => {
    for (const [type, server, config] of [
      ['cohere', 'cohere', (url: string) => ({ base_url: `${url}/v2` })],
      ['ollama', 'ollama', (url: string) => ({ base_url: `${url}/api` })],
      ['mistral', 'whole', v1],
    ] as const) {
      const s = servers[server]!;
      const created = await t.rest('POST', '/api/v1/model-providers', {
        body: { type, name: `${type} wrong`, config: config(s.url), credential: { api_key: 'wrong-secret-4321' } },
      });
      const test = await t.rest('POST', `/api/v1/model-providers/${created.body.id}/test`);
      expect(test.body.status, type).toBe('failed');
      expect(test.body.message).toMatch(/401/);
      expect(test.body.message).not.toContain('wrong-secret-4321');
    }
  });
});
