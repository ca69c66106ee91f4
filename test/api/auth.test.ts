// Authentication and permissions over real HTTP and graphql-ws.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createUser, createWorkspace, revokeApiKey } from '../../src/features/access/admin.js';

let t: TestApp;
let otherWorkspace: { id: string; apiKey: string };
beforeAll(async () => {
  t = await startTestApp();
  const other = await createWorkspace(t.app.deps, { name: 'other' });
  otherWorkspace = { id: other.workspace.id, apiKey: other.apiKey.token };
  await createUser(t.app.deps, {
    email: 'Ada@Example.com',
    password: 'correct horse',
    workspaceId: t.workspaceId,
    role: 'writer',
    name: 'Ada',
  });
  await createUser(t.app.deps, { email: 'rita@example.com', password: 'reader pass', workspaceId: t.workspaceId, role: 'reader' });
});
afterAll(async () => {
  await t.stop();
});

async function login(email: string, password: string) {
  const response = await t.rest('POST', '/api/auth/login', { token: null, body: { email, password } });
  expect(response.status).toBe(200);
  return response.body as {
    token: string;
    session_id: string;
    expires_at: string;
    user: { id: string };
    workspaces: { id: string; role: string }[];
  };
}

describe('API keys', () => {
  it('act in their own workspace without a header, and with their own workspace named', async () => {
    expect((await t.rest('GET', '/api/v1/workspace')).body.id).toBe(t.workspaceId);
    expect((await t.rest('GET', '/api/v1/workspace', { headers: { 'x-workspace-id': t.workspaceId } })).status).toBe(200);
    expect(t.apiKey).toMatch(/^wsk_[A-Za-z0-9_-]{43}$/);
  });

  it('naming another (or an unknown) workspace is forbidden', async () => {
    for (const workspace of [otherWorkspace.id, 'wsp_01AAAAAAAAAAAAAAAAAAAAAAAA']) {
      const response = await t.rest('GET', '/api/v1/workspace', { headers: { 'x-workspace-id': workspace } });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
    }
  });

  it('a missing, garbled, unknown or non-Bearer credential answers 401 unauthenticated', async () => {
    const cases: Record<string, string | undefined>[] = [
      {},
      { authorization: `Bearer wsk_${'x'.repeat(43)}` },
      { authorization: 'Bearer garbage' },
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      { authorization: 'Bearer' },
    ];
    for (const headers of cases) {
      const response = await t.rest('GET', '/api/v1/workspace', { token: null, headers: headers as Record<string, string> });
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(response.body.error.code).toBe('unauthenticated');
    }
    const graphql = await t.graphql('{ workspace { id } }', {}, { token: null });
    expect(graphql.status).toBe(401);
    expect(graphql.errors?.[0]?.extensions?.code).toBe('unauthenticated');
  });

  it('a revoked key stops working at once', async () => {
    const key = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' });
    expect((await t.rest('GET', '/api/v1/workspace', { token: key.token })).status).toBe(200);
    await revokeApiKey(t.app.deps, key.id);
    expect((await t.rest('GET', '/api/v1/workspace', { token: key.token })).status).toBe(401);
  });

  it('a read-only key can read but not change (403 permission_denied), and cannot read the audit trail', async () => {
    const key = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: ['read'] });
    const read = await t.rest('GET', '/api/v1/workspace', { token: key.token });
    expect(read.status).toBe(200);
    const patch = await t.rest('PATCH', '/api/v1/workspace', {
      token: key.token,
      headers: { 'if-match': read.headers.get('etag')! },
      body: { name: 'nope' },
    });
    expect(patch.status).toBe(403);
    expect(patch.body.error).toMatchObject({ code: 'permission_denied', details: { permission: 'admin' } });
    expect((await t.rest('GET', '/api/v1/workspace')).body.name).not.toBe('nope');
    const audit = await t.rest('GET', '/api/v1/audit-events', { token: key.token });
    expect(audit.status).toBe(403);
  });
});

describe('login sessions', () => {
  it('log in with email + password and act in the workspace named by X-Workspace-ID', async () => {
    const session = await login('ada@example.com', 'correct horse');
    expect(session.token).toMatch(/^wsl_/);
    expect(session.workspaces).toEqual([expect.objectContaining({ id: t.workspaceId, role: 'writer' })]);
    const response = await t.rest('GET', '/api/v1/workspace', { token: session.token, headers: { 'x-workspace-id': t.workspaceId } });
    expect(response.status).toBe(200);
    const viewer = await t.graphql(
      '{ viewer { principalId principalKind permissions } }',
      {},
      { token: session.token, headers: { 'x-workspace-id': t.workspaceId } },
    );
    expect(viewer.data.viewer).toEqual({ principalId: session.user.id, principalKind: 'user', permissions: ['read', 'run', 'write'] });
  });

  it('require X-Workspace-ID, and refuse workspaces the user is not a member of', async () => {
    const session = await login('ada@example.com', 'correct horse');
    const missing = await t.rest('GET', '/api/v1/workspace', { token: session.token });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.field).toBe('X-Workspace-ID');
    const foreign = await t.rest('GET', '/api/v1/workspace', { token: session.token, headers: { 'x-workspace-id': otherWorkspace.id } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('forbidden');
  });

  it('get the permissions of their role: a reader cannot change the workspace', async () => {
    const session = await login('rita@example.com', 'reader pass');
    const headers = { 'x-workspace-id': t.workspaceId };
    const read = await t.rest('GET', '/api/v1/workspace', { token: session.token, headers });
    const patch = await t.rest('PATCH', '/api/v1/workspace', {
      token: session.token,
      headers: { ...headers, 'if-match': read.headers.get('etag')! },
      body: { name: 'x' },
    });
    expect(patch.status).toBe(403);
    expect(patch.body.error.code).toBe('permission_denied');
  });

  it('logout revokes the session at once', async () => {
    const session = await login('ada@example.com', 'correct horse');
    const headers = { 'x-workspace-id': t.workspaceId };
    expect((await t.rest('POST', '/api/auth/logout', { token: session.token })).status).toBe(204);
    expect((await t.rest('GET', '/api/v1/workspace', { token: session.token, headers })).status).toBe(401);
    expect((await t.rest('POST', '/api/auth/logout', { token: session.token })).status).toBe(401);
  });

  it('refuse wrong passwords and unknown users alike, and bad bodies with 422', async () => {
    for (const body of [
      { email: 'ada@example.com', password: 'wrong' },
      { email: 'nobody@example.com', password: 'correct horse' },
    ]) {
      const response = await t.rest('POST', '/api/auth/login', { token: null, body });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('unauthenticated');
    }
    const missing = await t.rest('POST', '/api/auth/login', { token: null, body: { email: 'ada@example.com' } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'password'], type: 'value_error' });
    const unknown = await t.rest('POST', '/api/auth/login', { token: null, body: { email: 'a@b.c', password: 'x', remember: true } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['body', 'remember']);
  });

  it('log in through the GraphQL mutation too', async () => {
    const { data, errors } = await t.graphql(
      'mutation { login(email: "ada@example.com", password: "correct horse") { token user { email } } }',
      {},
      { token: null },
    );
    expect(errors).toBeUndefined();
    expect(data.login.user.email).toBe('ada@example.com');
    const logout = await t.graphql('mutation { logout { loggedOut } }', {}, { token: data.login.token });
    expect(logout.data.logout).toEqual({ loggedOut: true });
  });
});

describe('graphql-ws', () => {
  function client(connectionParams: Record<string, unknown>): Client {
    return createClient({
      url: t.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
      lazy: true,
    });
  }

  it('streams workspace changes to an authenticated subscriber', async () => {
    const ws = client({ authorization: `Bearer ${t.apiKey}` });
    const received: any[] = [];
    let resolveFirst: () => void;
    const first = new Promise<void>((resolve) => (resolveFirst = resolve));
    const unsubscribe = ws.subscribe(
      { query: 'subscription { workspaceUpdated { name version } }' },
      {
        next: (value) => {
          received.push(value);
          resolveFirst();
        },
        error: (error) => received.push({ error }),
        complete: () => undefined,
      },
    );
    // graphql-ws does not acknowledge a subscription: change the workspace until the first change arrives.
    let changes = 0;
    let sawFirst = false;
    void first.then(() => (sawFirst = true));
    while (!sawFirst) {
      await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': '*' }, body: { name: `streamed ${++changes}` } });
      await Promise.race([first, new Promise((resolve) => setTimeout(resolve, 50))]);
    }
    const current = (await t.rest('GET', '/api/v1/workspace')).body;
    const { name, version } = received[0].data.workspaceUpdated;
    expect(name).toMatch(/^streamed \d+$/);
    // The change it reports is a real one: its version is the one that change produced.
    expect(version).toBe(current.version - (changes - Number(name.split(' ')[1])));
    unsubscribe();
    await ws.dispose();
  });

  it('refuses a connection without a valid credential', async () => {
    for (const params of [
      {},
      { authorization: 'Bearer wsk_nope' },
      { authorization: `Bearer ${t.apiKey}`, 'x-workspace-id': otherWorkspace.id },
    ]) {
      const ws = client(params);
      const outcome = await new Promise<{ code?: number; data?: unknown }>((resolve) => {
        ws.on('closed', (event) => resolve({ code: (event as { code: number }).code }));
        ws.subscribe(
          { query: 'subscription { workspaceUpdated { name } }' },
          {
            next: (data) => resolve({ data }),
            error: (error) => resolve({ code: (error as { code?: number }).code }),
            complete: () => undefined,
          },
        );
      });
      expect(outcome.data).toBeUndefined();
      expect(outcome.code).toBe(4403);
      await ws.dispose();
    }
  });
});
