// OAuth 2.1 connections against an MCP server on loopback that requires it (the SDK's own server-side
// auth helpers: discovery metadata, dynamic client registration, PKCE, token, refresh, revocation):
// the whole flow through the public API (start → the authorization URL followed with a plain HTTP
// client, approved at once → the service's callback → the connection's tools listed and called in a
// run), a client registered beforehand instead of a dynamic one, a refresh of a short-lived access
// token, a refused refresh's status and the tools' error, revoke at the server, the state used once
// and bound to its authorization, tenancy, permissions, audit, and the tokens sealed at rest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/oauth-mcp-server.js';
import { settleRun } from '../helpers/runs.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let server: OAuthMcpServer;
let providerId: string;
let otherKey: string;
let readOnly: string;

beforeAll(async () => {
  server = await startOAuthMcpServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
  const provider = await t.rest('POST', '/api/v1/connector-providers', { body: { type: 'mcp', name: 'MCP', config: { url: server.url } } });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  providerId = provider.body.id;
});
afterAll(async () => {
  await t?.stop();
  await server?.close();
});

async function newConnection(name: string): Promise<string> {
  const created = await t.rest('POST', '/api/v1/connections', { body: { provider_id: providerId, name, config: { url: server.url } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

/** Starts the authorization and follows the authorization server's redirect: answers the callback URL (not yet visited). */
async function approve(connectionId: string): Promise<URL> {
  const started = await t.rest('POST', `/api/v1/connections/${connectionId}/authorize`, { body: {} });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const answer = await fetch(started.body.authorization_url, { redirect: 'manual' });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location')!);
}

/** Visits the callback as the browser would. */
const visit = (callback: URL | string) => fetch(callback, { redirect: 'manual' });

async function authorize(connectionId: string): Promise<void> {
  const back = await visit(await approve(connectionId));
  expect(back.status, await back.clone().text()).toBe(303);
  expect(back.headers.get('location')).toBe(`/connections/${connectionId}?oauth=authorized`);
}

const connection = async (id: string) => (await t.rest('GET', `/api/v1/connections/${id}`)).body;
const auditActions = async (id: string) =>
  ((await t.rest('GET', `/api/v1/audit-events?resource_id=${id}`)).body.items as { action: string; changes: any }[]).reverse();

async function runEcho(connectionId: string, message: string) {
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: {
      name: 'OAuth agent',
      config: {
        model: 'dev',
        connection_tools: [{ connection_id: connectionId }],
        model_settings: { script: [[{ tool_call: { id: 'c1', name: 'echo', arguments: { message } } }], [{ text: 'done' }]] },
      },
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const started = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'go' }] } },
  });
  expect(started.status).toBe(201);
  const run = await settleRun(t, started.body.id);
  const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items?limit=100`)).body.items as any[];
  return { run, result: items.find((item) => item.kind === 'tool_result')?.content };
}

describe('OAuth connections', () => {
  it('authorize: discovery, registration, PKCE, the callback; the tools are listed and called with the access token', async () => {
    const id = await newConnection('OAuth server');
    const started = await t.rest('POST', `/api/v1/connections/${id}/authorize`, { body: {} });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.redirect_url).toBe(`${t.url}/oauth/mcp/callback`);
    expect(Date.parse(started.body.expires_at)).toBeGreaterThan(Date.now());
    const url = new URL(started.body.authorization_url);
    expect(url.origin + url.pathname).toBe(new URL('/authorize', server.issuer).href);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('redirect_uri')).toBe(started.body.redirect_url);
    expect(url.searchParams.get('resource')).toBe(server.url);
    expect(url.searchParams.get('scope')).toBe('mcp:tools');
    // Registered dynamically, as a public client with the service's callback.
    const client = server.registered.at(-1)!;
    expect(url.searchParams.get('client_id')).toBe(client.client_id);
    expect(client.redirect_uris).toEqual([started.body.redirect_url]);
    expect(client.token_endpoint_auth_method).toBe('none');

    const approved = await fetch(url, { redirect: 'manual' });
    const back = await visit(approved.headers.get('location')!);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`/connections/${id}?oauth=authorized`);
    expect(back.headers.get('cache-control')).toBe('no-store');

    const view = await connection(id);
    expect(view).toMatchObject({ version: 2, oauth: { status: 'authorized', reason: null } });
    expect(Date.parse(view.oauth.expires_at)).toBeGreaterThan(Date.now() + 3_000_000);
    const gql = await t.graphql(`query ($id: ID!) { connection(id: $id) { oauth { status reason expiresAt } } }`, { id });
    expect(gql.data.connection.oauth.status).toBe('authorized');

    const tested = await t.rest('POST', `/api/v1/connections/${id}/test`);
    expect(tested.body).toMatchObject({ status: 'succeeded', tool_count: 1 });
    const bearersBefore = server.bearers.length;
    const { run, result } = await runEcho(id, 'over OAuth');
    expect(run.status, JSON.stringify(run.failure)).toBe('completed');
    expect(result).toMatchObject({ tool_name: 'echo', result: 'Echo: over OAuth' });
    const token = server.bearers.at(-1)!;
    expect(server.bearers.length).toBeGreaterThan(bearersBefore);
    expect(token).toMatch(/^at-/);

    // Sealed: neither the row nor the pending state nor an audit row holds a token.
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    const rows = await db.query(
      `SELECT (SELECT row_to_json(c)::text FROM connections c WHERE id = $1) AS row,
              (SELECT string_agg(changes::text, ',') FROM audit_events WHERE resource_id = $1) AS audit`,
      [id],
    );
    await db.end();
    expect(rows.rows[0].row).not.toContain(token);
    expect(rows.rows[0].audit).not.toContain(token);
    expect(JSON.stringify(view)).not.toContain(token);

    const audit = await auditActions(id);
    expect(audit.map((row) => row.action)).toEqual(['create', 'authorize_start', 'authorize']);
    expect(audit[1]!.changes).toMatchObject({ client: { to: 'registered' } });
    expect(audit[2]!.changes).toMatchObject({ oauth: { from: null, to: '[redacted]' }, oauth_status: { to: 'authorized' } });
  });

  it('a client registered beforehand (confidential: id and secret) is used instead of registering one', async () => {
    const id = await newConnection('Configured client');
    // Registered out of band, as an operator would at the server's console (here: its registration endpoint).
    const registered = await fetch(new URL('/register', server.issuer), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'operator-registered',
        redirect_uris: [`${t.url}/oauth/mcp/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'client_secret_post',
      }),
    });
    const client = (await registered.json()) as { client_id: string; client_secret: string };
    expect(client.client_secret).toBeTruthy();
    const registrations = server.registered.length;
    const started = await t.rest('POST', `/api/v1/connections/${id}/authorize`, {
      body: { client_id: client.client_id, client_secret: client.client_secret, scope: 'mcp:tools' },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(new URL(started.body.authorization_url).searchParams.get('client_id')).toBe(client.client_id);
    expect(server.registered.length).toBe(registrations);
    const approved = await fetch(started.body.authorization_url, { redirect: 'manual' });
    expect((await visit(approved.headers.get('location')!)).status).toBe(303);
    expect((await t.rest('POST', `/api/v1/connections/${id}/test`)).body).toMatchObject({ status: 'succeeded', tool_count: 1 });
    const audit = await auditActions(id);
    expect(audit.find((row) => row.action === 'authorize_start')!.changes).toMatchObject({ client: { to: 'configured' } });
    expect(JSON.stringify(audit)).not.toContain(client.client_secret);
  });

  it('the state is used once, must be known and carries the refusal of the authorization server', async () => {
    const id = await newConnection('State checks');
    const callback = await approve(id);
    // Another state, none, a wrong one: refused without touching the authorization.
    const wrong = new URL(callback);
    wrong.searchParams.set('state', 'not-the-state');
    for (const bad of [wrong, new URL(`${t.url}/oauth/mcp/callback?code=x`)]) {
      const answer = await visit(bad);
      expect(answer.status).toBe(400);
      expect((await answer.json()).error).toMatchObject({ code: 'invalid_argument', details: { field: 'state' } });
    }
    expect((await visit(callback)).status).toBe(303);
    // Replayed: the state was used.
    const replay = await visit(callback);
    expect(replay.status).toBe(400);
    expect((await replay.json()).error.message).toMatch(/unknown, already used or expired/);

    // The authorization server's refusal is said, and uses the state up.
    const refused = await approve(id);
    refused.searchParams.delete('code');
    refused.searchParams.set('error', 'access_denied');
    const denied = await visit(refused);
    expect(denied.status).toBe(409);
    expect((await denied.json()).error.message).toMatch(/refused: access_denied/);
    expect((await visit(refused)).status).toBe(400);
  });

  it('a short-lived access token is refreshed before use; the new token is sent', async () => {
    server.accessTtlSeconds = 30; // inside the refresh margin: every use refreshes
    try {
      const id = await newConnection('Refreshing');
      await authorize(id);
      const first = await connection(id);
      const refreshes = server.grants.filter((g) => g === 'refresh_token').length;
      const tested = await t.rest('POST', `/api/v1/connections/${id}/test`);
      expect(tested.body).toMatchObject({ status: 'succeeded', tool_count: 1 });
      expect(server.grants.filter((g) => g === 'refresh_token').length).toBe(refreshes + 1);
      const after = await connection(id);
      expect(after.oauth.status).toBe('authorized');
      expect(Date.parse(after.oauth.expires_at)).toBeGreaterThan(Date.parse(first.oauth.expires_at));
      // A refresh is no change of the caller's: the version stays.
      expect(after.version).toBe(first.version);
    } finally {
      server.accessTtlSeconds = 3600;
    }
  });

  it('a refused refresh is recorded on the connection, and its tools fail with that reason at once', async () => {
    server.accessTtlSeconds = 30;
    try {
      const id = await newConnection('Refused refresh');
      await authorize(id);
      server.refuseRefresh = true;
      const { run } = await runEcho(id, 'never sent');
      expect(run.status).toBe('failed');
      expect(run.failure.message).toMatch(/OAuth authorization of the connection "Refused refresh".*could not be refreshed.*invalid_grant/);
      const view = await connection(id);
      expect(view.oauth).toMatchObject({ status: 'refresh_failed' });
      expect(view.oauth.reason).toMatch(/invalid_grant/);
      // Later uses answer the recorded reason without asking the server again.
      const grants = server.grants.length;
      const tested = await t.rest('POST', `/api/v1/connections/${id}/test`);
      expect(tested.status).toBe(409);
      expect(tested.body.error).toMatchObject({ code: 'failed_precondition' });
      expect(server.grants.length).toBe(grants);
      expect((await auditActions(id)).map((row) => row.action)).toContain('refresh_failed');
      // Authorizing again clears it.
      server.refuseRefresh = false;
      server.accessTtlSeconds = 3600;
      await authorize(id);
      expect((await connection(id)).oauth).toMatchObject({ status: 'authorized', reason: null });
    } finally {
      server.refuseRefresh = false;
      server.accessTtlSeconds = 3600;
    }
  });

  it('revoke: the tokens are revoked at the server and removed; the tools then fail', async () => {
    const id = await newConnection('Revoked');
    await authorize(id);
    expect((await t.rest('POST', `/api/v1/connections/${id}/test`)).body.status).toBe('succeeded');
    const token = server.bearers.at(-1)!;
    const revoked = await t.rest('POST', `/api/v1/connections/${id}/revoke`);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body).toMatchObject({ oauth: null, credential_configured: false });
    expect(server.revoked).toContain(token);
    expect(server.revoked.some((value) => value.startsWith('rt-'))).toBe(true);
    const audit = (await auditActions(id)).at(-1)!;
    expect(audit).toMatchObject({ action: 'revoke', changes: { oauth_revoked_at_server: 'revoked' } });
    const tested = await t.rest('POST', `/api/v1/connections/${id}/test`);
    expect(tested.body.status).toBe('failed');
    expect(tested.body.message).toMatch(/401|invalid_token|nauthorized/i);
  });

  it('tenancy, permissions and input', async () => {
    const id = await newConnection('Guarded');
    const other = await t.rest('POST', `/api/v1/connections/${id}/authorize`, { body: {}, token: otherKey });
    expect(other.status).toBe(404);
    expect((await t.rest('POST', `/api/v1/connections/${id}/authorize`, { body: {}, token: readOnly })).status).toBe(403);
    const gqlOther = await t.graphql(
      `mutation ($id: ID!) { startConnectionAuthorization(id: $id) { authorizationUrl } }`,
      { id },
      { token: otherKey },
    );
    expect(gqlOther.errors?.[0]?.extensions?.code).toBe('not_found');
    const noClient = await t.rest('POST', `/api/v1/connections/${id}/authorize`, { body: { client_secret: 'secret-without-id' } });
    expect(noClient.status).toBe(400);
    expect(noClient.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'client_secret' } });
    const unknownKey = await t.rest('POST', `/api/v1/connections/${id}/authorize`, { body: { client: 'x' } });
    expect(unknownKey.status).toBe(400);
    // A server without OAuth metadata: said so, nothing stored.
    const plain = await t.rest('POST', '/api/v1/connections', {
      body: { provider_id: providerId, name: 'No OAuth', config: { url: 'http://127.0.0.1:1/mcp' } },
    });
    const failed = await t.rest('POST', `/api/v1/connections/${plain.body.id}/authorize`, { body: {} });
    expect(failed.status).toBe(409);
    expect(failed.body.error.message).toMatch(/could not start/);
  });
});
