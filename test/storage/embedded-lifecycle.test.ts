// The service as an operator runs it: `npm start` on an empty DATA_DIR (embedded PostgreSQL,
// migrations, bootstrap key), restarts after SIGTERM and after SIGKILL keep every row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.js';

let dataDir: string;
let service: ServiceProcess | null = null;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'wsa-lifecycle-'));
});
afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${service!.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any, etag: response.headers.get('etag') };
}

describe('embedded storage lifecycle', () => {
  let key: string;

  /** The first start on the empty DATA_DIR; the restart tests (slow tier) start it themselves when it did not run. */
  async function firstStart() {
    service = await startServiceProcess({ DATA_DIR: dataDir });
    key = readFileSync(join(dataDir, 'bootstrap-api-key'), 'utf8').trim();
    const workspace = await call('GET', '/api/v1/workspace', key);
    expect(workspace.body.name).toBe('default');
    const changed = await call('PATCH', '/api/v1/workspace', key, { name: 'kept across restarts' }, { 'if-match': workspace.etag! });
    expect(changed.status).toBe(200);
  }

  it('first start: creates the database, applies migrations, bootstraps and prints the key once', async () => {
    await firstStart();
    const keyFile = join(dataDir, 'bootstrap-api-key');
    expect(key).toMatch(/^wsk_/);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    // Printed right after the 'listening' line the start waited for: wait for it rather than race it.
    await service!.waitForOutput(key);
    expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    const ready = await fetch(`${service!.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', database: 'embedded', pending_migrations: 0 });
    expect((await fetch(`${service!.url}/healthz`)).status).toBe(200);
    // The operator console is served (the suite built it, as `npm start` does first) and the start says where.
    await service!.waitForOutput('open ');
    expect(service!.output()).toContain(`open ${service!.url}/ and sign in with the key`);
    const page = await fetch(`${service!.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
  });

  it('after SIGTERM: shuts down gracefully; the next start keeps data and bootstraps nothing', { tags: ['slow'] }, async () => {
    if (!service) await firstStart();
    service!.child.kill('SIGTERM');
    expect(await service!.exited).toBe(0); // a clean shutdown
    service = await startServiceProcess({ DATA_DIR: dataDir });
    expect(service.output()).not.toContain('Bootstrap API key');
    const workspace = await call('GET', '/api/v1/workspace', key);
    expect(workspace.body).toMatchObject({ name: 'kept across restarts', version: 2 });
    await call('PATCH', '/api/v1/workspace', key, { description: 'written before SIGKILL' }, { 'if-match': workspace.etag! });
  });

  it('after SIGKILL: the leftover PostgreSQL is taken over and every committed row is there', { tags: ['slow'] }, async () => {
    service!.child.kill('SIGKILL');
    await service!.exited;
    service = await startServiceProcess({ DATA_DIR: dataDir });
    const workspace = await call('GET', '/api/v1/workspace', key);
    expect(workspace.body).toMatchObject({ name: 'kept across restarts', description: 'written before SIGKILL', version: 3 });
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    const audit = await call('GET', '/api/v1/audit-events?resource_kind=workspace&action=update', key);
    expect(audit.body.items).toHaveLength(2);
  });
});
