// The operator CLI as a real process against the same database as a running app.
// With --json, stdout carries exactly one JSON object (the result or the error); logs go to stderr.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';
import { startEmbeddedPostgres } from '../../src/storage/embedded.js';
import { createLogger } from '../../src/lib/logger.js';

/** stdout holds one line, and it is one JSON object. */
function oneJsonObject(stdout: string): any {
  const lines = stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines).toHaveLength(1);
  const value = JSON.parse(lines[0]!);
  expect(value).toBeTypeOf('object');
  expect(Array.isArray(value)).toBe(false);
  return value;
}

let t: TestApp;
let env: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp();
  // info: every log line the CLI writes would break stdout if it went there.
  env = { DATABASE_URL: t.databaseUrl, DATA_DIR: t.app.deps.config.dataDir, LOG_LEVEL: 'info' };
});
afterAll(async () => {
  await t.stop();
});

describe('npm run cli', () => {
  it('creates a workspace with an all-permission key that works over HTTP', async () => {
    const result = await runCli(['workspaces', 'create', '--name', 'Team B', '--org', 'acme', '--json'], env);
    expect(result.code).toBe(0);
    const created = oneJsonObject(result.stdout);
    expect(created).toMatchObject({ name: 'Team B', workspace_id: expect.stringMatching(/^wsp_/), api_key: expect.stringMatching(/^wsk_/) });
    const response = await t.rest('GET', '/api/v1/workspace', { token: created.api_key });
    expect(response.body).toMatchObject({ id: created.workspace_id, name: 'Team B', organization_id: created.organization_id });
  });

  it('creates keys with chosen permissions and revokes them', async () => {
    const created = oneJsonObject((await runCli(['api-keys', 'create', '--workspace', t.workspaceId, '--permissions', 'read,run', '--json'], env)).stdout);
    expect(created.permissions).toEqual(['read', 'run']);
    const read = await t.rest('GET', '/api/v1/workspace', { token: created.api_key });
    expect(read.status).toBe(200);
    const patch = await t.rest('PATCH', '/api/v1/workspace', { token: created.api_key, headers: { 'if-match': '*' }, body: { name: 'x' } });
    expect(patch.status).toBe(403);
    const revoked = await runCli(['api-keys', 'revoke', '--id', created.api_key_id, '--json'], env);
    expect(oneJsonObject(revoked.stdout)).toMatchObject({ api_key_id: created.api_key_id, changed: true });
    expect((await t.rest('GET', '/api/v1/workspace', { token: created.api_key })).status).toBe(401);
  });

  it('creates users who can log in', async () => {
    const result = await runCli(['users', 'create', '--email', 'ops@example.com', '--password', 'long enough', '--workspace', t.workspaceId, '--role', 'admin', '--json'], env);
    expect(oneJsonObject(result.stdout)).toMatchObject({ email: 'ops@example.com', role: 'admin', workspace_id: t.workspaceId });
    const login = await t.rest('POST', '/api/auth/login', { token: null, body: { email: 'ops@example.com', password: 'long enough' } });
    expect(login.status).toBe(200);
  });

  it('reports bad input as a JSON error with exit code 2', async () => {
    const bad = await runCli(['api-keys', 'create', '--workspace', t.workspaceId, '--permissions', 'read,fly', '--json'], env);
    expect(bad.code).toBe(2);
    expect(oneJsonObject(bad.stdout).error).toMatchObject({ code: 'invalid_argument' });
    const missing = await runCli(['users', 'create', '--email', 'x@example.com', '--json'], env);
    expect(missing.code).toBe(2);
    expect(oneJsonObject(missing.stdout).error.code).toBe('invalid_argument');
    const unknown = await runCli(['api-keys', 'create', '--workspace', 'wsp_nope', '--permissions', 'read', '--json'], env);
    expect(oneJsonObject(unknown.stdout).error.code).toBe('not_found');
    const noCommand = await runCli(['--json'], env);
    expect(noCommand.code).toBe(2);
    expect(oneJsonObject(noCommand.stdout).error.code).toBe('invalid_argument');
    const badFlag = await runCli(['api-keys', 'create', '--fly', '--json'], env);
    expect(badFlag.code).toBe(2);
    expect(oneJsonObject(badFlag.stdout).error.code).toBe('invalid_argument');
  });

  it('prints one JSON object while the embedded database is already running (its logs go to stderr)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wsa-cli-embedded-'));
    const embedded = await startEmbeddedPostgres(dataDir, createLogger('silent'));
    try {
      const embeddedEnv = { DATABASE_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
      const result = await runCli(['workspaces', 'create', '--name', 'Embedded', '--json'], embeddedEnv);
      expect(result.code).toBe(0);
      expect(oneJsonObject(result.stdout)).toMatchObject({ name: 'Embedded', workspace_id: expect.stringMatching(/^wsp_/) });
      expect(result.stderr).toContain('embedded PostgreSQL is already running for this data directory; using it');
      const failed = await runCli(['api-keys', 'revoke', '--id', 'key_nope', '--json'], embeddedEnv);
      expect(oneJsonObject(failed.stdout).error.code).toBe('not_found');
    } finally {
      await embedded.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
