// Test probes of the other provider types against loopback servers speaking their protocols
// (OpenAI, Gemini, Azure OpenAI model lists; the Docker Engine ping; an MCP server), and no
// credential in any log line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { newId } from '../../src/lib/ids.js';

let t: TestApp;
const logLines: string[] = [];
const seen: { path: string; headers: IncomingMessage['headers'] }[] = [];
let server: Server;
let base = '';
const SECRET = 'sk-probe-secret-9876';

beforeAll(async () => {
  server = createServer(async (req, res) => {
    seen.push({ path: req.url!, headers: req.headers });
    if (req.url === '/_ping') return void res.writeHead(200).end('OK');
    if (req.url?.startsWith('/mcp')) {
      // A real MCP server (the SDK's), stateless, with one tool.
      const mcp = new McpServer({ name: 'loop', version: '1' });
      mcp.tool('echo', 'Echo back', async () => ({ content: [{ type: 'text', text: 'ok' }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await mcp.connect(transport);
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      await transport.handleRequest(req, res, chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined);
      return;
    }
    const authorized =
      req.headers.authorization === `Bearer ${SECRET}` ||
      req.headers.authorization === `Token ${SECRET}` ||
      req.headers['x-goog-api-key'] === SECRET ||
      req.headers['api-key'] === SECRET;
    if (!authorized)
      return void res.writeHead(401, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: `bad key ${String(req.headers.authorization ?? req.headers['x-goog-api-key'] ?? req.headers['api-key'])}`,
        }),
      );
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [], models: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] }, undefined, { logLines });
});
afterAll(async () => {
  await t.stop();
  await new Promise((resolve) => server.close(resolve));
});

async function probe(kind: string, body: Record<string, unknown>) {
  const created = await t.rest('POST', `/api/v1/${kind}-providers`, { body: { name: 'p', ...body } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return (await t.rest('POST', `/api/v1/${kind}-providers/${created.body.id}/test`)).body;
}

describe('provider probes', () => {
  it('OpenAI: GET /models with the bearer key', async () => {
    expect(await probe('model', { type: 'openai', config: { base_url: `${base}/v1` }, credential: { api_key: SECRET } })).toEqual({
      status: 'succeeded',
      message: null,
    });
    expect(seen.at(-1)).toMatchObject({ path: '/v1/models', headers: { authorization: `Bearer ${SECRET}` } });
    const failed = await probe('model', { type: 'openai', config: { base_url: `${base}/v1` }, credential: { api_key: `${SECRET}-wrong` } });
    expect(failed.status).toBe('failed');
    expect(failed.message).not.toContain(SECRET);
  });

  it('Gemini: GET /models with x-goog-api-key', async () => {
    expect((await probe('model', { type: 'google', config: { base_url: `${base}/v1beta` }, credential: { api_key: SECRET } })).status).toBe(
      'succeeded',
    );
    expect(seen.at(-1)).toMatchObject({ path: '/v1beta/models?pageSize=1', headers: { 'x-goog-api-key': SECRET } });
  });

  it('Azure OpenAI: GET /models with api-key and api-version', async () => {
    expect(
      (
        await probe('model', {
          type: 'azure',
          config: { base_url: `${base}/openai`, api_version: '2024-10-21' },
          credential: { api_key: SECRET },
        })
      ).status,
    ).toBe('succeeded');
    expect(seen.at(-1)).toMatchObject({ path: '/openai/models?api-version=2024-10-21', headers: { 'api-key': SECRET } });
  });

  it('Bedrock and web types are unsupported; an unreachable provider fails with a time-bounded message', async () => {
    expect(
      (
        await probe('model', {
          type: 'bedrock',
          config: { region: 'eu-west-1' },
          credential: { access_key_id: 'AKIA', secret_access_key: SECRET },
        })
      ).status,
    ).toBe('unsupported');
    expect((await probe('web', { type: 'brave', credential: { api_key: SECRET } })).status).toBe('unsupported');
    const unreachable = await probe('model', { type: 'openai_compatible', config: { base_url: 'http://127.0.0.1:1/v1' } });
    expect(unreachable).toMatchObject({ status: 'failed', message: expect.stringMatching(/could not reach/) });
  });

  it('the container engine test only pings', async () => {
    const before = seen.length;
    expect((await probe('environment', { type: 'docker', config: { endpoint: base } })).status).toBe('succeeded');
    expect(seen.slice(before).map((r) => r.path)).toEqual(['/_ping']);
    expect((await probe('environment', { type: 'e2b', credential: { api_key: SECRET } })).status).toBe('unsupported');
  });

  it('an MCP connector connects and lists its tools', async () => {
    expect(await probe('connector', { type: 'mcp', config: { url: `${base}/mcp` } })).toEqual({ status: 'succeeded', message: '1 tools' });
  });

  it('stdio MCP servers need the operator allowance, then connect and list tools', async () => {
    const config = { transport: 'stdio', command: process.execPath, args: ['--import', 'tsx', 'test/helpers/mcp-stdio-server.ts'] };
    const refused = await t.rest('POST', '/api/v1/connector-providers', { body: { type: 'mcp', name: 'local', config } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe('config.transport');
    const allowed = await startTestApp({ allowStdioConnectors: true });
    try {
      const created = await allowed.rest('POST', '/api/v1/connector-providers', { body: { type: 'mcp', name: 'local', config } });
      expect(created.status).toBe(201);
      expect((await allowed.rest('POST', `/api/v1/connector-providers/${created.body.id}/test`)).body).toEqual({
        status: 'succeeded',
        message: '2 tools',
      });
    } finally {
      await allowed.stop();
    }
  });

  it('memory: the built-in store lists one page of an unused namespace; Mem0 is not offered', async () => {
    expect((await probe('memory', { type: 'builtin' })).status).toBe('succeeded');
    // The contract's two memory types serve records; Mem0's API cannot (docs/api/memories.md).
    const types = (await t.rest('GET', '/api/v1/provider-types/memory')).body.items.map((i: { type: string }) => i.type);
    expect(types).toEqual(['builtin', 'pinecone']);
    const mem0 = await t.rest('POST', '/api/v1/memory-providers', {
      body: { name: 'm', type: 'mem0', config: { base_url: base }, credential: { api_key: SECRET } },
    });
    expect(mem0.status).toBe(400);
    expect(mem0.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'type' } });

    // A mem0 provider made while the type was offered (written as that code did): it still resolves,
    // its test still lists one page of an unused user id, and it takes no new memories.
    const builtin = (await t.rest('POST', '/api/v1/memory-providers', { body: { name: 'b', type: 'builtin' } })).body;
    const legacy = await t.app.deps.db.provider.create({
      data: {
        id: newId('provider'),
        workspaceId: t.workspaceId,
        kind: 'memory',
        type: 'mem0',
        name: 'legacy mem0',
        config: { base_url: base },
        credentialCiphertext: t.app.deps.secrets.encryptJson({ api_key: SECRET }),
        createdById: builtin.created_by_id,
        updatedById: builtin.created_by_id,
      },
    });
    expect((await t.rest('GET', `/api/v1/memory-providers/${legacy.id}`)).body).toMatchObject({
      type: 'mem0',
      credential_configured: true,
    });
    expect((await t.rest('POST', `/api/v1/memory-providers/${legacy.id}/test`)).body.status).toBe('succeeded');
    expect(seen.at(-1)!.path).toMatch(/^\/v1\/memories\/\?user_id=wsa-probe-\d+&page=1&page_size=1$/);
    expect(seen.at(-1)!.headers.authorization).toBe(`Token ${SECRET}`);
    const memory = await t.rest('POST', '/api/v1/memories', { body: { name: 'on mem0', provider_id: legacy.id } });
    expect(memory.status).toBe(400);
    expect(memory.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'provider_id' } });
  });

  it('never writes a credential to the logs', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(SECRET);
  });
});
