// Connections through REST and GraphQL against the reference MCP server on loopback: create, read,
// list, PATCH under the credential rule, revoke, test (connect and list tools), ETags, no-ops,
// validation, permissions, tenancy, and the credential never in a response, the database or a log line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { everythingStdioConfig, startEverythingServer, type McpTestServer } from '../helpers/mcp-servers.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

const TOKEN = 'mcp-secret-token-0123456789';
let t: TestApp;
let mcp: McpTestServer;
let otherKey: string;
let readOnly: string;
let writeOnly: string;
let providerId: string;
const logLines: string[] = [];

beforeAll(async () => {
  mcp = await startEverythingServer(TOKEN);
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'], allowStdioConnectors: true }, undefined, { logLines });
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
  writeOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read,write' })).token;
  const provider = await t.rest('POST', '/api/v1/connector-providers', { body: { type: 'mcp', name: 'MCP', config: { url: mcp.url } } });
  expect(provider.status).toBe(201);
  providerId = provider.body.id;
});
afterAll(async () => {
  await t?.stop();
  await mcp?.close();
});

const create = (body: Record<string, unknown>, token?: string) =>
  t.rest('POST', '/api/v1/connections', { body: { provider_id: providerId, ...body }, ...(token ? { token } : {}) });

async function auditRows(id: string) {
  return (await t.rest('GET', `/api/v1/audit-events?resource_id=${id}`)).body.items as { action: string; changes: unknown }[];
}

describe('connections', () => {
  it('create with a write-only credential (sealed), read with an ETag, and test against the real server', async () => {
    const created = await create({
      name: 'Everything',
      description: 'the reference server',
      config: { transport: 'streamable_http', url: mcp.url },
      credential: { bearer_token: TOKEN },
      labels: { team: 'core' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      provider_id: providerId,
      name: 'Everything',
      config: { transport: 'streamable_http', url: mcp.url },
      enabled: true,
      labels: { team: 'core' },
      credential_configured: true,
      version: 1,
    });
    expect(created.body.id).toMatch(/^con_/);
    expect(created.headers.get('etag')).toBe(`"${created.body.id}:1"`);
    expect(JSON.stringify(created.body)).not.toContain(TOKEN);

    const read = await t.rest('GET', `/api/v1/connections/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(`"${created.body.id}:1"`);
    expect(read.body).toEqual(created.body);

    // Sealed at rest: neither the row nor its audit row holds the token.
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    const row = await client.query(`SELECT row_to_json(c)::text AS row FROM connections c WHERE id = $1`, [created.body.id]);
    const audit = await client.query(`SELECT changes::text AS c FROM audit_events WHERE resource_id = $1`, [created.body.id]);
    await client.end();
    expect(row.rows[0].row).not.toContain(TOKEN);
    expect(audit.rows.map((r) => r.c).join()).not.toContain(TOKEN);

    const tested = await t.rest('POST', `/api/v1/connections/${created.body.id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.body.status).toBe('succeeded');
    expect(tested.body.tool_count).toBeGreaterThan(5);
    expect(mcp.requests.some((h) => h.authorization === `Bearer ${TOKEN}`)).toBe(true);

    // Over GraphQL: the same object, the same answer.
    const gql = await t.graphql(`query ($id: ID!) { connection(id: $id) { id name credentialConfigured etag } node(id: $id) { id } }`, {
      id: created.body.id,
    });
    expect(gql.data.connection).toEqual({
      id: created.body.id,
      name: 'Everything',
      credentialConfigured: true,
      etag: `"${created.body.id}:1"`,
    });
    expect(gql.data.node).toEqual({ id: created.body.id });
  });

  it('a wrong credential fails the test with a message that carries no secret; tests need `run`', async () => {
    const wrong = await create({ name: 'Wrong key', config: { url: mcp.url }, credential: { bearer_token: 'wrong-token-987654321' } });
    const tested = await t.rest('POST', `/api/v1/connections/${wrong.body.id}/test`);
    expect(tested.body.status).toBe('failed');
    expect(tested.body.tool_count).toBeNull();
    expect(tested.body.message).toMatch(/unauthorized|401/);
    expect(tested.body.message).not.toContain('wrong-token-987654321');
    expect((await t.rest('POST', `/api/v1/connections/${wrong.body.id}/test`, { token: writeOnly })).status).toBe(403);
    // Unreachable: failed, not an error.
    const down = await create({ name: 'Down', config: { url: 'http://127.0.0.1:1/mcp' } });
    expect((await t.rest('POST', `/api/v1/connections/${down.body.id}/test`)).body.status).toBe('failed');
  });

  it('a stdio connection (operator allowance) runs the reference server as a local process', async () => {
    const created = await create({ name: 'Local', config: everythingStdioConfig() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const tested = await t.rest('POST', `/api/v1/connections/${created.body.id}/test`);
    expect(tested.body).toMatchObject({ status: 'succeeded', message: null });
    expect(tested.body.tool_count).toBeGreaterThan(5);
  });

  it('validate their input, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ config: { url: mcp.url } }, 'name'],
      [{ name: 'x', config: {} }, 'config.url'],
      [{ name: 'x', config: { url: 'ftp://example.com/mcp' } }, 'config.url'],
      [{ name: 'x', config: { url: 'http://example.com/mcp' } }, 'config.url'],
      [{ name: 'x', config: { transport: 'stdio' } }, 'config.command'],
      [{ name: 'x', config: { url: mcp.url, extra: 1 } }, 'config.extra'],
      [{ name: 'x', config: { url: mcp.url }, credential: { password: 'p' } }, 'credential.password'],
      [{ name: 'x', config: { url: mcp.url }, credential: { headers: { 'bad header': 'v' } } }, 'credential.headers.bad header'],
      [{ name: 'x', config: { url: mcp.url }, credential: { headers: { Host: 'v' } } }, 'credential.headers.Host'],
      [{ name: 'x', config: { url: mcp.url }, credential: { headers: { 'X-A': 'a\nb' } } }, 'credential.headers.X-A'],
      [{ name: 'x', config: { url: mcp.url }, labels: { a: 1 } }, 'labels.a'],
    ];
    for (const [body, field] of cases) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error, JSON.stringify(body)).toMatchObject({ code: 'invalid_argument', details: { field } });
    }
    const unknown = await t.rest('POST', '/api/v1/connections', {
      body: { provider_id: 'prv_01J00000000000000000000000', name: 'x', config: {} },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details).toEqual({ field: 'provider_id' });
    const modelProvider = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'dev' } });
    expect((await create({ name: 'x', config: { url: mcp.url }, provider_id: modelProvider.body.id })).status).toBe(404);
    expect((await t.rest('POST', '/api/v1/connections', { body: { name: 'x', provider_id: providerId, secret: 1 } })).status).toBe(400);
  });

  it('PATCH: If-Match, no-ops, `enabled`, and the credential rule of provider PATCH', async () => {
    const created = await create({ name: 'Patched', config: { url: mcp.url }, credential: { bearer_token: TOKEN } });
    const id = created.body.id;
    let etag = created.headers.get('etag')!;
    expect((await t.rest('PATCH', `/api/v1/connections/${id}`, { body: { name: 'n' } })).status).toBe(428);
    expect((await t.rest('PATCH', `/api/v1/connections/${id}`, { headers: { 'if-match': `"${id}:9"` }, body: { name: 'n' } })).status).toBe(
      412,
    );

    const same = await t.rest('PATCH', `/api/v1/connections/${id}`, { headers: { 'if-match': etag }, body: { name: 'Patched' } });
    expect(same.body.version).toBe(1);
    expect((await auditRows(id)).length).toBe(1);

    // Changing config while a credential is stored needs the credential replaced or removed too.
    const otherUrl = `${mcp.url}?tenant=2`;
    const refused = await t.rest('PATCH', `/api/v1/connections/${id}`, {
      headers: { 'if-match': etag },
      body: { config: { url: otherUrl } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'credential', missing: ['credential'] } });
    const moved = await t.rest('PATCH', `/api/v1/connections/${id}`, {
      headers: { 'if-match': etag },
      body: { config: { url: otherUrl }, credential: { bearer_token: TOKEN, headers: { 'X-Tenant': '2' } } },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ version: 2, credential_configured: true, config: { url: otherUrl } });
    etag = moved.headers.get('etag')!;
    // Omitting the credential keeps it; the same config is no change.
    const kept = await t.rest('PATCH', `/api/v1/connections/${id}`, {
      headers: { 'if-match': etag },
      body: { config: { url: otherUrl }, enabled: false },
    });
    expect(kept.body).toMatchObject({ version: 3, enabled: false, credential_configured: true });
    etag = kept.headers.get('etag')!;
    // A disabled connection refuses new use: the test answers `disabled`.
    const disabled = await t.rest('POST', `/api/v1/connections/${id}/test`);
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe('disabled');
    const removed = await t.rest('PATCH', `/api/v1/connections/${id}`, {
      headers: { 'if-match': etag },
      body: { credential: null, enabled: true },
    });
    expect(removed.body).toMatchObject({ version: 4, enabled: true, credential_configured: false });
    expect(JSON.stringify(await auditRows(id))).not.toContain(TOKEN);
    // A connection stays with its provider.
    const provider2 = await t.rest('POST', '/api/v1/connector-providers', {
      body: { type: 'mcp', name: 'MCP 2', config: { url: mcp.url } },
    });
    const moveProvider = await t.rest('PATCH', `/api/v1/connections/${id}`, {
      headers: { 'if-match': removed.headers.get('etag')! },
      body: { provider_id: provider2.body.id },
    });
    expect(moveProvider.status).toBe(400);
  });

  it('concurrent writers with the same ETag: exactly one wins', async () => {
    const created = await create({ name: 'Race', config: { url: mcp.url } });
    const etag = created.headers.get('etag')!;
    const results = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        t.rest('PATCH', `/api/v1/connections/${created.body.id}`, { headers: { 'if-match': etag }, body: { description: name } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412]);
  });

  it('revoke removes the credential (audited); a second revoke changes nothing', async () => {
    const created = await create({ name: 'Revoked', config: { url: mcp.url }, credential: { bearer_token: TOKEN } });
    const id = created.body.id;
    expect((await t.rest('POST', `/api/v1/connections/${id}/revoke`, { headers: { 'if-match': `"${id}:7"` } })).status).toBe(412);
    const revoked = await t.rest('POST', `/api/v1/connections/${id}/revoke`, { headers: { 'x-request-id': 'revoke-request-1' } });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ credential_configured: false, version: 2 });
    expect(revoked.headers.get('etag')).toBe(`"${id}:2"`);
    const rows = await auditRows(id);
    expect(rows.map((r) => r.action)).toEqual(['revoke', 'create']);
    expect(rows[0]).toMatchObject({
      request_id: 'revoke-request-1',
      changes: { credentialCiphertext: { from: '[redacted]', to: '[redacted]' } },
    });
    const again = await t.rest('POST', `/api/v1/connections/${id}/revoke`);
    expect(again.body.version).toBe(2);
    expect((await auditRows(id)).length).toBe(2);
    // Without its credential the server refuses the test.
    expect((await t.rest('POST', `/api/v1/connections/${id}/test`)).body.status).toBe('failed');
  });

  it('list with label, q, enabled, provider and cursor', async () => {
    await create({ name: 'Listed alpha', description: 'searchable', config: { url: mcp.url }, labels: { list: 'yes' } });
    await create({ name: 'Listed beta', config: { url: mcp.url }, labels: { list: 'yes' }, enabled: false });
    const labelled = await t.rest('GET', '/api/v1/connections?label=list:yes');
    expect(labelled.body.items.map((c: { name: string }) => c.name)).toEqual(['Listed beta', 'Listed alpha']);
    expect(
      (await t.rest('GET', '/api/v1/connections?label=list:yes&enabled=true')).body.items.map((c: { name: string }) => c.name),
    ).toEqual(['Listed alpha']);
    expect((await t.rest('GET', '/api/v1/connections?q=SEARCHABLE')).body.items.map((c: { name: string }) => c.name)).toEqual([
      'Listed alpha',
    ]);
    const first = await t.rest('GET', '/api/v1/connections?label=list:yes&limit=1');
    expect(first.body.items).toHaveLength(1);
    const second = await t.rest('GET', `/api/v1/connections?label=list:yes&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items[0].name).toBe('Listed alpha');
    expect(second.body.next_cursor).toBeNull();
    expect((await t.rest('GET', `/api/v1/connections?provider_id=${providerId}&limit=100`)).body.items.length).toBeGreaterThan(3);
    expect((await t.rest('GET', '/api/v1/connections?limit=0')).status).toBe(400);
    expect((await t.rest('GET', '/api/v1/connections?cursor=nonsense')).status).toBe(400);
  });

  it('another workspace sees nothing (404, empty lists, null nodes); read-only keys cannot write', async () => {
    const created = await create({ name: 'Private', config: { url: mcp.url }, credential: { bearer_token: TOKEN } });
    const id = created.body.id;
    const etag = created.headers.get('etag')!;
    const other = { token: otherKey };
    expect((await t.rest('GET', `/api/v1/connections/${id}`, other)).status).toBe(404);
    expect(
      (await t.rest('PATCH', `/api/v1/connections/${id}`, { ...other, headers: { 'if-match': etag }, body: { name: 'x' } })).status,
    ).toBe(404);
    expect((await t.rest('POST', `/api/v1/connections/${id}/revoke`, other)).status).toBe(404);
    expect((await t.rest('POST', `/api/v1/connections/${id}/test`, other)).status).toBe(404);
    expect((await t.rest('GET', '/api/v1/connections', other)).body.items).toEqual([]);
    expect((await t.graphql(`query ($id: ID!) { node(id: $id) { id } }`, { id }, other)).data.node).toBeNull();
    // Nor may a connection name another workspace's provider.
    expect((await create({ name: 'x', config: { url: mcp.url } }, otherKey)).status).toBe(404);

    const ro = { token: readOnly };
    expect((await create({ name: 'x', config: { url: mcp.url } }, readOnly)).status).toBe(403);
    expect((await t.rest('PATCH', `/api/v1/connections/${id}`, { ...ro, headers: { 'if-match': etag }, body: { name: 'x' } })).status).toBe(
      403,
    );
    expect((await t.rest('POST', `/api/v1/connections/${id}/revoke`, ro)).status).toBe(403);
    expect((await t.rest('POST', `/api/v1/connections/${id}/test`, ro)).status).toBe(403);
    expect((await t.rest('GET', `/api/v1/connections/${id}`, ro)).status).toBe(200);
  });

  it('no log line carries a credential', () => {
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) {
      expect(line).not.toContain(TOKEN);
      expect(line).not.toContain('wrong-token-987654321');
    }
  });
});
