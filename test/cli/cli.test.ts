// The operator CLI as a real process against the same database as a running app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';

let t: TestApp;
let env: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp();
  env = { DATABASE_URL: t.databaseUrl, DATA_DIR: t.app.deps.config.dataDir };
});
afterAll(async () => {
  await t.stop();
});

describe('npm run cli', () => {
  it('creates a workspace with an all-permission key that works over HTTP', async () => {
    const result = await runCli(['workspaces', 'create', '--name', 'Team B', '--org', 'acme', '--json'], env);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created).toMatchObject({ name: 'Team B', workspace_id: expect.stringMatching(/^wsp_/), api_key: expect.stringMatching(/^wsk_/) });
    const response = await t.rest('GET', '/api/v1/workspace', { token: created.api_key });
    expect(response.body).toMatchObject({ id: created.workspace_id, name: 'Team B', organization_id: created.organization_id });
  });

  it('creates keys with chosen permissions and revokes them', async () => {
    const created = JSON.parse((await runCli(['api-keys', 'create', '--workspace', t.workspaceId, '--permissions', 'read,run', '--json'], env)).stdout);
    expect(created.permissions).toEqual(['read', 'run']);
    const read = await t.rest('GET', '/api/v1/workspace', { token: created.api_key });
    expect(read.status).toBe(200);
    const patch = await t.rest('PATCH', '/api/v1/workspace', { token: created.api_key, headers: { 'if-match': '*' }, body: { name: 'x' } });
    expect(patch.status).toBe(403);
    const revoked = await runCli(['api-keys', 'revoke', '--id', created.api_key_id, '--json'], env);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ api_key_id: created.api_key_id, changed: true });
    expect((await t.rest('GET', '/api/v1/workspace', { token: created.api_key })).status).toBe(401);
  });

  it('creates users who can log in', async () => {
    const result = await runCli(['users', 'create', '--email', 'ops@example.com', '--password', 'long enough', '--workspace', t.workspaceId, '--role', 'admin', '--json'], env);
    expect(JSON.parse(result.stdout)).toMatchObject({ email: 'ops@example.com', role: 'admin', workspace_id: t.workspaceId });
    const login = await t.rest('POST', '/api/auth/login', { token: null, body: { email: 'ops@example.com', password: 'long enough' } });
    expect(login.status).toBe(200);
  });

  it('reports bad input as a JSON error with exit code 2', async () => {
    const bad = await runCli(['api-keys', 'create', '--workspace', t.workspaceId, '--permissions', 'read,fly', '--json'], env);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: 'invalid_argument' });
    const missing = await runCli(['users', 'create', '--email', 'x@example.com', '--json'], env);
    expect(missing.code).toBe(2);
    const unknown = await runCli(['api-keys', 'create', '--workspace', 'wsp_nope', '--permissions', 'read', '--json'], env);
    expect(JSON.parse(unknown.stdout).error.code).toBe('not_found');
  });
});
