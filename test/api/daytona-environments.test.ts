// The `daytona` environment type end to end through the public API, against a loopback Daytona
// (test/helpers/daytona-server.ts: the API under /api and the toolbox proxy, both checking the bearer
// API key, running real processes in a temp directory): provider and template, provisioning a sandbox
// (waiting for it to start), the platform tools of a scripted run, commands with standard error kept
// apart, standard input, timeouts and aborts, files, stop, start, destroy, an API that cannot be
// reached, and another workspace.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, TEST_OUTBOUND_POLICY } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { startDaytonaServer, type DaytonaServer } from '../helpers/daytona-server.js';
import { createWorkspace } from '../../src/features/access/admin.js';
import { RunEnvironments } from '../../src/engine/environment-mounts.js';
import { runCallContext } from '../../src/engine/run-context.js';
import { daytonaEnvironmentDriver } from '../../src/providers/environments/daytona.js';

let t: TestApp;
let daytona: DaytonaServer;
let providerId: string;
let otherKey: string;
beforeAll(async () => {
  daytona = await startDaytonaServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  const provider = await t.rest('POST', '/api/v1/environment-providers', {
    body: {
      type: 'daytona',
      name: 'Daytona',
      config: { api_url: daytona.apiUrl, organization_id: 'org-1', target: 'eu' },
      credential: { api_key: daytona.apiKey },
    },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  providerId = provider.body.id;
});
afterAll(async () => {
  await t?.stop();
  await daytona?.close();
});

const CONFIG = {
  snapshot: 'daytonaio/sandbox:0.4.3',
  env: { GREETING: 'hello' },
  labels: { team: 'core' },
  working_directory: '/home/daytona/work',
};

async function template(config: Record<string, unknown> = CONFIG, provider = providerId) {
  const response = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'Sandbox', provider_id: provider, config } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function environment(templateId: string) {
  const response = await t.rest('POST', '/api/v1/environments', { body: { template_id: templateId } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

const driverContext = async (environmentConfig: Record<string, unknown> = CONFIG) => {
  const row = await t.app.deps.db.provider.findUniqueOrThrow({ where: { id: providerId } });
  return {
    providerConfig: row.config as Record<string, unknown>,
    environmentConfig,
    credential: { api_key: daytona.apiKey },
    dataDir: '',
    fetch,
    outbound: TEST_OUTBOUND_POLICY,
  };
};

let models = 0;
async function openThroughRun(environmentId: string) {
  const model = `daytona-${++models}`;
  await insertModel(t, model);
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: { name: 'builder', config: { model, model_settings: { script: [[{ text: 'Done.' }]] } } },
  });
  const started = await t.rest('POST', '/api/v1/runs', {
    body: {
      agent_id: agent.body.id,
      input: { content: [{ type: 'text', text: 'Build.' }] },
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
  return environments.open();
}

describe('the daytona environment type', () => {
  it('is described with its schemas; the provider test is unsupported; a template names a snapshot or an image, not both', async () => {
    const types = await t.rest('GET', '/api/v1/provider-types/environment');
    const described = types.body.items.find((d: { type: string }) => d.type === 'daytona');
    expect(described).toMatchObject({
      credential_required: true,
      test_supported: false,
      supports_managed_instances: true,
      supports_stop: true,
      supports_destroy: true,
      environment_schema: { additionalProperties: false },
    });
    expect(Object.keys(described.configuration_schema.properties)).toEqual(['api_url', 'organization_id', 'target']);
    expect((await t.rest('POST', `/api/v1/environment-providers/${providerId}/test`)).body.status).toBe('unsupported');
    const both = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'x', provider_id: providerId, config: { snapshot: 'a', image: 'b' } },
    });
    expect([both.status, both.body.error.code]).toEqual([400, 'invalid_argument']);
    const relative = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'x', provider_id: providerId, config: { working_directory: 'work' } },
    });
    expect([relative.status, relative.body.error.details.field]).toEqual([400, 'config.working_directory']);
  });

  it('provisions a sandbox, works in it through the platform tools of a run, stops, starts and destroys it', async () => {
    const tpl = await template();
    const before = daytona.requests.length;
    const env = await environment(tpl.id);
    expect(env).toMatchObject({
      status: 'ready',
      working_directory: '/home/daytona/work',
      instance_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(daytona.requests.slice(before)).toEqual(['POST /sandbox', `GET /sandbox/${env.instance_id}`, 'toolbox POST /files/folder']);
    const sandbox = daytona.sandboxes.get(env.instance_id)!;
    expect(sandbox).toMatchObject({ name: `wsa-${env.id}`, state: 'started' });
    expect(sandbox.request).toEqual({
      name: `wsa-${env.id}`,
      snapshot: 'daytonaio/sandbox:0.4.3',
      env: { GREETING: 'hello' },
      labels: { team: 'core', 'workspace-agent-service.environment-id': env.id },
      autoStopInterval: 0,
      target: 'eu',
    });
    expect(new Set(daytona.organizations)).toEqual(new Set(['org-1']));

    await insertModel(t, 'daytona-tools');
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'worker',
        config: {
          model: 'daytona-tools',
          retries: { tools: 10 },
          platform_tools: { groups: ['shell', 'files'], read_permission: 'allow', write_permission: 'allow' },
          model_settings: {
            script: [
              [{ tool_call: { id: 'w1', name: 'write_file', arguments: { path: 'notes/hello.txt', content: 'hello sandbox\n' } } }],
              [
                {
                  tool_call: { id: 'c1', name: 'run_command', arguments: { command: 'cat notes/hello.txt; echo "$GREETING" >&2; exit 3' } },
                },
              ],
              [{ tool_call: { id: 'r1', name: 'read_file', arguments: { path: 'notes/hello.txt' } } }],
              [{ tool_call: { id: 'l1', name: 'list_files', arguments: {} } }],
              [{ tool_call: { id: 'm1', name: 'read_file', arguments: { path: 'missing.txt' } } }],
              [{ text: 'Done.' }],
            ],
          },
        },
      },
    });
    const started = await t.rest('POST', '/api/v1/runs', {
      body: {
        agent_id: agent.body.id,
        input: { content: [{ type: 'text', text: 'Work.' }] },
        environment_mounts: [{ environment_id: env.id }],
      },
    });
    const done = await settleRun(t, started.body.id);
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    const items = (await t.rest('GET', `/api/v1/runs/${done.id}/items`)).body.items as any[];
    const results = Object.fromEntries(items.filter((i) => i.kind === 'tool_result').map((i) => [i.content.tool_call_id, i.content]));
    expect(results.w1.result).toEqual({ path: 'notes/hello.txt', size_bytes: 14 });
    expect(results.c1.result).toMatchObject({ exit_code: 3, signal: null, stdout: 'hello sandbox\n', stderr: 'hello\n', timed_out: false });
    expect(results.r1.result).toEqual({ path: 'notes/hello.txt', content: 'hello sandbox\n', size_bytes: 14, truncated: false });
    expect(
      results.l1.result.entries.map((e: { path: string; kind: string; size_bytes: number }) => [e.path, e.kind, e.size_bytes]),
    ).toEqual([
      ['notes', 'directory', 0],
      ['notes/hello.txt', 'file', 14],
    ]);
    expect(results.m1.error).toMatch(/missing.txt does not exist/);
    expect(readFileSync(daytona.hostPath(sandbox, '/home/daytona/work/notes/hello.txt'), 'utf8')).toBe('hello sandbox\n');

    const stopped = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect(stopped.body.status).toBe('stopped');
    expect(daytona.requests.slice(-2)).toEqual([`POST /sandbox/${env.instance_id}/stop`, `GET /sandbox/${env.instance_id}`]);
    expect(sandbox.state).toBe('stopped');
    const ctx = await driverContext();
    const instance = { instanceId: env.instance_id, workingDirectory: env.working_directory };
    await expect(daytonaEnvironmentDriver.readFile(ctx, instance, 'notes/hello.txt', { maxBytes: 100 })).rejects.toMatchObject({
      reason: 'unavailable',
      message: expect.stringMatching(/is stopped/),
    });
    await daytonaEnvironmentDriver.stop(ctx, instance);
    expect(await daytonaEnvironmentDriver.start!(ctx, instance)).toEqual(instance);
    expect(sandbox.state).toBe('started');
    expect((await daytonaEnvironmentDriver.readFile(ctx, instance, 'notes/hello.txt', { maxBytes: 5 })).content.toString()).toBe('hello');

    const destroyed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect(destroyed.body.status).toBe('destroyed');
    expect(daytona.requests.at(-1)).toBe(`DELETE /sandbox/${env.instance_id}`);
    expect(daytona.sandboxes.has(env.instance_id)).toBe(false);
    await daytonaEnvironmentDriver.destroy(ctx, instance);
    await daytonaEnvironmentDriver.stop(ctx, instance);
    await expect(daytonaEnvironmentDriver.start!(ctx, instance)).rejects.toMatchObject({ reason: 'unavailable' });
  });

  it('runs commands with standard input and an argument vector, bounds output, kills at a timeout or an abort', async () => {
    const env = await environment((await template()).id);
    const open = await openThroughRun(env.id);
    const sandbox = daytona.sandboxes.get(env.instance_id)!;
    const limits = { timeoutMs: 20_000, maxOutputBytes: 10_000 };
    const shell = await open.exec({
      command: 'echo "$GREETING $EXTRA"; pwd; printf "no newline" >&2',
      env: { EXTRA: "it's there" },
      ...limits,
    });
    expect(shell).toMatchObject({
      exitCode: 0,
      stdout: `hello it's there\n${daytona.hostPath(sandbox, '/home/daytona/work')}\n`,
      stderr: 'no newline',
    });
    const piped = await open.exec({ command: ['cat'], stdin: "through 'standard' input\n\u00e9", ...limits });
    expect([piped.exitCode, piped.stdout]).toEqual([0, "through 'standard' input\n\u00e9"]);
    const empty = await open.exec({ command: ['cat'], ...limits });
    expect([empty.exitCode, empty.stdout]).toEqual([0, '']);
    const big = await open.exec({ command: "head -c 5000 /dev/zero | tr '\\0' a", timeoutMs: 20_000, maxOutputBytes: 100 });
    expect([big.stdout.length, big.stdoutBytes, big.truncated]).toEqual([100, 5000, true]);

    const timedOut = await open.exec({ command: 'sleep 30', timeoutMs: 300, maxOutputBytes: 100 });
    expect(timedOut).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    const controller = new AbortController();
    daytona.onExecute = (script) => {
      if (script.includes('sleep 31')) controller.abort();
    };
    const aborted = await open.exec({ command: 'sleep 31', timeoutMs: 60_000, maxOutputBytes: 100, signal: controller.signal });
    daytona.onExecute = undefined;
    expect(aborted).toMatchObject({ aborted: true, timedOut: false, exitCode: null, signal: 'SIGKILL' });
    // The commands were killed (not only left behind): no shell that ran them is still there.
    expect([...sandbox.processes.values()].filter((script) => script.includes('sleep 3'))).toEqual([]);

    await open.writeFile('a/b/c.txt', 'abcdefghij');
    expect(await open.readFile('/home/daytona/work/a/b/c.txt', { maxBytes: 4 })).toMatchObject({ sizeBytes: 10, truncated: true });
    await expect(open.readFile('a', { maxBytes: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(open.writeFile('a', 'x')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(open.listFiles('a/b/c.txt', { depth: 1, limit: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(open.listFiles('none', { depth: 1, limit: 10 })).rejects.toMatchObject({ code: 'not_found' });
    expect((await open.listFiles('.', { depth: 1, limit: 10 })).entries.map((e) => e.path)).toEqual(['a']);
    expect((await open.listFiles('.', { depth: 3, limit: 10 })).entries.map((e) => e.path)).toEqual(['a', 'a/b', 'a/b/c.txt']);
    expect((await open.listFiles('.', { depth: 3, limit: 2 })).truncated).toBe(true);
  });

  it('provisions idempotently per environment, builds from an image, reports a refused snapshot, and destroys what a failed provisioning left', async () => {
    const env = await environment((await template()).id);
    const ctx = await driverContext();
    const again = await daytonaEnvironmentDriver.provision(ctx, { environmentId: env.id, config: CONFIG });
    expect(again).toEqual({ instanceId: env.instance_id, workingDirectory: '/home/daytona/work' });

    const built = await environment((await template({ image: 'python:3.12-slim', cpu: 2, memory_gb: 4, disk_gb: 10 })).id);
    expect(built).toMatchObject({ status: 'ready', working_directory: '/home/daytona' });
    expect(daytona.sandboxes.get(built.instance_id)!.request).toMatchObject({
      buildInfo: { dockerfileContent: 'FROM python:3.12-slim\n' },
      cpu: 2,
      memory: 4,
      disk: 10,
    });

    const refused = await environment((await template({ snapshot: 'no-such' })).id);
    expect(refused).toMatchObject({
      status: 'failed',
      failure_message: expect.stringMatching(/Daytona refused the sandbox \(400\): Snapshot no-such not found/),
    });

    const orphan = await daytonaEnvironmentDriver.provision(ctx, { environmentId: 'env_orphan', config: CONFIG });
    await daytonaEnvironmentDriver.destroy(ctx, { instanceId: 'env_orphan', workingDirectory: '' });
    expect(daytona.sandboxes.has(orphan.instanceId)).toBe(false);
  });

  it('checks the API key: a wrong one fails provisioning with Daytona’s answer', async () => {
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'daytona', name: 'Wrong key', config: { api_url: daytona.apiUrl }, credential: { api_key: 'dtn_wrong' } },
    });
    const env = await environment((await template(CONFIG, provider.body.id)).id);
    expect(env).toMatchObject({ status: 'failed', failure_message: expect.stringMatching(/Daytona refused the API key: Invalid API key/) });
  });

  it('answers another workspace 404', async () => {
    const env = await environment((await template()).id);
    for (const [method, path] of [
      ['GET', `/api/v1/environments/${env.id}`],
      ['POST', `/api/v1/environments/${env.id}/stop`],
      ['DELETE', `/api/v1/environments/${env.id}`],
      ['GET', `/api/v1/environment-templates/${env.template_id}`],
    ] as const)
      expect((await t.rest(method, path, { token: otherKey })).status).toBe(404);
    expect(daytona.sandboxes.get(env.instance_id)?.state).toBe('started');
  });
});

describe('a Daytona that cannot be reached', () => {
  it('fails provisioning, and answers work, stop and DELETE with failed_precondition, leaving the environment as it was', async () => {
    const gone = await startDaytonaServer();
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'daytona', name: 'Flaky', config: { api_url: gone.apiUrl }, credential: { api_key: gone.apiKey } },
    });
    const env = await environment((await template(CONFIG, provider.body.id)).id);
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
      expect.stringMatching(/could not reach the Daytona API: ECONNREFUSED/),
    ]);
    const removed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect([removed.status, removed.body.error.code]).toEqual([409, 'failed_precondition']);
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`)).body.status).toBe('ready');
    const failed = await environment((await template(CONFIG, provider.body.id)).id);
    expect(failed).toMatchObject({ status: 'failed', failure_message: expect.stringMatching(/could not reach the Daytona API/) });
  });
});
