// The real envd daemon process against the real server: pair → approve → list directories →
// revoke (connection closed, credential refused); reject; expiry; confinement to the roots;
// devices of another workspace are absent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';
import { waitFor } from '../helpers/wait.js';

const ROOT = join(import.meta.dirname, '..', '..');

interface Daemon {
  process: ChildProcess;
  output: () => string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

const daemons: Daemon[] = [];

function envd(args: string[]): Daemon {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/envd/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ENVD_POLL_INTERVAL_MS: '100' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk) => (text += chunk));
  child.stderr!.on('data', (chunk) => (text += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const daemon: Daemon = {
    process: child,
    output: () => text,
    async waitFor(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(text);
        if (match) return match;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`envd output never matched ${pattern}:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    exited,
  };
  daemons.push(daemon);
  return daemon;
}

let t: TestApp;
let work: string;
let rootA: string;
let rootB: string;
let outside: string;
let reader: string;
let other: { apiKey: string };

beforeAll(async () => {
  t = await startTestApp();
  work = realpathSync(mkdtempSync(join(tmpdir(), 'wsa-envd-')));
  rootA = join(work, 'root-a');
  rootB = join(work, 'root-b');
  outside = join(work, 'outside');
  for (const dir of [join(rootA, 'src', 'deep'), join(rootA, 'docs'), rootB, join(outside, 'secret')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(rootA, 'README.md'), 'not a directory');
  symlinkSync(outside, join(rootA, 'escape'));
  reader = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: ['read'] })).token;
  other = { apiKey: (await createWorkspace(t.app.deps, { name: 'other' })).apiKey.token };
});
afterAll(async () => {
  for (const daemon of daemons) if (daemon.process.exitCode === null) daemon.process.kill('SIGKILL');
  await t.stop();
  rmSync(work, { recursive: true, force: true });
});

async function pairDaemon(name: string, configFile: string) {
  const daemon = envd(['pair', '--server', t.url, '--name', name, '--config', configFile]);
  const [, pairingId, userCode] = await daemon.waitFor(/pairing (pai_\w+) user code ([A-Z0-9-]+)/);
  return { daemon, pairingId: pairingId!, userCode: userCode! };
}

describe('envd daemon', () => {
  it('pairs, serves directories confined to its roots, and stops at revocation', async () => {
    const configFile = join(work, 'config', 'credential.json');
    const { daemon, pairingId, userCode } = await pairDaemon('build-box', configFile);

    // The user sees the pending challenge with the code the daemon printed, and approves it.
    expect((await t.rest('GET', '/api/device-pairings')).body).toEqual([]); // unaddressed: only with its code
    const pending = await t.rest('GET', `/api/device-pairings?user_code=${userCode}`);
    expect(pending.body.find((p: any) => p.id === pairingId)).toMatchObject({
      user_code: userCode,
      device_name: 'build-box',
      status: 'pending',
    });
    const approved = await t.rest('POST', `/api/device-pairings/${pairingId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id: expect.stringMatching(/^dev_/), name: 'build-box', status: 'active', online: false });
    const deviceId = approved.body.id as string;
    expect(await daemon.exited).toBe(0);
    expect(daemon.output()).toContain(`paired as device ${deviceId}`);
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    // The credential was handed over once: the pairing is claimed and no longer pending.
    expect((await t.rest('GET', `/api/device-pairings?user_code=${userCode}`)).body).toEqual([]);

    const listed = await t.rest('GET', '/api/devices');
    expect(listed.body.map((d: any) => d.id)).toContain(deviceId);

    // Offline: a clear error code.
    const offline = await t.rest('GET', `/api/devices/${deviceId}/directories`);
    expect(offline.status).toBe(409);
    expect(offline.body.error.code).toBe('device_offline');

    const serve = envd(['serve', '--config', configFile, '--root', rootA, '--root', rootB]);
    await serve.waitFor(/connected to/);
    const info = await waitFor(
      () => t.rest('GET', `/api/devices/${deviceId}`),
      (r) => r.body.online === true,
      'the device online',
      10_000,
      100,
    );
    expect(info.body).toMatchObject({
      id: deviceId,
      online: true,
      status: 'active',
      approved_by_id: expect.stringMatching(/^key_/),
      workspace_id: t.workspaceId,
      revoked_at: null,
    });
    expect(Date.parse(info.body.last_seen_at)).not.toBeNaN();

    const roots = await t.rest('GET', `/api/devices/${deviceId}/directories`);
    expect(roots.status).toBe(200);
    expect(roots.body).toEqual({
      device_id: deviceId,
      path: null,
      entries: [
        { name: rootA, path: rootA },
        { name: rootB, path: rootB },
      ],
      truncated: false,
    });
    const inside = await t.rest('GET', `/api/devices/${deviceId}/directories?path=${encodeURIComponent(rootA)}`, { token: reader });
    expect(inside.status).toBe(200);
    expect(inside.body.entries).toEqual([
      { name: 'docs', path: join(rootA, 'docs') },
      { name: 'src', path: join(rootA, 'src') },
    ]);
    const deep = await t.rest('GET', `/api/devices/${deviceId}/directories?path=${encodeURIComponent(join(rootA, 'src'))}`);
    expect(deep.body.entries.map((e: any) => e.name)).toEqual(['deep']);

    // Outside the roots: traversal, a symlink leading out, an absolute path elsewhere.
    for (const path of [join(rootA, '..', 'outside'), `${rootA}/../outside/secret`, join(rootA, 'escape'), '/etc', outside]) {
      const refused = await t.rest('GET', `/api/devices/${deviceId}/directories?path=${encodeURIComponent(path)}`);
      expect(refused.status, path).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { reason: 'outside_roots' } });
    }
    expect((await t.rest('GET', `/api/devices/${deviceId}/directories?path=${encodeURIComponent(join(rootA, 'missing'))}`)).status).toBe(
      404,
    );
    const relative = await t.rest('GET', `/api/devices/${deviceId}/directories?path=src`);
    expect(relative.status).toBe(422);
    expect(relative.body.detail[0].loc).toEqual(['query', 'path']);
    expect((await t.rest('GET', `/api/devices/${deviceId}/directories?path=${encodeURIComponent(join(rootA, 'README.md'))}`)).status).toBe(
      422,
    );

    // Another workspace's device is absent.
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/directories'],
      ['POST', '/revoke'],
    ]) {
      const response = await t.rest(method!, `/api/devices/${deviceId}${suffix}`, { token: other.apiKey });
      expect(response.status, suffix).toBe(404);
    }
    expect((await t.rest('GET', '/api/devices', { token: other.apiKey })).body).toEqual([]);
    // Revoking needs write.
    expect((await t.rest('POST', `/api/devices/${deviceId}/revoke`, { token: reader })).status).toBe(403);

    // Revoke: the live connection is closed at once and the credential is refused afterwards.
    const revoked = await t.rest('POST', `/api/devices/${deviceId}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: deviceId, status: 'revoked', online: false });
    expect(await serve.exited).toBe(4);
    expect(serve.output()).toContain('revoked');
    const again = envd(['serve', '--config', configFile, '--root', rootA]);
    expect(await again.exited).toBe(4);
    expect(again.output()).toContain('refused the device credential');
    const after = await t.rest('GET', `/api/devices/${deviceId}/directories`);
    expect(after.status).toBe(409);
    expect((await t.rest('GET', `/api/devices/${deviceId}`)).body).toMatchObject({
      status: 'revoked',
      online: false,
      revoked_at: expect.any(String),
    });
    // Revoking again changes nothing.
    expect((await t.rest('POST', `/api/devices/${deviceId}/revoke`)).body.status).toBe('revoked');
    const audit = await t.app.deps.db.auditEvent.findMany({ where: { resourceId: { in: [deviceId, pairingId] } }, orderBy: { id: 'asc' } });
    expect(audit.map((event) => `${event.resourceKind}:${event.action}`)).toEqual([
      'device_pairing:approve',
      'device:create',
      'device:revoke',
    ]);
  });

  it('a rejected pairing ends the daemon with exit code 2', async () => {
    const { daemon, pairingId } = await pairDaemon('rejected-box', join(work, 'rejected.json'));
    const rejected = await t.rest('POST', `/api/device-pairings/${pairingId}/reject`);
    expect(rejected.status).toBe(204);
    expect(await daemon.exited).toBe(2);
    expect(daemon.output()).toContain('rejected');
    expect(() => statSync(join(work, 'rejected.json'))).toThrow();
  });
});

describe('pairing expiry', () => {
  it('an expired pairing ends the daemon with exit code 3 and can no longer be approved', async () => {
    const short = await startTestApp({ pairingTtlSeconds: 1 });
    try {
      const daemon = envd(['pair', '--server', short.url, '--name', 'slow-box', '--config', join(work, 'expired.json')]);
      const [, pairingId, userCode] = await daemon.waitFor(/pairing (pai_\w+) user code ([A-Z0-9-]+)/);
      expect(await daemon.exited).toBe(3);
      expect(daemon.output()).toContain('expired');
      expect((await short.rest('GET', `/api/device-pairings?user_code=${userCode}`)).body).toEqual([]);
      expect((await short.rest('POST', `/api/device-pairings/${pairingId}/approve`)).status).toBe(404);
      expect(await short.app.deps.db.device.count()).toBe(0);
    } finally {
      await short.stop();
    }
  });
});
