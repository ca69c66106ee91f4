// The `fly` environment type end to end through the public API, against a loopback Fly Machines API
// (test/helpers/fly-machines-server.ts) whose machines are real processes: a template names an image,
// creating an environment creates a machine and waits until it is started, a run's platform tools
// run commands and files through the machine's exec endpoint, stop stops the machine, the driver's
// start starts it again with its files, DELETE destroys it (forced). An API that cannot be reached
// answers 409 failed_precondition; a wrong token fails provisioning; another workspace sees nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, TEST_OUTBOUND_POLICY } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { stillRunning, waitFor } from '../helpers/wait.js';
import { startFlyMachinesServer, type FlyMachinesServer } from '../helpers/fly-machines-server.js';
import { RunEnvironments } from '../../src/engine/environment-mounts.js';
import { runCallContext } from '../../src/engine/run-context.js';
import { flyEnvironmentDriver } from '../../src/providers/environments/fly.js';
import { createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let fly: FlyMachinesServer;
let providerId: string;
let scratch: string;
let otherKey: string;
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'wsa-fly-test-'));
  fly = await startFlyMachinesServer({ images: ['registry-1.docker.io/library/alpine:3.20'] });
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  const provider = await t.rest('POST', '/api/v1/environment-providers', {
    body: {
      type: 'fly',
      name: 'Fly',
      config: { app_name: fly.app, base_url: fly.baseUrl, region: 'ams' },
      credential: { api_token: fly.token },
    },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  providerId = provider.body.id;
});
afterAll(async () => {
  await t?.stop();
  await fly?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const IMAGE = 'registry-1.docker.io/library/alpine:3.20';
// The loopback machines share this machine's file system: each template works in a directory of its own.
let directories = 0;
const config = (extra: Record<string, unknown> = {}) => ({
  image: IMAGE,
  working_directory: join(scratch, `w${++directories}`),
  env: { GREETING: 'hello' },
  cpus: 2,
  memory_mb: 512,
  ...extra,
});

async function template(body: Record<string, unknown> = config(), provider = providerId) {
  const response = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'Alpine', provider_id: provider, config: body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function environment(templateId: string) {
  const response = await t.rest('POST', '/api/v1/environments', { body: { template_id: templateId } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

let models = 0;
async function openThroughRun(environmentId: string) {
  const model = `dev-${++models}`;
  await insertModel(t, model);
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: { name: 'builder', config: { model, model_settings: { script: [[{ text: 'Done.' }]] } } },
  });
  const started = await t.rest('POST', '/api/v1/runs', {
    body: {
      agent_id: agent.body.id,
      input: { content: [{ type: 'text', text: 'Build it.' }] },
      environment_mounts: [{ environment_id: environmentId }],
    },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const done = await settleRun(t, started.body.id);
  const row = await t.app.deps.db.run.findUniqueOrThrow({ where: { id: done.id } });
  const environments = new RunEnvironments(
    { deps: t.app.deps, call: runCallContext(t.app.deps, row), run: row },
    null,
    done.environment_mounts,
  );
  return await environments.open();
}

async function driverContext(providerIdToUse = providerId) {
  const row = await t.app.deps.db.provider.findUniqueOrThrow({ where: { id: providerIdToUse } });
  return {
    providerConfig: row.config as Record<string, unknown>,
    environmentConfig: {},
    credential: { api_token: fly.token },
    dataDir: '',
    fetch,
    outbound: TEST_OUTBOUND_POLICY,
  };
}

describe('the fly environment type', () => {
  it('is described with its environment schema and stop; the provider test is unsupported', async () => {
    const types = await t.rest('GET', '/api/v1/provider-types/environment');
    const described = types.body.items.find((d: { type: string }) => d.type === 'fly');
    expect(described).toMatchObject({ supports_stop: true, supports_destroy: true, supports_managed_instances: true });
    expect(described.environment_schema).toMatchObject({ required: ['image'], additionalProperties: false });
    const before = fly.requests.length;
    expect((await t.rest('POST', `/api/v1/environment-providers/${providerId}/test`)).body.status).toBe('unsupported');
    expect(fly.requests.length).toBe(before);
    const noImage = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'x', provider_id: providerId, config: {} } });
    expect([noImage.status, noImage.body.error.code]).toEqual([400, 'invalid_argument']);
    const relative = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'x', provider_id: providerId, config: { image: IMAGE, working_directory: 'work' } },
    });
    expect([relative.status, relative.body.error.details.field]).toEqual([400, 'config.working_directory']);
    const noCredential = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'fly', name: 'No token', config: { app_name: fly.app, base_url: fly.baseUrl } },
    });
    expect(noCredential.status).toBe(400);
  });

  it('creates a machine and waits for it, runs commands and files through exec, stops, starts and destroys it', async () => {
    const cfg = config();
    const tpl = await template(cfg);
    const before = fly.requests.length;
    const env = await environment(tpl.id);
    expect(env).toMatchObject({
      status: 'ready',
      working_directory: cfg.working_directory,
      instance_id: expect.stringMatching(/^[0-9a-f]{14}$/),
    });
    expect(fly.requests.slice(before)).toEqual(['GET /machines', 'POST /machines', `GET /machines/${env.instance_id}/wait`]);
    const machine = fly.machines.get(env.instance_id)!;
    expect(machine).toMatchObject({ name: `wsa-${env.id.toLowerCase().replace('_', '-')}`, state: 'started', region: 'ams' });
    expect(machine.config).toMatchObject({
      image: IMAGE,
      env: { GREETING: 'hello' },
      guest: { cpu_kind: 'shared', cpus: 2, memory_mb: 512 },
      restart: { policy: 'no' },
      metadata: { workspace_agent_environment_id: env.id },
    });

    const open = await openThroughRun(env.id);
    const limits = { timeoutMs: 20_000, maxOutputBytes: 10_000 };
    const shell = await open.exec({
      command: 'echo "$GREETING $EXTRA from $(pwd)"; echo oops >&2; exit 3',
      env: { EXTRA: 'there' },
      ...limits,
    });
    expect(shell).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: `hello there from ${cfg.working_directory}\n`,
      stderr: 'oops\n',
      timedOut: false,
    });
    const piped = await open.exec({ command: ['cat'], stdin: 'through standard input', ...limits });
    expect([piped.exitCode, piped.stdout]).toEqual([0, 'through standard input']);
    const big = await open.exec({ command: "head -c 5000 /dev/zero | tr '\\0' a", timeoutMs: 20_000, maxOutputBytes: 100 });
    expect([big.stdout.length, big.stdoutBytes, big.truncated]).toEqual([100, 5000, true]);
    expect(fly.requests.at(-1)).toBe(`POST /machines/${env.instance_id}/exec`);

    const binary = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    await open.writeFile('notes/a.bin', binary);
    expect((await open.readFile('notes/a.bin', { maxBytes: 100 })).content).toEqual(binary);
    await open.writeFile('notes/a.txt', 'hello file');
    expect(readFileSync(join(cfg.working_directory, 'notes/a.txt'), 'utf8')).toBe('hello file');
    expect(await open.readFile(join(cfg.working_directory, 'notes/a.txt'), { maxBytes: 5 })).toMatchObject({
      sizeBytes: 10,
      truncated: true,
    });
    const listing = await open.listFiles('.', { depth: 3, limit: 10 });
    expect(listing.entries.map((e) => [e.path, e.kind, e.sizeBytes])).toEqual([
      ['notes', 'directory', 0],
      ['notes/a.bin', 'file', 7],
      ['notes/a.txt', 'file', 10],
    ]);
    await expect(open.readFile('missing.txt', { maxBytes: 10 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(open.readFile('notes', { maxBytes: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(open.listFiles('notes/a.txt', { depth: 1, limit: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });

    const stopped = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect(stopped.body.status).toBe('stopped');
    expect(fly.requests.slice(-3)).toEqual([
      `GET /machines/${env.instance_id}`,
      `POST /machines/${env.instance_id}/stop`,
      `GET /machines/${env.instance_id}/wait`,
    ]);
    expect(machine.state).toBe('stopped');
    expect(machine.processes.size).toBe(0);

    // The driver starts the stopped machine again; its files are where they were.
    const ctx = await driverContext();
    const instance = { instanceId: env.instance_id, workingDirectory: env.working_directory };
    const started = await flyEnvironmentDriver.start!(ctx, instance);
    expect(started).toEqual(instance);
    expect(machine.state).toBe('started');
    const again = await flyEnvironmentDriver.exec(ctx, instance, { command: 'cat notes/a.txt', ...limits });
    expect([again.exitCode, again.stdout]).toEqual([0, 'hello file']);

    const destroyed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect(destroyed.body.status).toBe('destroyed');
    expect(fly.requests.at(-1)).toBe(`DELETE /machines/${env.instance_id}`);
    expect(fly.machines.has(env.instance_id)).toBe(false);
    expect((await t.rest('DELETE', `/api/v1/environments/${env.id}`)).status).toBe(200);
  });

  it('kills a command at its timeout or when aborted; the machine keeps working', async () => {
    const env = await environment((await template()).id);
    const open = await openThroughRun(env.id);
    const machine = fly.machines.get(env.instance_id)!;
    const timedOut = await open.exec({ command: 'echo started; sleep 37', timeoutMs: 300, maxOutputBytes: 100 });
    expect(timedOut).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    const controller = new AbortController();
    const pending = open.exec({ command: 'sleep 38', timeoutMs: 60_000, maxOutputBytes: 100, signal: controller.signal });
    // The endpoint answers only at the end: abort once the machine runs the command.
    await waitFor(
      async () => [...machine.processes].some((child) => child.spawnargs.includes('sleep 38')),
      Boolean,
      'the command to run on the machine',
    );
    controller.abort();
    expect(await pending).toMatchObject({ aborted: true, timedOut: false, exitCode: null });
    // Nothing the commands started still runs (the loopback machine's processes are this machine's).
    expect(await stillRunning([...machine.processes].filter((child) => /sleep 3[78]\b/.test(child.spawnargs.join(' '))))).toEqual([]);
    expect(spawnSync('pgrep', ['-f', '^sleep 3[78]$']).stdout.toString()).toBe('');
    expect((await open.exec({ command: 'echo still here', timeoutMs: 20_000, maxOutputBytes: 100 })).stdout).toBe('still here\n');
    await t.rest('DELETE', `/api/v1/environments/${env.id}`);
  });

  it('works through the platform tools of a scripted run', async () => {
    const tpl = await template();
    await insertModel(t, 'fly-tools');
    const calls = [
      { id: 'w', name: 'write_file', arguments: { path: 'src/app.txt', content: 'alpha\nbeta\n' } },
      { id: 'c', name: 'run_command', arguments: { command: 'wc -l src/app.txt && cat src/app.txt' } },
      { id: 'e', name: 'edit_file', arguments: { path: 'src/app.txt', old_string: 'beta', new_string: 'gamma' } },
      { id: 'g', name: 'grep', arguments: { pattern: 'gam+a', path: '.' } },
      { id: 'r', name: 'read_file', arguments: { path: 'src/app.txt' } },
    ];
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'fly worker',
        config: {
          model: 'fly-tools',
          model_settings: { script: [...calls.map((call) => [{ tool_call: call }]), [{ text: 'Done.' }]] },
          default_environment_template_id: tpl.id,
          platform_tools: { groups: ['shell', 'files', 'search'], read_permission: 'allow', write_permission: 'allow' },
        },
      },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const started = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'Work.' }] } },
    });
    const done = await settleRun(t, started.body.id);
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    const items = (await t.rest('GET', `/api/v1/runs/${done.id}/items`)).body.items as any[];
    const results = Object.fromEntries(items.filter((i) => i.kind === 'tool_result').map((i) => [i.content.tool_call_id, i.content]));
    expect(results.w.result).toEqual({ path: 'src/app.txt', size_bytes: 11 });
    expect(results.c.result).toMatchObject({ exit_code: 0, stdout: '2 src/app.txt\nalpha\nbeta\n' });
    expect(results.e.result).toMatchObject({ replacements: 1 });
    expect(results.g.result.matches).toEqual(['./src/app.txt:2:gamma']);
    expect(results.r.result).toMatchObject({ content: 'alpha\ngamma\n', truncated: false });
    const env = (await t.rest('GET', `/api/v1/environments/${done.environment_mounts[0].environment_id}`)).body;
    expect(fly.machines.get(env.instance_id)?.state).toBe('started');
  });

  it('fails provisioning with the API’s answer for a wrong token or an unknown image, and cleans up by name', async () => {
    const wrong = await t.rest('POST', '/api/v1/environment-providers', {
      body: {
        type: 'fly',
        name: 'Wrong token',
        config: { app_name: fly.app, base_url: fly.baseUrl },
        credential: { api_token: 'not-the-token' },
      },
    });
    const refused = await environment((await template(config(), wrong.body.id)).id);
    expect(refused).toMatchObject({ status: 'failed', failure_message: 'the Fly Machines API answered 401: unauthorized' });
    const unknown = await environment((await template(config({ image: 'registry.fly.io/missing:1' }))).id);
    expect(unknown).toMatchObject({
      status: 'failed',
      failure_message: expect.stringMatching(/422: failed to resolve image registry.fly.io\/missing:1/),
    });
    expect((await t.rest('DELETE', `/api/v1/environments/${unknown.id}`)).body.status).toBe('destroyed');
  });

  it('provisions idempotently: the machine named for the environment is found again', async () => {
    const cfg = config();
    const env = await environment((await template(cfg)).id);
    const again = await flyEnvironmentDriver.provision(await driverContext(), { environmentId: env.id, config: cfg });
    expect(again).toEqual({ instanceId: env.instance_id, workingDirectory: cfg.working_directory });
    expect([...fly.machines.values()].filter((m) => m.name.endsWith(env.id.toLowerCase().slice(4)))).toHaveLength(1);
  });

  it('answers 404 to another workspace', async () => {
    const tpl = await template();
    const env = await environment(tpl.id);
    for (const [method, path] of [
      ['GET', `/api/v1/environments/${env.id}`],
      ['POST', `/api/v1/environments/${env.id}/stop`],
      ['DELETE', `/api/v1/environments/${env.id}`],
      ['GET', `/api/v1/environment-providers/${providerId}`],
    ] as const)
      expect((await t.rest(method, path, { token: otherKey })).status, `${method} ${path}`).toBe(404);
    expect((await t.rest('POST', '/api/v1/environments', { token: otherKey, body: { template_id: tpl.id } })).status).toBe(404);
    expect(fly.machines.get(env.instance_id)?.state).toBe('started');
  });
});

describe('a Fly Machines API that cannot be reached', () => {
  it('answers work, stop and DELETE with failed_precondition and leaves the environment as it was', async () => {
    const gone = await startFlyMachinesServer({ images: [IMAGE] });
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: {
        type: 'fly',
        name: 'Flaky',
        config: { app_name: gone.app, base_url: `${gone.baseUrl}/v1/` },
        credential: { api_token: gone.token },
      },
    });
    // A base URL given with the API's version works the same.
    const env = await environment((await template(config(), provider.body.id)).id);
    expect(env.status).toBe('ready');
    const open = await openThroughRun(env.id);
    await gone.close();
    await expect(open.exec({ command: 'true', timeoutMs: 5000, maxOutputBytes: 10 })).rejects.toMatchObject({
      code: 'failed_precondition',
    });
    await expect(open.writeFile('a.txt', 'x')).rejects.toMatchObject({ code: 'failed_precondition' });
    const stop = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect([stop.status, stop.body.error.code, stop.body.error.message]).toEqual([
      409,
      'failed_precondition',
      expect.stringMatching(/could not reach the Fly Machines API: ECONNREFUSED/),
    ]);
    const removed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect([removed.status, removed.body.error.code]).toEqual([409, 'failed_precondition']);
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`)).body.status).toBe('ready');
  });
});
