// The outbound policy through the public API: a literal address outside the public internet is
// refused when a provider, connection or webhook is written (400, `details.reason`
// `outbound_refused`); at use, the connection itself is refused — a withdrawn allowance, a name
// allowed whose redirect leads to loopback — and the refusal names the policy, never the target's
// answer. The test deployment changes its allowance between steps, as an operator would between
// restarts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
let server: Server;
let port: number;
const TARGET_ANSWER = 'the internal service answered this';

const allow = (entries: string[]) => {
  (t.app.deps.config as { outboundAllowPrivate: readonly string[] }).outboundAllowPrivate = entries;
};

beforeAll(async () => {
  // A loopback "vendor": its model list, and a redirect to itself by address.
  server = createServer((req, res) => {
    if (req.url?.startsWith('/hop/')) res.writeHead(302, { location: `http://127.0.0.1:${port}/${req.url.slice('/hop/'.length)}` }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [], note: TARGET_ANSWER }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  t = await startTestApp({ allowPlainHttpEndpoints: true, outboundAllowPrivate: [] });
});

afterAll(async () => {
  await t?.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const create = (path: string, body: Record<string, unknown>) => t.rest('POST', path, { body });
const refusedWrite = (response: { status: number; body: any }, field: string, target: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error).toMatchObject({ code: 'invalid_argument', details: { field, reason: 'outbound_refused' } });
  expect(response.body.error.message).toContain(`outbound_refused: ${target} is`);
  expect(response.body.error.message).toContain('OUTBOUND_ALLOW_PRIVATE');
};

describe('writes: a literal address outside the public internet is refused', () => {
  it('for every kind of target, in every literal form', async () => {
    allow([]);
    refusedWrite(
      await create('/api/v1/model-providers', {
        type: 'openai_compatible',
        name: 'm',
        config: { base_url: `http://127.0.0.1:${port}/v1` },
      }),
      'config.base_url',
      '127.0.0.1',
    );
    // The URL parser reads decimal, hex, octal and short forms as the dotted address they are.
    for (const host of ['2130706433', '0x7f000001', '0177.0.0.1', '127.1', '[::ffff:127.0.0.1]', '[64:ff9b::a9fe:a9fe]', 'localhost'])
      expect(
        (
          await create('/api/v1/model-providers', {
            type: 'openai_compatible',
            name: 'm',
            config: { base_url: `http://${host}:${port}/v1` },
          })
        ).body.error?.details?.reason,
        host,
      ).toBe('outbound_refused');
    refusedWrite(
      await create('/api/v1/web-providers', { type: 'searxng', name: 'w', config: { base_url: 'http://10.0.0.5:8080' } }),
      'config.base_url',
      '10.0.0.5',
    );
    refusedWrite(
      await create('/api/v1/memory-providers', {
        type: 'pinecone',
        name: 'v',
        config: { index_host: 'https://169.254.169.254' },
        credential: { api_key: 'k' },
      }),
      'config.index_host',
      '169.254.169.254',
    );
    refusedWrite(
      await create('/api/v1/connector-providers', { type: 'mcp', name: 'c', config: { url: 'http://[::1]:9000/mcp' } }),
      'config.url',
      '::1',
    );
    refusedWrite(
      await create('/api/v1/webhook-subscriptions', { url: 'https://100.64.0.1/hook', event_kinds: ['run.failed'] }),
      'url',
      '100.64.0.1',
    );
  });

  it('a PATCH too; allowed once the deployment allows the range', async () => {
    allow([]);
    const provider = await create('/api/v1/model-providers', {
      type: 'openai_compatible',
      name: 'public',
      config: { base_url: 'https://models.example.com/v1' },
    });
    expect(provider.status).toBe(201);
    const patch = (base_url: string) =>
      t.rest('PATCH', `/api/v1/model-providers/${provider.body.id}`, { headers: { 'if-match': '*' }, body: { config: { base_url } } });
    refusedWrite(await patch('https://192.168.1.10/v1'), 'config.base_url', '192.168.1.10');
    allow(['192.168.0.0/16']);
    expect((await patch('https://192.168.1.10/v1')).status).toBe(200);
  });
});

describe('use: the connection is refused, and the refusal names the policy', () => {
  const probeOf = async (base_url: string) => {
    const created = await create('/api/v1/model-providers', {
      type: 'openai',
      name: 'p',
      config: { base_url },
      credential: { api_key: 'sk-test' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return {
      id: created.body.id as string,
      test: async () => (await t.rest('POST', `/api/v1/model-providers/${created.body.id}/test`)).body,
    };
  };

  it('a provider written while allowed is refused once the allowance is withdrawn', async () => {
    allow(['127.0.0.1']);
    const provider = await probeOf(`http://127.0.0.1:${port}/v1`);
    expect(await provider.test()).toEqual({ status: 'succeeded', message: null });
    allow([]);
    const refused = await provider.test();
    expect(refused.status).toBe('failed');
    expect(refused.message).toContain('outbound_refused: 127.0.0.1 is a loopback address; allow it with OUTBOUND_ALLOW_PRIVATE');
    expect(refused.message).not.toContain(TARGET_ANSWER);
  });

  it('a name the deployment allows is followed, but not its redirect to an address it does not', async () => {
    allow(['localhost']);
    const provider = await probeOf(`http://localhost:${port}/hop/v1`);
    const refused = await provider.test();
    expect(refused.status).toBe('failed');
    expect(refused.message).toContain('outbound_refused: 127.0.0.1 is a loopback address');
    expect(refused.message).not.toContain(TARGET_ANSWER);
    allow(['localhost', '127.0.0.1']);
    expect(await provider.test()).toEqual({ status: 'succeeded', message: null });
  });

  it('a connection test is refused at use alike', async () => {
    allow(['127.0.0.1']);
    const connector = await create('/api/v1/connector-providers', {
      type: 'mcp',
      name: 'c',
      config: { url: `http://127.0.0.1:${port}/mcp` },
    });
    expect(connector.status).toBe(201);
    allow([]);
    const probe = (await t.rest('POST', `/api/v1/connector-providers/${connector.body.id}/test`)).body;
    expect(probe.status).toBe('failed');
    expect(probe.message).toContain('outbound_refused: 127.0.0.1 is a loopback address');
  });
});

describe('a run whose model the policy refuses', () => {
  let model: ModelServer;
  beforeAll(async () => {
    model = await startOpenAICompatibleServer();
  });
  afterAll(() => model.close());

  it('fails with the refusal, without reaching the model', async () => {
    allow(['127.0.0.1']);
    await addLoopbackModel(t, model, 'refused-model');
    const agent = await create('/api/v1/agents', { name: 'refused', config: { model: 'refused-model' } });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    allow([]);
    const started = await create('/api/v1/runs', { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'hello' }] } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const run = await settleRun(t, started.body.id);
    expect(run.status).toBe('failed');
    expect(run.failure.message).toContain('outbound_refused: 127.0.0.1 is a loopback address; allow it with OUTBOUND_ALLOW_PRIVATE');
    expect(model.requests).toHaveLength(0);
  });
});
