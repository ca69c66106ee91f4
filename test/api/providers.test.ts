// Providers and models through REST: types, credentials (write-only, sealed), PATCH credential
// rules, endpoint policy, probes and runs against loopback servers speaking the real protocols.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';
import { startAnthropicServer, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let openai: ModelServer;
let anthropic: ModelServer;
let otherKey: string;
let writeOnly: string;
let readOnly: string;

beforeAll(async () => {
  openai = await startOpenAICompatibleServer();
  anthropic = await startAnthropicServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  writeOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read,write' })).token;
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
});
afterAll(async () => {
  await t.stop();
  await openai.close();
  await anthropic.close();
});

const settle = (runId: string, statuses?: string[]) => settleRun(t, runId, statuses);

describe('provider types', () => {
  it('describe every kind with schemas; unknown kind → 404', async () => {
    for (const kind of ['model', 'web', 'environment', 'connector', 'memory']) {
      const response = await t.rest('GET', `/api/v1/provider-types/${kind}`);
      expect(response.status, kind).toBe(200);
      expect(response.body.items.length).toBeGreaterThan(0);
      for (const type of response.body.items) {
        expect(type).toMatchObject({ kind, configuration_schema: expect.any(Object), credential_schema: expect.any(Object) });
        expect(type.type).toMatch(/^[a-z][a-z0-9_]*$/);
        if (type.credential_required) expect(type.setup_url).toMatch(/^https:\/\//);
      }
    }
    const models = (await t.rest('GET', '/api/v1/provider-types/model')).body.items;
    expect(models.map((m: { type: string }) => m.type)).toEqual(
      expect.arrayContaining(['openai', 'openai_compatible', 'anthropic', 'google', 'azure', 'bedrock', 'development']),
    );
    expect(models.find((m: { type: string }) => m.type === 'openai').model_apis.map((a: { api: string }) => a.api)).toEqual([
      'responses',
      'chat',
    ]);
    expect((await t.rest('GET', '/api/v1/provider-types/web')).body.items[0].operations).toEqual(expect.any(Array));
    expect(
      (await t.rest('GET', '/api/v1/provider-types/environment')).body.items.find((e: { type: string }) => e.type === 'docker'),
    ).toMatchObject({ supports_managed_instances: true, supports_stop: true });
    expect((await t.rest('GET', '/api/v1/provider-types/quantum')).status).toBe(404);
  });
});

describe('model providers', () => {
  it('keep credentials write-only and sealed, and probe the real endpoint', async () => {
    const created = await t.rest('POST', '/api/v1/model-providers', {
      body: {
        type: 'openai_compatible',
        name: 'Loop',
        config: { base_url: `${openai.url}/v1` },
        credential: { api_key: openai.apiKey },
        extra_headers: { 'X-Team': 'core' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'model',
      type: 'openai_compatible',
      credential_configured: true,
      extra_headers_configured: true,
      enabled: true,
      version: 1,
    });
    expect(JSON.stringify(created.body)).not.toContain(openai.apiKey);
    expect(created.headers.get('etag')).toBe(`"${created.body.id}:1"`);
    // Never in plaintext in the database: the whole row and the audit trail.
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    const rows = await client.query(`SELECT row_to_json(p)::text AS row FROM providers p WHERE id = $1`, [created.body.id]);
    const audit = await client.query(`SELECT changes::text AS c FROM audit_events WHERE resource_id = $1`, [created.body.id]);
    await client.end();
    expect(rows.rows[0].row).not.toContain(openai.apiKey);
    expect(rows.rows[0].row).not.toContain('core');
    expect(audit.rows.map((r) => r.c).join()).not.toContain(openai.apiKey);
    const test = await t.rest('POST', `/api/v1/model-providers/${created.body.id}/test`);
    expect(test.body).toEqual({ status: 'succeeded', message: null });
    const probe = openai.requests.find((r) => r.path === '/v1/models')!;
    expect(probe.headers.authorization).toBe(`Bearer ${openai.apiKey}`);
    expect(probe.headers['x-team']).toBe('core');
    // A wrong key: failed, with a message that carries no secret.
    const wrong = await t.rest('PATCH', `/api/v1/model-providers/${created.body.id}`, {
      headers: { 'if-match': created.headers.get('etag')! },
      body: { credential: { api_key: 'sk-wrong-key-123' } },
    });
    expect(wrong.body.version).toBe(2);
    const failed = await t.rest('POST', `/api/v1/model-providers/${created.body.id}/test`);
    expect(failed.body.status).toBe('failed');
    expect(failed.body.message).toMatch(/401/);
    expect(failed.body.message).not.toContain('sk-wrong-key-123');
    // Tests need `run`.
    expect((await t.rest('POST', `/api/v1/model-providers/${created.body.id}/test`, { token: writeOnly })).status).toBe(403);
  });

  it('apply the PATCH credential rules', async () => {
    const created = await t.rest('POST', '/api/v1/model-providers', {
      body: {
        type: 'openai_compatible',
        name: 'Rules',
        config: { base_url: `${openai.url}/v1` },
        credential: { api_key: 'k1' },
        extra_headers: { 'X-A': '1' },
      },
    });
    let etag = created.headers.get('etag')!;
    const id = created.body.id;
    const keepsSecret = await t.rest('PATCH', `/api/v1/model-providers/${id}`, {
      headers: { 'if-match': etag },
      body: { name: 'Renamed' },
    });
    expect(keepsSecret.body).toMatchObject({ name: 'Renamed', credential_configured: true, extra_headers_configured: true });
    etag = keepsSecret.headers.get('etag')!;
    const newBase = { base_url: `http://127.0.0.1:1/v1` };
    const refused = await t.rest('PATCH', `/api/v1/model-providers/${id}`, { headers: { 'if-match': etag }, body: { config: newBase } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_argument', details: { missing: ['credential', 'extra_headers'] } });
    const half = await t.rest('PATCH', `/api/v1/model-providers/${id}`, {
      headers: { 'if-match': etag },
      body: { config: newBase, credential: { api_key: 'k2' } },
    });
    expect(half.body.error.details.missing).toEqual(['extra_headers']);
    const ok = await t.rest('PATCH', `/api/v1/model-providers/${id}`, {
      headers: { 'if-match': etag },
      body: { config: newBase, credential: null, extra_headers: { 'X-B': '2' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ config: newBase, credential_configured: false, extra_headers_configured: true });
    const noop = await t.rest('PATCH', `/api/v1/model-providers/${id}`, {
      headers: { 'if-match': ok.headers.get('etag')! },
      body: { config: newBase },
    });
    expect(noop.body.version).toBe(ok.body.version);
    expect(
      (await t.rest('PATCH', `/api/v1/model-providers/${id}`, { headers: { 'if-match': etag }, body: { name: 'stale' } })).status,
    ).toBe(412);
    expect((await t.rest('DELETE', `/api/v1/model-providers/${id}`)).status).toBe(405);
  });

  it('ask for a new credential on a config change only when one is stored (and extra headers only when stored)', async () => {
    const newBase = { base_url: 'http://127.0.0.1:2/v1' };
    // A stored credential and no extra headers: the new credential alone is enough.
    const keyOnly = await t.rest('POST', '/api/v1/model-providers', {
      body: { type: 'openai_compatible', name: 'Key only', config: { base_url: `${openai.url}/v1` }, credential: { api_key: 'k1' } },
    });
    expect(keyOnly.body).toMatchObject({ credential_configured: true, extra_headers_configured: false });
    const moved = await t.rest('PATCH', `/api/v1/model-providers/${keyOnly.body.id}`, {
      headers: { 'if-match': keyOnly.headers.get('etag')! },
      body: { config: newBase, credential: { api_key: 'k2' } },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ config: newBase, credential_configured: true, version: 2 });
    // No stored credential: nothing to replace, so a config change needs no credential.
    const keyless = await t.rest('POST', '/api/v1/model-providers', {
      body: { type: 'openai_compatible', name: 'Keyless', config: { base_url: `${openai.url}/v1` } },
    });
    expect(keyless.body).toMatchObject({ credential_configured: false, extra_headers_configured: false });
    const repointed = await t.rest('PATCH', `/api/v1/model-providers/${keyless.body.id}`, {
      headers: { 'if-match': keyless.headers.get('etag')! },
      body: { config: newBase },
    });
    expect(repointed.status, JSON.stringify(repointed.body)).toBe(200);
    expect(repointed.body).toMatchObject({ config: newBase, credential_configured: false, version: 2 });
  });

  it('need write to create or change', async () => {
    const body = { type: 'development', name: 'Not allowed' };
    const refused = await t.rest('POST', '/api/v1/model-providers', { token: readOnly, body });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'permission_denied', details: { permission: 'write' } });
    const listed = (await t.rest('GET', '/api/v1/model-providers?limit=100')).body.items;
    expect(listed.map((provider: { name: string }) => provider.name)).not.toContain('Not allowed');
    const created = await t.rest('POST', '/api/v1/model-providers', { body });
    const patch = await t.rest('PATCH', `/api/v1/model-providers/${created.body.id}`, {
      token: readOnly,
      headers: { 'if-match': created.headers.get('etag')! },
      body: { enabled: false },
    });
    expect(patch.status).toBe(403);
  });

  it('enforce the endpoint policy and the schemas, naming the field', async () => {
    const plain = await t.rest('POST', '/api/v1/model-providers', {
      body: { type: 'openai_compatible', name: 'x', config: { base_url: 'http://localhost:11434/v1' } },
    });
    expect(plain.status).toBe(400);
    expect(plain.body.error.details.field).toBe('config.base_url');
    const privateHttps = await t.rest('POST', '/api/v1/model-providers', {
      body: { type: 'openai_compatible', name: 'x', config: { base_url: 'https://10.0.0.5/v1' } },
    });
    // A literal address outside the public internet is refused when written (the test deployment allows loopback only).
    expect(privateHttps.status).toBe(400);
    expect(privateHttps.body.error).toMatchObject({
      code: 'invalid_argument',
      message: 'config.base_url: outbound_refused: 10.0.0.5 is a private address; allow it with OUTBOUND_ALLOW_PRIVATE',
      details: { field: 'config.base_url', reason: 'outbound_refused' },
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'nope', name: 'x' }, 'type'],
      [{ type: 'openai', name: 'x' }, 'credential'],
      [{ type: 'openai', name: 'x', credential: { api_key: 'k', extra: 1 } }, 'credential.extra'],
      [{ type: 'openai', name: 'x', credential: { api_key: 'k' }, config: { base_url: 'not a url' } }, 'config.base_url'],
      [{ type: 'openai_compatible', name: 'x', config: {} }, 'config.base_url'],
      [{ type: 'openai', credential: { api_key: 'k' } }, 'name'],
    ];
    for (const [body, field] of cases) {
      const response = await t.rest('POST', '/api/v1/model-providers', { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.details.field).toBe(field);
    }
    expect(
      (await t.rest('POST', '/api/v1/web-providers', { body: { type: 'openai', name: 'x', credential: { api_key: 'k' } } })).status,
    ).toBe(400);
  });

  it('answer tests of web types with unsupported, and stay in their workspace', async () => {
    const web = await t.rest('POST', '/api/v1/web-providers', {
      body: { type: 'tavily', name: 'search', credential: { api_key: 'tvly-1' } },
    });
    expect(web.status).toBe(201);
    expect((await t.rest('POST', `/api/v1/web-providers/${web.body.id}/test`)).body.status).toBe('unsupported');
    const memory = await t.rest('POST', '/api/v1/memory-providers', { body: { type: 'builtin', name: 'records' } });
    expect((await t.rest('POST', `/api/v1/memory-providers/${memory.body.id}/test`)).body.status).toBe('succeeded');
    expect((await t.rest('GET', `/api/v1/model-providers/${web.body.id}`)).status).toBe(404); // wrong kind
    for (const [method, path] of [
      ['GET', `/api/v1/web-providers/${web.body.id}`],
      ['PATCH', `/api/v1/web-providers/${web.body.id}`],
      ['POST', `/api/v1/web-providers/${web.body.id}/test`],
    ] as const) {
      expect(
        (
          await t.rest(method, path, {
            token: otherKey,
            headers: { 'if-match': '*' },
            body: method === 'PATCH' ? { name: 'x' } : undefined,
          })
        ).status,
      ).toBe(404);
    }
    expect((await t.rest('GET', '/api/v1/web-providers', { token: otherKey })).body.items).toEqual([]);
  });
});

describe('models', () => {
  it('are named by key, with "{key}:{version}" ETags and the key rules', async () => {
    const provider = (await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'dev' } })).body;
    for (const key of ['a', 'a.b-c9', 'x'.repeat(128)]) {
      const created = await t.rest('POST', '/api/v1/models', { body: { key, provider_id: provider.id, provider_model: 'echo' } });
      expect(created.status, key).toBe(201);
      expect(created.body).not.toHaveProperty('id');
      expect(created.headers.get('etag')).toBe(`"${key}:1"`);
    }
    for (const key of ['', 'x'.repeat(129), 'Upper', 'under_score', 'sp ace', '.dot', '-dash']) {
      expect(
        (await t.rest('POST', '/api/v1/models', { body: { key, provider_id: provider.id, provider_model: 'echo' } })).status,
        key,
      ).toBe(400);
    }
    const duplicate = await t.rest('POST', '/api/v1/models', { body: { key: 'a', provider_id: provider.id, provider_model: 'echo' } });
    expect(duplicate.status).toBe(409);
    const read = await t.rest('GET', '/api/v1/models/a');
    const patched = await t.rest('PATCH', '/api/v1/models/a', {
      headers: { 'if-match': read.headers.get('etag')! },
      body: { name: 'Alpha', settings: { temperature: 0.1 } },
    });
    expect(patched.body).toMatchObject({ key: 'a', name: 'Alpha', version: 2 });
    expect(patched.headers.get('etag')).toBe('"a:2"');
    expect((await t.rest('PATCH', '/api/v1/models/a', { headers: { 'if-match': '"a:2"' }, body: { key: 'b' } })).status).toBe(400);
    expect((await t.rest('GET', '/api/v1/models/a', { token: otherKey })).status).toBe(404);
    const list = await t.rest('GET', `/api/v1/models?provider_id=${provider.id}&limit=2`);
    expect(list.body.items.map((m: { key: string }) => m.key)).toEqual(['a', 'a.b-c9']);
    expect(list.body.next_cursor).toEqual(expect.any(String));
    expect(
      (
        await t.rest('POST', '/api/v1/models', {
          body: { key: 'foreign', provider_id: 'prv_01AAAAAAAAAAAAAAAAAAAAAAAA', provider_model: 'x' },
        })
      ).status,
    ).toBe(404);
  });

  it('disabling a model or its provider stops new runs at once', async () => {
    const provider = (await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'dev2' } })).body;
    const model = await t.rest('POST', '/api/v1/models', { body: { key: 'switchable', provider_id: provider.id, provider_model: 'echo' } });
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'sw', config: { model: 'switchable' } } })).body;
    const input = { content: [{ type: 'text', text: 'hi' }] };
    expect((await settle((await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input } })).body.id)).status).toBe(
      'completed',
    );
    await t.rest('PATCH', '/api/v1/models/switchable', { headers: { 'if-match': model.headers.get('etag')! }, body: { enabled: false } });
    const refused = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('disabled');
    await t.rest('PATCH', '/api/v1/models/switchable', { headers: { 'if-match': '*' }, body: { enabled: true } });
    await t.rest('PATCH', `/api/v1/model-providers/${provider.id}`, { headers: { 'if-match': '*' }, body: { enabled: false } });
    expect((await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input } })).body.error.code).toBe('disabled');
    expect((await t.rest('POST', `/api/v1/model-providers/${provider.id}/test`)).body.error.code).toBe('disabled');
  });
});

describe('runs through the real adapters', () => {
  for (const [label, type, server, path] of [
    ['OpenAI-compatible', 'openai_compatible', () => openai, '/v1/chat/completions'],
    ['Anthropic', 'anthropic', () => anthropic, '/v1/messages'],
  ] as const) {
    it(`${label}: streaming text and tool calls, pause and resume`, async () => {
      const s = server();
      const provider = (
        await t.rest('POST', '/api/v1/model-providers', {
          body: { type, name: label, config: { base_url: `${s.url}/v1` }, credential: { api_key: s.apiKey } },
        })
      ).body;
      const key = `${type.replace('_', '-')}-loop`;
      await t.rest('POST', '/api/v1/models', {
        body: { key, provider_id: provider.id, provider_model: 'loop-model', settings: { temperature: 0.25, max_output_tokens: 321 } },
      });
      const agent = (
        await t.rest('POST', '/api/v1/agents', {
          body: {
            name: label,
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
      s.turns.push({ tool: { id: 'call_w1', name: 'get_weather', arguments: { city: 'Oslo' } } }, { text: 'It is sunny in Oslo.' });
      const run = (
        await t.rest('POST', '/api/v1/runs', {
          body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'Weather in Oslo?' }] } },
        })
      ).body;
      const waiting = await settle(run.id);
      expect(waiting).toMatchObject({
        status: 'waiting',
        wait_reason: 'client_tool',
        pending: { calls: [{ tool_call_id: 'call_w1', tool_name: 'get_weather', arguments: { city: 'Oslo' } }] },
      });
      const first = s.requests.find((r) => r.path === path)!;
      expect(first.body).toMatchObject({ model: 'loop-model', stream: true, temperature: 0.25 });
      expect(first.body.max_tokens).toBe(321);
      expect(JSON.stringify(first.body.tools)).toContain('get_weather');
      expect(JSON.stringify(first.body)).toContain('Weather in Oslo?');
      expect(JSON.stringify(first.body)).toContain('Be brief.');
      if (type === 'anthropic') expect(first.headers['x-api-key']).toBe(s.apiKey);
      else expect(first.headers.authorization).toBe(`Bearer ${s.apiKey}`);
      const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
        headers: { 'idempotency-key': `k-${type}` },
        body: { calls: { call_w1: { status: 'returned', value: { sky: 'clear' } } } },
      });
      const done = await settle(successor.body.id);
      expect(done).toMatchObject({ status: 'completed', output: 'It is sunny in Oslo.' });
      expect(done.usage_at_seal.input_tokens).toBeGreaterThan(0);
      const second = s.requests.filter((r) => r.path === path)[1]!;
      expect(JSON.stringify(second.body)).toContain('call_w1');
      expect(JSON.stringify(second.body)).toContain('clear');
      const items = (await t.rest('GET', `/api/v1/runs/${successor.body.id}/items`)).body.items;
      expect(items.find((i: { kind: string }) => i.kind === 'text_message').content.text).toBe('It is sunny in Oslo.');
    });
  }
});
