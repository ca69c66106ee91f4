// The `envd` environment type end to end: real envd daemon processes paired with the real server,
// serving with --allow-environments; an envd provider, a template naming the device and a root, an
// environment whose directory is really made on the "device" (this machine, inside the daemon's
// root); a scripted run's platform tools run commands and write and read files there; streamed
// output, abort and stop kill commands; content larger than a websocket frame travels in chunks;
// paths outside the environment or the roots are refused; a daemon without the flag refuses; an
// offline device answers failed_precondition; another workspace's device is absent (404).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp, TEST_OUTBOUND_POLICY } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { pairEnvd, startEnvd, type Daemon } from '../helpers/envd.js';
import { waitFor } from '../helpers/wait.js';
import { createWorkspace } from '../../src/features/access/admin.js';
import { callContext, principalActor } from '../../src/services/call-context.js';
import { openEnvironment } from '../../src/features/environments/environments.js';
import { deviceBridgeOf } from '../../src/providers/device-bridge.js';
import { envdEnvironmentDriver } from '../../src/providers/environments/envd.js';

let t: TestApp;
let work: string;
let root: string;
let outside: string;
let deviceId: string;
let closedDeviceId: string;
let serving: Daemon;
let closed: Daemon;
let providerId: string;
let other: { apiKey: string };
const configFile = () => join(work, 'device.json');

beforeAll(async () => {
  t = await startTestApp();
  work = realpathSync(mkdtempSync(join(tmpdir(), 'wsa-envd-env-')));
  root = join(work, 'projects');
  outside = join(work, 'outside');
  mkdirSync(root, { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), 'not for the service');
  other = { apiKey: (await createWorkspace(t.app.deps, { name: 'other' })).apiKey.token };
  await insertModel(t, 'dev');

  deviceId = await pairEnvd(t, 'laptop', configFile());
  // The daemon's own environment has a secret that commands must not see.
  serving = startEnvd(['serve', '--config', configFile(), '--root', root, '--allow-environments'], { ENVD_TEST_SECRET: 'hunter2' });
  await serving.waitFor(/connected to .*environments allowed/);

  closedDeviceId = await pairEnvd(t, 'closed-box', join(work, 'closed.json'));
  closed = startEnvd(['serve', '--config', join(work, 'closed.json'), '--root', root]);
  await closed.waitFor(/connected to .*environments not allowed/);

  const provider = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'envd', name: 'My machines' } });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  providerId = provider.body.id;
});
afterAll(async () => {
  await serving?.stop();
  await closed?.stop();
  await t?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function template(config: Record<string, unknown>, token?: string, provider = providerId) {
  return t.rest('POST', '/api/v1/environment-templates', { token, body: { name: 'On my laptop', provider_id: provider, config } });
}
async function environment(config: Record<string, unknown>) {
  const tpl = await template(config);
  expect(tpl.status, JSON.stringify(tpl.body)).toBe(201);
  const env = await t.rest('POST', '/api/v1/environments', { body: { template_id: tpl.body.id } });
  expect(env.status, JSON.stringify(env.body)).toBe(201);
  return env.body;
}
const open = (environmentId: string) =>
  openEnvironment(callContext(t.app.deps, principalActor(t.workspaceId, 'key_test'), null), environmentId);

type Call = { id: string; name: string; arguments: Record<string, unknown> };
async function runWith(environmentId: string, calls: Call[]) {
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: {
      name: 'remote worker',
      config: {
        model: 'dev',
        model_settings: { script: [...calls.map((call) => [{ tool_call: call }]), [{ text: 'Done.' }]] },
        retries: { tools: 10 },
        platform_tools: { groups: ['shell', 'files', 'search'], read_permission: 'allow', write_permission: 'allow' },
      },
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const started = await t.rest('POST', '/api/v1/runs', {
    body: {
      agent_id: agent.body.id,
      input: { content: [{ type: 'text', text: 'Work.' }] },
      environment_mounts: [{ environment_id: environmentId }],
    },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const done = await settleRun(t, started.body.id);
  expect(done.status, JSON.stringify(done.failure)).toBe('completed');
  const items = (await t.rest('GET', `/api/v1/runs/${done.id}/items`)).body.items as any[];
  return Object.fromEntries(items.filter((item) => item.kind === 'tool_result').map((item) => [item.content.tool_call_id, item.content]));
}

describe('the envd environment type', () => {
  it('is described without a credential, and a provider test answers unsupported', async () => {
    const types = (await t.rest('GET', '/api/v1/provider-types/environment')).body;
    const envd = (types.items ?? types).find((type: any) => type.type === 'envd');
    expect(envd).toMatchObject({
      supports_managed_instances: true,
      supports_stop: true,
      supports_destroy: true,
      environment_schema: { required: ['device_id', 'root'] },
    });
    const probe = await t.rest('POST', `/api/v1/environment-providers/${providerId}/test`);
    expect(probe.body).toMatchObject({ status: 'unsupported' });
  });

  it('provisions a directory on the device; a run’s platform tools run commands and keep files there', async () => {
    const env = await environment({ device_id: deviceId, root, working_directory: 'repo', env: { GREETING: 'hello' } });
    const instance = join(root, '.wsa-environments', env.id);
    expect(env).toMatchObject({ status: 'ready', instance_id: instance, working_directory: join(instance, 'repo') });
    expect(existsSync(join(instance, 'repo'))).toBe(true);
    symlinkSync(outside, join(instance, 'repo', 'escape'));

    const results = await runWith(env.id, [
      { id: 'w1', name: 'write_file', arguments: { path: 'notes/hello.txt', content: 'hello world\n' } },
      {
        id: 'c1',
        name: 'run_command',
        arguments: { command: 'cat notes/hello.txt; echo "$GREETING [$ENVD_TEST_SECRET] $HOME"; pwd; echo oops >&2; exit 3' },
      },
      { id: 'e1', name: 'edit_file', arguments: { path: 'notes/hello.txt', old_string: 'world', new_string: 'device' } },
      { id: 'r1', name: 'read_file', arguments: { path: 'notes/hello.txt' } },
      { id: 'l1', name: 'list_files', arguments: {} },
      { id: 'g1', name: 'grep', arguments: { pattern: 'dev[i]ce', path: '.' } },
      { id: 't1', name: 'run_command', arguments: { command: 'sleep 30', timeout_seconds: 1 } },
      { id: 'up', name: 'read_file', arguments: { path: '../../../../outside/secret.txt' } },
      { id: 'abs', name: 'write_file', arguments: { path: join(outside, 'planted.txt'), content: 'x' } },
      { id: 'via', name: 'read_file', arguments: { path: 'escape/secret.txt' } },
      { id: 'cwd', name: 'run_command', arguments: { command: 'pwd', cwd: 'escape' } },
    ]);
    expect(results.w1.result).toEqual({ path: 'notes/hello.txt', size_bytes: 12 });
    expect(results.c1.result).toMatchObject({
      exit_code: 3,
      // The command sees the template's variables, never the daemon's own.
      stdout: `hello world\nhello [] ${instance}\n${join(instance, 'repo')}\n`,
      stderr: 'oops\n',
      timed_out: false,
    });
    expect(results.e1.result).toMatchObject({ replacements: 1 });
    expect(results.r1.result).toEqual({ path: 'notes/hello.txt', content: 'hello device\n', size_bytes: 13, truncated: false });
    expect(results.l1.result.entries.map((e: any) => [e.path, e.kind])).toEqual([
      ['escape', 'symlink'],
      ['notes', 'directory'],
      ['notes/hello.txt', 'file'],
    ]);
    expect(results.g1.result.matches).toEqual(['./notes/hello.txt:1:hello device']);
    expect(results.t1.result).toMatchObject({ timed_out: true, exit_code: null, signal: 'SIGKILL' });
    for (const id of ['up', 'abs', 'via', 'cwd']) {
      expect(results[id].result, id).toBeUndefined();
      expect(results[id].error, id).toMatch(/outside the environment/);
    }
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    // The file is really on the device.
    expect(readFileSync(join(instance, 'repo', 'notes', 'hello.txt'), 'utf8')).toBe('hello device\n');

    // DELETE removes the environment's directory from the device.
    const destroyed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect(destroyed.body.status).toBe('destroyed');
    expect(existsSync(instance)).toBe(false);
    expect(existsSync(root)).toBe(true);
  });

  it('streams output, and abort and stop kill the command and what it started', async () => {
    const env = await environment({ device_id: deviceId, root });
    const workspace = await open(env.id);
    const limits = { timeoutMs: 60_000, maxOutputBytes: 1000 };

    // Abort: the run was cancelled. The first streamed line says the command is running.
    const controller = new AbortController();
    let streamed = '';
    const aborted = workspace.exec({
      command: 'sleep 60 & echo started; wait',
      signal: controller.signal,
      onOutput: (stream, chunk) => {
        streamed += chunk.toString();
        if (stream === 'stdout' && streamed.includes('started')) controller.abort();
      },
      ...limits,
    });
    expect(await aborted).toMatchObject({ aborted: true, timedOut: false, exitCode: null, signal: 'SIGKILL', stdout: 'started\n' });

    // Stop: every command of the environment ends; the environment is stopped and refuses work.
    let resolveStarted!: () => void;
    const started = new Promise<void>((resolve) => (resolveStarted = resolve));
    const running = workspace.exec({
      command: 'echo $$ > pid; echo started; sleep 60',
      onOutput: (_stream, chunk) => chunk.toString().includes('started') && resolveStarted(),
      ...limits,
    });
    await started;
    const stopped = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect(stopped.body.status).toBe('stopped');
    expect(await running).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    const pid = Number(readFileSync(join(env.working_directory, 'pid'), 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow(); // the shell is gone
    await expect(open(env.id)).rejects.toMatchObject({ code: 'failed_precondition' });

    // The driver can start it again while its directory is on the device.
    const ctx = {
      providerConfig: {},
      environmentConfig: env.config,
      credential: null,
      dataDir: '',
      fetch,
      outbound: TEST_OUTBOUND_POLICY,
      workspaceId: t.workspaceId,
      devices: deviceBridgeOf(t.app.deps),
    };
    const instance = { instanceId: env.instance_id, workingDirectory: env.working_directory };
    expect(await envdEnvironmentDriver.start!(ctx, instance)).toEqual(instance);
    rmSync(env.instance_id, { recursive: true });
    await expect(envdEnvironmentDriver.start!(ctx, instance)).rejects.toMatchObject({ reason: 'not_found' });
  });

  it('moves files larger than a websocket frame in chunks, and bounds what it reads', async () => {
    const env = await environment({ device_id: deviceId, root });
    const workspace = await open(env.id);
    const big = Buffer.alloc(6 * 1024 * 1024 + 123, 'abcdefgh');
    expect(await workspace.writeFile('big/data.bin', big)).toEqual({ sizeBytes: big.length });
    expect(readFileSync(join(env.working_directory, 'big', 'data.bin')).equals(big)).toBe(true);
    const read = await workspace.readFile('big/data.bin', { maxBytes: 5 * 1024 * 1024 });
    expect(read).toMatchObject({ sizeBytes: big.length, truncated: true });
    expect(read.content.equals(big.subarray(0, 5 * 1024 * 1024))).toBe(true);
    const whole = await workspace.readFile('big/data.bin', { maxBytes: 8 * 1024 * 1024 });
    expect(whole.truncated).toBe(false);
    expect(whole.content.equals(big)).toBe(true);
    const output = await workspace.exec({ command: 'head -c 3000000 big/data.bin', timeoutMs: 30_000, maxOutputBytes: 2_000_000 });
    expect(output).toMatchObject({ exitCode: 0, stdoutBytes: 3_000_000, truncated: true });
    expect(output.stdout.length).toBe(1024 * 1024); // 2 MB asked for; the daemon keeps at most 1 MiB of each stream
    await expect(workspace.readFile('missing.txt', { maxBytes: 10 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(workspace.readFile('big', { maxBytes: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('refuses a root outside the daemon’s roots, and a daemon started without --allow-environments', async () => {
    const outsideRoots = await environment({ device_id: deviceId, root: outside });
    expect(outsideRoots).toMatchObject({ status: 'failed', failure_message: expect.stringMatching(/outside the roots/) });
    expect(existsSync(join(outside, '.wsa-environments'))).toBe(false);

    const refused = await environment({ device_id: closedDeviceId, root });
    expect(refused).toMatchObject({ status: 'failed', failure_message: expect.stringMatching(/--allow-environments/) });
    // The directory listing still works on that device.
    expect((await t.rest('GET', `/api/devices/${closedDeviceId}/directories`)).status).toBe(200);
  });

  it('another workspace cannot name the device (404), nor see the environments', async () => {
    const otherProvider = await t.rest('POST', '/api/v1/environment-providers', {
      token: other.apiKey,
      body: { type: 'envd', name: 'Theirs' },
    });
    expect(otherProvider.status).toBe(201);
    const foreign = await template({ device_id: deviceId, root }, other.apiKey, otherProvider.body.id);
    expect([foreign.status, foreign.body.error.code, foreign.body.error.details.field]).toEqual([404, 'not_found', 'config.device_id']);
    const made = await template({ device_id: 'dev_doesnotexist', root }, other.apiKey, otherProvider.body.id);
    expect(made.status).toBe(404);
    const env = await environment({ device_id: deviceId, root });
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`, { token: other.apiKey })).status).toBe(404);
    expect((await t.rest('POST', `/api/v1/environments/${env.id}/stop`, { token: other.apiKey })).status).toBe(404);
    expect((await t.rest('DELETE', `/api/v1/environments/${env.id}`, { token: other.apiKey })).status).toBe(404);
    // The template's config is checked on PATCH too.
    const mine = (await template({ device_id: deviceId, root })).body;
    const patched = await t.rest('PATCH', `/api/v1/environment-templates/${mine.id}`, {
      headers: { 'if-match': `"${mine.version}"` },
      body: { config: { device_id: 'dev_doesnotexist', root } },
    });
    expect([patched.status, patched.body.error?.details?.field]).toEqual([404, 'config.device_id']);
  });

  it('a device that is offline answers failed_precondition; a revoked device can be cleaned up', async () => {
    const env = await environment({ device_id: deviceId, root });
    const instance = env.instance_id as string;
    await serving.stop();
    await waitOffline(deviceId);

    const stop = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect([stop.status, stop.body.error.code, stop.body.error.message]).toEqual([
      409,
      'failed_precondition',
      expect.stringMatching(/not connected/),
    ]);
    const removed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect([removed.status, removed.body.error.code]).toEqual([409, 'failed_precondition']);
    const workspace = await open(env.id);
    await expect(workspace.exec({ command: 'true', timeoutMs: 1000, maxOutputBytes: 10 })).rejects.toMatchObject({
      code: 'failed_precondition',
    });
    const results = await runWith(env.id, [{ id: 'c1', name: 'run_command', arguments: { command: 'true' } }]);
    expect(results.c1.error).toMatch(/not connected/);
    const failed = await t.rest('POST', '/api/v1/environments', { body: { template_id: env.template_id } });
    expect(failed.body).toMatchObject({ status: 'failed', failure_message: expect.stringMatching(/not connected/) });
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`)).body.status).toBe('ready');

    // Revoked: the device can never answer again; DELETE marks the environment destroyed (its
    // directory stays on the device), and new templates cannot name it.
    expect((await t.rest('POST', `/api/devices/${deviceId}/revoke`)).status).toBe(200);
    const gone = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect([gone.status, gone.body.status]).toEqual([200, 'destroyed']);
    expect(existsSync(instance)).toBe(true);
    const revokedTemplate = await template({ device_id: deviceId, root });
    expect([revokedTemplate.status, revokedTemplate.body.error.code]).toEqual([409, 'failed_precondition']);
  });
});

const waitOffline = (id: string) =>
  waitFor(
    () => t.rest('GET', `/api/devices/${id}`),
    (response) => response.body.online === false,
    'the device offline',
    10_000,
  );
