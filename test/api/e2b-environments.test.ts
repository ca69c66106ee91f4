// The `e2b` environment type end to end through the public API, against a loopback E2B
// (test/helpers/e2b-server.ts: the control plane checking X-API-Key, and envd behind a shared
// sandbox host routed by E2b-Sandbox-Id, speaking Connect RPC and HTTP /files, running real
// processes in a temp directory): provider and template, provisioning a sandbox, the platform tools
// of a scripted run, commands with standard input, timeouts and aborts, files, stop (pause), start
// (resume), destroy (kill), an API that cannot be reached, and another workspace.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, TEST_OUTBOUND_POLICY } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { startE2bServer, type E2bServer } from '../helpers/e2b-server.js';
import { createWorkspace } from '../../src/features/access/admin.js';
import { RunEnvironments } from '../../src/engine/environment-mounts.js';
import { runCallContext } from '../../src/engine/run-context.js';
import { e2bEnvironmentDriver } from '../../src/providers/environments/e2b.js';

let t: TestApp;
let e2b: E2bServer;
let providerId: string;
let otherKey: string;
beforeAll(async () => {
  e2b = await startE2bServer({ templates: ['base', 'code-interpreter-v1'] });
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  const provider = await t.rest('POST', '/api/v1/environment-providers', {
    body: { type: 'e2b', name: 'E2B', config: { api_url: e2b.apiUrl, sandbox_url: e2b.sandboxUrl }, credential: { api_key: e2b.apiKey } },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  providerId = provider.body.id;
});
afterAll(async () => {
  await t?.stop();
  await e2b?.close();
});

const CONFIG = {
  template: 'base',
  timeout_seconds: 600,
  metadata: { team: 'core' },
  env: { GREETING: 'hello' },
  working_directory: '/home/user/work',
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
    credential: { api_key: e2b.apiKey },
    dataDir: '',
    fetch,
    outbound: TEST_OUTBOUND_POLICY,
  };
};

/** The environment as a run's tools open it. */
let models = 0;
async function openThroughRun(environmentId: string) {
  const model = `e2b-${++models}`;
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

describe('the e2b environment type', () => {
  it('is described with its schemas; the provider test is unsupported', async () => {
    const types = await t.rest('GET', '/api/v1/provider-types/environment');
    const described = types.body.items.find((d: { type: string }) => d.type === 'e2b');
    expect(described).toMatchObject({
      credential_required: true,
      test_supported: false,
      supports_managed_instances: true,
      supports_stop: true,
      supports_destroy: true,
      environment_schema: { required: ['template'], additionalProperties: false },
    });
    expect(Object.keys(described.configuration_schema.properties)).toEqual(['api_url', 'domain', 'sandbox_url']);
    expect((await t.rest('POST', `/api/v1/environment-providers/${providerId}/test`)).body.status).toBe('unsupported');
    const noTemplate = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'x', provider_id: providerId, config: {} } });
    expect([noTemplate.status, noTemplate.body.error.code]).toEqual([400, 'invalid_argument']);
    const relative = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'x', provider_id: providerId, config: { template: 'base', working_directory: 'work' } },
    });
    expect([relative.status, relative.body.error.details.field]).toEqual([400, 'config.working_directory']);
    const noKey = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'e2b', name: 'No key', config: {} } });
    expect(noKey.status).toBe(400);
  });

  it('provisions a sandbox, works in it through the platform tools of a run, stops, starts and destroys it', async () => {
    const tpl = await template();
    const before = e2b.requests.length;
    const env = await environment(tpl.id);
    expect(env).toMatchObject({
      status: 'ready',
      working_directory: '/home/user/work',
      instance_id: expect.stringMatching(/^i[0-9a-f]{20}$/),
    });
    expect(e2b.requests.slice(before)).toEqual(['GET /v2/sandboxes', 'POST /sandboxes', 'envd POST /filesystem.Filesystem/MakeDir']);
    const sandbox = e2b.sandboxes.get(env.instance_id)!;
    expect(sandbox).toMatchObject({
      templateID: 'base',
      timeout: 600,
      autoPause: false,
      envVars: { GREETING: 'hello' },
      metadata: { team: 'core', 'workspace-agent-service.environment-id': env.id },
    });

    // A scripted run that works in it with the platform tools.
    await insertModel(t, 'e2b-tools');
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'worker',
        config: {
          model: 'e2b-tools',
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
    // The file really is in the sandbox, and envd saw the sandbox's token and the default user.
    expect(readFileSync(e2b.hostPath(sandbox, '/home/user/work/notes/hello.txt'), 'utf8')).toBe('hello sandbox\n');
    expect([...sandbox.users]).toEqual(['user']);

    // Stop pauses the sandbox; start (at the driver) resumes it with its files.
    const stopped = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect(stopped.body.status).toBe('stopped');
    expect(e2b.requests.at(-1)).toBe(`POST /sandboxes/${env.instance_id}/pause`);
    expect(sandbox.state).toBe('paused');
    const ctx = await driverContext();
    const instance = { instanceId: env.instance_id, workingDirectory: env.working_directory };
    await expect(e2bEnvironmentDriver.readFile(ctx, instance, 'notes/hello.txt', { maxBytes: 100 })).rejects.toMatchObject({
      reason: 'unavailable',
      message: expect.stringMatching(/is paused/),
    });
    expect(await e2bEnvironmentDriver.start!(ctx, instance)).toEqual(instance);
    expect(e2b.requests.at(-1)).toBe(`POST /sandboxes/${env.instance_id}/connect`);
    expect(sandbox).toMatchObject({ state: 'running', timeout: 600 });
    expect((await e2bEnvironmentDriver.readFile(ctx, instance, 'notes/hello.txt', { maxBytes: 5 })).content.toString()).toBe('hello');
    // A second stop of a paused sandbox (E2B answers 409) is no error.
    await e2bEnvironmentDriver.stop(ctx, instance);
    await e2bEnvironmentDriver.stop(ctx, instance);

    const destroyed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect(destroyed.body.status).toBe('destroyed');
    expect(e2b.requests.at(-1)).toBe(`DELETE /sandboxes/${env.instance_id}`);
    expect(e2b.sandboxes.has(env.instance_id)).toBe(false);
    await e2bEnvironmentDriver.destroy(ctx, instance);
    await expect(e2bEnvironmentDriver.start!(ctx, instance)).rejects.toMatchObject({ reason: 'unavailable' });
  });

  it('runs commands with standard input and an argument vector, bounds output, kills at a timeout or an abort', async () => {
    const env = await environment((await template()).id);
    const open = await openThroughRun(env.id);
    const sandbox = e2b.sandboxes.get(env.instance_id)!;
    const limits = { timeoutMs: 20_000, maxOutputBytes: 10_000 };
    const shell = await open.exec({ command: 'echo "$GREETING $EXTRA"; pwd', env: { EXTRA: 'there' }, ...limits });
    expect(shell).toMatchObject({ exitCode: 0, stdout: `hello there\n${e2b.hostPath(sandbox, '/home/user/work')}\n` });
    const piped = await open.exec({ command: ['cat'], stdin: 'through standard input', ...limits });
    expect([piped.exitCode, piped.stdout]).toEqual([0, 'through standard input']);
    const empty = await open.exec({ command: ['cat'], stdin: '', ...limits });
    expect([empty.exitCode, empty.stdout]).toEqual([0, '']);
    const big = await open.exec({ command: "head -c 5000 /dev/zero | tr '\\0' a", timeoutMs: 20_000, maxOutputBytes: 100 });
    expect([big.stdout.length, big.stdoutBytes, big.truncated]).toEqual([100, 5000, true]);
    await expect(open.exec({ command: 'true', cwd: 'nowhere', ...limits })).rejects.toMatchObject({ code: 'invalid_argument' });

    const timedOut = await open.exec({ command: 'sleep 30', timeoutMs: 300, maxOutputBytes: 100 });
    expect(timedOut).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    expect(e2b.requests).toContain('envd POST /process.Process/SendSignal');
    const controller = new AbortController();
    const aborted = await open.exec({
      command: 'echo started; sleep 30',
      timeoutMs: 60_000,
      maxOutputBytes: 100,
      signal: controller.signal,
      onOutput: (_stream, chunk) => {
        if (chunk.toString().includes('started')) controller.abort();
      },
    });
    expect(aborted).toMatchObject({ aborted: true, timedOut: false, exitCode: null, stdout: 'started\n' });
    expect(sandbox.processes.size).toBe(0);
    // A command a signal ended by itself reports the signal.
    const killedItself = await open.exec({ command: ['/bin/sh', '-c', 'kill -TERM $$'], ...limits });
    expect(killedItself).toMatchObject({ exitCode: null, signal: 'SIGTERM', timedOut: false, aborted: false });

    // Files: bounded reads, directories where files are expected and the reverse, absolute paths.
    await open.writeFile('a/b/c.txt', 'abcdefghij');
    expect(await open.readFile('/home/user/work/a/b/c.txt', { maxBytes: 4 })).toMatchObject({ sizeBytes: 10, truncated: true });
    await expect(open.readFile('a', { maxBytes: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(open.writeFile('a', 'x')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(open.listFiles('a/b/c.txt', { depth: 1, limit: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(open.listFiles('none', { depth: 1, limit: 10 })).rejects.toMatchObject({ code: 'not_found' });
    const shallow = await open.listFiles('.', { depth: 1, limit: 10 });
    expect(shallow.entries.map((e) => e.path)).toEqual(['a']);
    expect((await open.listFiles('.', { depth: 3, limit: 2 })).truncated).toBe(true);
  });

  it('provisions idempotently per environment, refuses an unknown template, and destroys what a failed provisioning left', async () => {
    const env = await environment((await template()).id);
    const ctx = await driverContext();
    const again = await e2bEnvironmentDriver.provision(ctx, { environmentId: env.id, config: CONFIG });
    expect(again).toEqual({ instanceId: env.instance_id, workingDirectory: '/home/user/work' });
    expect([...e2b.sandboxes.values()].filter((s) => s.metadata['workspace-agent-service.environment-id'] === env.id)).toHaveLength(1);
    // A paused sandbox of the environment is resumed, not replaced.
    await e2bEnvironmentDriver.stop(ctx, { instanceId: env.instance_id, workingDirectory: env.working_directory });
    expect(e2b.sandboxes.get(env.instance_id)!.state).toBe('paused');
    expect(await e2bEnvironmentDriver.provision(ctx, { environmentId: env.id, config: CONFIG })).toEqual(again);
    expect(e2b.sandboxes.get(env.instance_id)!.state).toBe('running');

    const unknown = await environment((await template({ template: 'no-such-template' })).id);
    expect(unknown).toMatchObject({
      status: 'failed',
      failure_message: expect.stringMatching(/E2B refused the sandbox \(404\): template 'no-such-template' not found/),
    });

    // Destroying by the environment's own id (no sandbox id recorded) finds the sandbox by its metadata.
    const orphan = await e2bEnvironmentDriver.provision(ctx, { environmentId: 'env_orphan', config: CONFIG });
    await e2bEnvironmentDriver.destroy(ctx, { instanceId: 'env_orphan', workingDirectory: '' });
    expect(e2b.sandboxes.has(orphan.instanceId)).toBe(false);
  });

  it('checks the API key: a wrong one fails provisioning with E2B’s answer', async () => {
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: {
        type: 'e2b',
        name: 'Wrong key',
        config: { api_url: e2b.apiUrl, sandbox_url: e2b.sandboxUrl },
        credential: { api_key: 'e2b_wrong' },
      },
    });
    const env = await environment((await template(CONFIG, provider.body.id)).id);
    expect(env).toMatchObject({ status: 'failed', failure_message: expect.stringMatching(/E2B refused the API key: Invalid API key/) });
  });

  it('answers another workspace 404', async () => {
    const env = await environment((await template()).id);
    for (const [method, path] of [
      ['GET', `/api/v1/environments/${env.id}`],
      ['POST', `/api/v1/environments/${env.id}/stop`],
      ['DELETE', `/api/v1/environments/${env.id}`],
      ['GET', `/api/v1/environment-providers/${providerId}`],
    ] as const)
      expect((await t.rest(method, path, { token: otherKey })).status).toBe(404);
    expect(e2b.sandboxes.get(env.instance_id)?.state).toBe('running');
  });
});

describe('an E2B that cannot be reached', () => {
  it('fails provisioning, and answers work, stop and DELETE with failed_precondition, leaving the environment as it was', async () => {
    const gone = await startE2bServer();
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: {
        type: 'e2b',
        name: 'Flaky',
        config: { api_url: gone.apiUrl, sandbox_url: gone.sandboxUrl },
        credential: { api_key: gone.apiKey },
      },
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
      expect.stringMatching(/could not reach the E2B API: ECONNREFUSED/),
    ]);
    const removed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect([removed.status, removed.body.error.code]).toEqual([409, 'failed_precondition']);
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`)).body.status).toBe('ready');
    const failed = await environment((await template(CONFIG, provider.body.id)).id);
    expect(failed).toMatchObject({ status: 'failed', failure_message: expect.stringMatching(/could not reach the E2B API/) });
  });
});
