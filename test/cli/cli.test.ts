// The operator CLI. Its commands run in-process (runCli with captured streams) against the same
// database as a running app; one test runs it as a real process, to prove what an operator piping it
// gets: with --json, stdout carries exactly one JSON object (logs go to stderr) and the exit code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';
import { runCli as runCliProcess } from '../helpers/process.js';
import { runCli } from '../../src/operator-cli.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/storage/embedded.js';
import { createLogger } from '../../src/lib/logger.js';

/** Runs a CLI command in this process; returns its exit code and what it wrote to each stream. */
async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const capture = () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    });
    return { stream, text: () => chunks.join('') };
  };
  const stdout = capture();
  const stderr = capture();
  const code = await runCli(args, { stdout: stdout.stream, stderr: stderr.stream, env: { NODE_ENV: 'test', ...env } });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

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

describe('npm run cli (in-process)', () => {
  it('creates a workspace with an all-permission key that works over HTTP', async () => {
    const result = await cli(['workspaces', 'create', '--name', 'Team B', '--org', 'acme', '--json'], env);
    expect(result.code).toBe(0);
    const created = oneJsonObject(result.stdout);
    expect(created).toMatchObject({
      name: 'Team B',
      workspace_id: expect.stringMatching(/^wsp_/),
      api_key: expect.stringMatching(/^wsk_/),
    });
    const response = await t.rest('GET', '/api/v1/workspace', { token: created.api_key });
    expect(response.body).toMatchObject({ id: created.workspace_id, name: 'Team B', organization_id: created.organization_id });
  });

  it('creates keys with chosen permissions and revokes them', async () => {
    const created = oneJsonObject(
      (await cli(['api-keys', 'create', '--workspace', t.workspaceId, '--permissions', 'read,run', '--json'], env)).stdout,
    );
    expect(created.permissions).toEqual(['read', 'run']);
    const read = await t.rest('GET', '/api/v1/workspace', { token: created.api_key });
    expect(read.status).toBe(200);
    const patch = await t.rest('PATCH', '/api/v1/workspace', { token: created.api_key, headers: { 'if-match': '*' }, body: { name: 'x' } });
    expect(patch.status).toBe(403);
    const revoked = await cli(['api-keys', 'revoke', '--id', created.api_key_id, '--json'], env);
    expect(oneJsonObject(revoked.stdout)).toMatchObject({ api_key_id: created.api_key_id, changed: true });
    // The CLI has its own database connection, as a separate process would: the app forgets the key
    // when the revocation's NOTIFY reaches it, just after the commit — wait for that, do not race it.
    const refused = await waitFor(
      () => t.rest('GET', '/api/v1/workspace', { token: created.api_key }).then((r) => r.status),
      (status) => status === 401,
      'the revoked key to be refused',
      10_000,
    );
    expect(refused).toBe(401);
  });

  it('creates users who can log in', async () => {
    const result = await cli(
      [
        'users',
        'create',
        '--email',
        'ops@example.com',
        '--password',
        'long enough',
        '--workspace',
        t.workspaceId,
        '--role',
        'admin',
        '--json',
      ],
      env,
    );
    expect(oneJsonObject(result.stdout)).toMatchObject({ email: 'ops@example.com', role: 'admin', workspace_id: t.workspaceId });
    const login = await t.rest('POST', '/api/auth/login', { token: null, body: { email: 'ops@example.com', password: 'long enough' } });
    expect(login.status).toBe(200);
  });

  it('reports bad input as a JSON error with exit code 2', async () => {
    const bad = await cli(['api-keys', 'create', '--workspace', t.workspaceId, '--permissions', 'read,fly', '--json'], env);
    expect(bad.code).toBe(2);
    expect(oneJsonObject(bad.stdout).error).toMatchObject({ code: 'invalid_argument' });
    const missing = await cli(['users', 'create', '--email', 'x@example.com', '--json'], env);
    expect(missing.code).toBe(2);
    expect(oneJsonObject(missing.stdout).error.code).toBe('invalid_argument');
    const unknown = await cli(['api-keys', 'create', '--workspace', 'wsp_nope', '--permissions', 'read', '--json'], env);
    expect(oneJsonObject(unknown.stdout).error.code).toBe('not_found');
    const noCommand = await cli(['--json'], env);
    expect(noCommand.code).toBe(2);
    expect(oneJsonObject(noCommand.stdout).error.code).toBe('invalid_argument');
    const badFlag = await cli(['api-keys', 'create', '--fly', '--json'], env);
    expect(badFlag.code).toBe(2);
    expect(oneJsonObject(badFlag.stdout).error.code).toBe('invalid_argument');
  });

  it('without --json: text on stdout, errors on stderr', async () => {
    const created = await cli(['api-keys', 'create', '--workspace', t.workspaceId, '--permissions', 'read'], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^API key key_\S+ \(shown once\): wsk_\S+\n$/);
    const failed = await cli(['api-keys', 'revoke', '--id', 'key_nope'], env);
    expect(failed.code).toBe(2);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/^error: /m);
    const help = await cli(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: npm run cli');
  });
});

describe('while the embedded database is already running', () => {
  let dataDir: string;
  let embedded: EmbeddedDatabase;
  let embeddedEnv: Record<string, string>;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'wsa-cli-embedded-'));
    embedded = await startEmbeddedPostgres(dataDir, createLogger('silent'));
    embeddedEnv = { DATABASE_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  });
  afterAll(async () => {
    await embedded?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('uses it, logging that to stderr', async () => {
    const result = await cli(['workspaces', 'create', '--name', 'Embedded in-process', '--json'], embeddedEnv);
    expect(result.code).toBe(0);
    expect(oneJsonObject(result.stdout)).toMatchObject({ name: 'Embedded in-process', workspace_id: expect.stringMatching(/^wsp_/) });
    expect(result.stderr).toContain('embedded PostgreSQL is already running for this data directory; using it');
    const failed = await cli(['api-keys', 'revoke', '--id', 'key_nope', '--json'], embeddedEnv);
    expect(failed.code).toBe(2);
    expect(oneJsonObject(failed.stdout).error.code).toBe('not_found');
  });

  it('as a process: stdout is exactly one JSON object, the exit code 0, the logs on stderr', async () => {
    // The one process-level CLI test: anything in the process (not only our logger) that wrote to
    // stdout would show here, and the exit code is the process's own.
    const result = await runCliProcess(['workspaces', 'create', '--name', 'Embedded', '--json'], embeddedEnv);
    expect(result.code).toBe(0);
    expect(oneJsonObject(result.stdout)).toMatchObject({ name: 'Embedded', workspace_id: expect.stringMatching(/^wsp_/) });
    expect(result.stderr).toContain('embedded PostgreSQL is already running for this data directory; using it');
  });
});
