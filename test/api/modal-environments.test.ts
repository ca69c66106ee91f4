// The `modal` environment type end to end through the public API, against a loopback Modal
// control-plane API (test/helpers/modal-server.ts: a real gRPC server speaking Modal's messages,
// checking the token and the auth token, running commands as real processes in a directory per
// sandbox): a template names an image, creating an environment builds the image and creates a
// sandbox and waits for its task, a run's platform tools run commands and work with files in it
// through the container exec API, stop ends the commands, DELETE terminates the sandbox; an API that
// cannot be reached or refuses the token answers failed_precondition; another workspace sees nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, TEST_OUTBOUND_POLICY } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { stillRunning } from '../helpers/wait.js';
import { startModalServer, type ModalServer } from '../helpers/modal-server.js';
import { RunEnvironments } from '../../src/engine/environment-mounts.js';
import { runCallContext } from '../../src/engine/run-context.js';
import { modalEnvironmentDriver } from '../../src/providers/environments/modal.js';
import { createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let modal: ModalServer;
let providerId: string;
let otherKey: string;
const CREDENTIAL = { token_id: 'ak-test', token_secret: 'as-test' };
beforeAll(async () => {
  modal = await startModalServer({ buildable: ['python:3.12-slim', 'alpine:3.20'] });
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  const provider = await t.rest('POST', '/api/v1/environment-providers', {
    body: {
      type: 'modal',
      name: 'Modal',
      config: { server_url: modal.url, app_name: 'agents', environment: 'dev' },
      credential: CREDENTIAL,
    },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  providerId = provider.body.id;
});
afterAll(async () => {
  await t?.stop();
  await modal?.close();
});

const CONFIG = {
  image: 'python:3.12-slim',
  working_directory: '/work',
  env: { GREETING: 'hello' },
  cpu: 0.5,
  memory_mb: 1024,
  timeout_seconds: 3600,
};

async function template(config: Record<string, unknown> = CONFIG, provider = providerId) {
  const response = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'Python', provider_id: provider, config } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function environment(templateId: string) {
  const response = await t.rest('POST', '/api/v1/environments', { body: { template_id: templateId } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** The environment as a run's tools open it: a run mounts it, then the run's environments open the mount. */
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
  expect(done.status).toBe('completed');
  const row = await t.app.deps.db.run.findUniqueOrThrow({ where: { id: done.id } });
  const environments = new RunEnvironments(
    { deps: t.app.deps, call: runCallContext(t.app.deps, row), run: row },
    null,
    done.environment_mounts,
  );
  return { run: done, open: await environments.open() };
}

describe('the modal environment type', () => {
  it('is described with its schemas; the provider test is unsupported; bad configs are refused', async () => {
    const types = await t.rest('GET', '/api/v1/provider-types/environment');
    const described = types.body.items.find((d: { type: string }) => d.type === 'modal');
    expect(described).toMatchObject({
      environment_schema: { required: ['image'], additionalProperties: false },
      supports_managed_instances: true,
      supports_stop: true,
      supports_destroy: true,
    });
    expect((await t.rest('POST', `/api/v1/environment-providers/${providerId}/test`)).body.status).toBe('unsupported');
    const noToken = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'modal', name: 'x', config: {} } });
    expect([noToken.status, noToken.body.error.code]).toEqual([400, 'invalid_argument']);
    const plain = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'modal', name: 'x', config: { server_url: 'http://modal.internal:9000' }, credential: CREDENTIAL },
    });
    expect([plain.status, plain.body.error.details.field]).toEqual([400, 'config.server_url']);
    const noImage = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'x', provider_id: providerId, config: {} } });
    expect([noImage.status, noImage.body.error.code]).toEqual([400, 'invalid_argument']);
    const relative = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'x', provider_id: providerId, config: { image: 'alpine:3.20', working_directory: 'work' } },
    });
    expect([relative.status, relative.body.error.details.field]).toEqual([400, 'config.working_directory']);
  });

  it('provisions a sandbox (building its image), runs commands and files in it, stops and terminates it', async () => {
    const tpl = await template();
    const before = modal.calls.length;
    const env = await environment(tpl.id);
    expect(env).toMatchObject({ status: 'ready', working_directory: '/work', instance_id: expect.stringMatching(/^sb-/) });
    // The first call of a client fetches its auth token; a new image is joined until its build ends.
    expect(modal.calls.slice(before)).toEqual([
      'AuthTokenGet',
      'EnvironmentGetOrCreate',
      'AppGetOrCreate',
      'ImageGetOrCreate',
      'ImageJoinStreaming',
      'SandboxCreate',
      'SandboxGetTaskId',
      'TaskGetCommandRouterAccess',
      'TaskExecStart',
      ...modal.calls.slice(before + 9),
    ]);
    expect(modal.lastRequest.get('AppGetOrCreate')).toMatchObject({ app_name: 'agents', environment_name: 'dev', object_creation_type: 1 });
    expect(modal.lastRequest.get('ImageGetOrCreate')).toMatchObject({
      image: { dockerfile_commands: ['FROM python:3.12-slim'] },
      builder_version: '2025.06',
    });
    const sandbox = modal.sandboxes.get(env.instance_id)!;
    expect(sandbox).toMatchObject({ name: `wsa-${env.id}`, running: true });
    expect(sandbox.tags).toEqual([{ tag_name: 'workspace-agent-service.environment-id', tag_value: env.id }]);
    expect(sandbox.definition).toMatchObject({
      resources: { milli_cpu: 500, memory_mb: 1024 },
      timeout_secs: 3600,
      environment_variables: { contents: { GREETING: 'hello' } },
      entrypoint_args: ['/bin/sh', '-c', expect.stringContaining('sleep')],
    });

    const { run, open } = await openThroughRun(env.id);
    expect(run.environment_mounts).toEqual([{ environment_id: env.id, name: 'default', working_directory: '/work' }]);
    const limits = { timeoutMs: 20_000, maxOutputBytes: 10_000 };
    const shell = await open.exec({ command: 'echo "$GREETING $EXTRA"; pwd; echo oops >&2; exit 3', env: { EXTRA: 'there' }, ...limits });
    expect(shell).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: expect.stringMatching(/^hello there\n.*\/work\n$/),
      stderr: 'oops\n',
    });
    expect(shell).toMatchObject({ timedOut: false, truncated: false });
    expect(modal.lastRequest.get('TaskExecStart')).toMatchObject({
      task_id: sandbox.taskId,
      exec_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      command_args: ['/bin/sh', '-c', expect.any(String), 'wsa-exec', '/bin/sh', '-c', expect.stringContaining('$GREETING')],
      workdir: '/work',
      stdout_config: 1,
      stderr_config: 1,
      env: { EXTRA: 'there', WSA_COMMAND: sandbox.id },
    });
    const piped = await open.exec({ command: ['cat'], stdin: 'through standard input', ...limits });
    expect([piped.exitCode, piped.stdout]).toEqual([0, 'through standard input']);
    // Standard input larger than one ContainerExecPutInput piece arrives whole and in order.
    const large = Buffer.alloc(700 * 1024, 'abcdefghijklmnopqrstuvwxyz');
    const counted = await open.exec({ command: 'wc -c; true', stdin: large.toString(), ...limits });
    expect(counted.stdout.trim()).toBe(String(large.length));
    // An expired router JWT is fetched again once, and the command still runs.
    const accesses = modal.routerAccesses;
    modal.expireRouterTokens();
    expect((await open.exec({ command: 'echo again', ...limits })).stdout).toBe('again\n');
    expect(modal.routerAccesses).toBe(accesses + 1);
    const big = await open.exec({ command: "head -c 5000 /dev/zero | tr '\\0' a", timeoutMs: 20_000, maxOutputBytes: 100 });
    expect([big.stdout.length, big.stdoutBytes, big.truncated]).toEqual([100, 5000, true]);

    await open.writeFile('notes/a.txt', 'hello file');
    expect((await open.readFile('notes/a.txt', { maxBytes: 1000 })).content.toString()).toBe('hello file');
    expect(await open.readFile('/work/notes/a.txt', { maxBytes: 5 })).toMatchObject({ sizeBytes: 10, truncated: true });
    expect((await open.exec({ command: 'cat notes/a.txt', ...limits })).stdout).toBe('hello file');
    const listing = await open.listFiles('.', { depth: 3, limit: 10 });
    expect(listing.entries.map((e) => [e.path, e.kind, e.sizeBytes])).toEqual([
      ['notes', 'directory', 0],
      ['notes/a.txt', 'file', 10],
    ]);
    expect((await open.listFiles('.', { depth: 3, limit: 1 })).truncated).toBe(true);
    await expect(open.readFile('missing.txt', { maxBytes: 10 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(open.readFile('notes', { maxBytes: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(open.listFiles('notes/a.txt', { depth: 1, limit: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });

    // Stop ends the commands the service started; the sandbox and its files stay until DELETE.
    const controller = new AbortController();
    const running = open.exec({
      command: 'echo started; sleep 30',
      timeoutMs: 60_000,
      maxOutputBytes: 100,
      signal: controller.signal,
      onOutput: (_stream, chunk) => {
        if (chunk.toString().includes('started')) void stopNow();
      },
    });
    let stopped: Promise<any> | null = null;
    const stopNow = () => (stopped ??= t.rest('POST', `/api/v1/environments/${env.id}/stop`));
    const ended = await running;
    expect(ended).toMatchObject({ exitCode: 137, stdout: 'started\n', timedOut: false, aborted: false });
    expect((await stopped!).body.status).toBe('stopped');
    expect(sandbox.running).toBe(true);
    // A stopped environment is not ready: new work in it is refused.
    const refused = await t.rest('POST', '/api/v1/runs', {
      body: {
        agent_id: run.agent_id,
        input: { content: [{ type: 'text', text: 'Again.' }] },
        environment_mounts: [{ environment_id: env.id }],
      },
    });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'failed_precondition']);
    expect((await open.listFiles('.', { depth: 1, limit: 10 })).entries.map((e) => e.path)).toEqual(['notes']);

    const destroyed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect(destroyed.body.status).toBe('destroyed');
    expect(modal.calls.at(-1)).toBe('SandboxTerminate');
    expect(modal.lastRequest.get('SandboxTerminate')).toEqual({ sandbox_id: env.instance_id });
    expect(sandbox.running).toBe(false);
    expect((await t.rest('DELETE', `/api/v1/environments/${env.id}`)).status).toBe(200);
  });

  it('kills a command at its timeout or when aborted, and the sandbox keeps working', async () => {
    const env = await environment((await template()).id);
    const { open } = await openThroughRun(env.id);
    const sandbox = modal.sandboxes.get(env.instance_id)!;
    const timedOut = await open.exec({ command: 'sleep 30', timeoutMs: 300, maxOutputBytes: 100 });
    expect(timedOut).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
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
    const leftovers = [...sandbox.processes].filter((child) => child.spawnargs.join(' ').includes('sleep 30'));
    expect(await stillRunning(leftovers)).toEqual([]);
    expect((await open.exec({ command: 'echo still here', timeoutMs: 20_000, maxOutputBytes: 100 })).stdout).toBe('still here\n');
    // A command that leaves a process holding its output open still ends when it exits.
    const background = await open.exec({ command: 'sleep 30 & echo done', timeoutMs: 20_000, maxOutputBytes: 100 });
    expect(background).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
    // A sandbox terminated outside the service: work answers failed_precondition, DELETE still succeeds.
    modal.sandboxes.get(env.instance_id)!.running = false;
    await expect(open.exec({ command: 'true', timeoutMs: 5000, maxOutputBytes: 10 })).rejects.toMatchObject({
      code: 'failed_precondition',
    });
    expect((await t.rest('DELETE', `/api/v1/environments/${env.id}`)).body.status).toBe('destroyed');
  });

  it('provisions idempotently by the sandbox’s name, reuses built images, and reports an image Modal cannot build', async () => {
    const tpl = await template();
    const before = modal.calls.length;
    const env = await environment(tpl.id);
    expect(modal.calls.slice(before)).not.toContain('ImageJoinStreaming');
    const row = await t.app.deps.db.provider.findUniqueOrThrow({ where: { id: providerId } });
    const ctx = {
      providerConfig: row.config as Record<string, unknown>,
      environmentConfig: CONFIG,
      credential: CREDENTIAL,
      dataDir: '',
      fetch,
      outbound: TEST_OUTBOUND_POLICY,
    };
    const again = await modalEnvironmentDriver.provision(ctx, { environmentId: env.id, config: CONFIG });
    expect(again).toEqual({ instanceId: env.instance_id, workingDirectory: '/work' });
    expect(modal.calls).toContain('SandboxGetFromName');
    // Starting again (after stop) finds the sandbox's task; a sandbox that has ended cannot start.
    const instance = { instanceId: env.instance_id, workingDirectory: '/work' };
    expect(await modalEnvironmentDriver.start!(ctx, instance)).toEqual(instance);
    modal.sandboxes.get(env.instance_id)!.running = false;
    await expect(modalEnvironmentDriver.start!(ctx, instance)).rejects.toMatchObject({
      reason: 'unavailable',
      message: expect.stringMatching(/the sandbox has ended: Sandbox was terminated/),
    });

    const unknown = await template({ image: 'no-such/image:1' });
    const failed = await environment(unknown.id);
    expect(failed).toMatchObject({
      status: 'failed',
      failure_message: expect.stringMatching(/Modal could not build the image no-such\/image:1: Failed to pull no-such\/image:1/),
    });
    expect((await t.rest('DELETE', `/api/v1/environments/${failed.id}`)).body.status).toBe('destroyed');
  });

  it('works in a run: the platform tools run commands and read, write and list files in the sandbox', async () => {
    const tpl = await template({ image: 'alpine:3.20' });
    await insertModel(t, 'tools');
    const calls = [
      { id: 'w1', name: 'write_file', arguments: { path: 'src/app.txt', content: 'version 1\n' } },
      { id: 'c1', name: 'run_command', arguments: { command: 'cat src/app.txt; pwd; echo warn >&2' } },
      { id: 'e1', name: 'edit_file', arguments: { path: 'src/app.txt', old_string: '1', new_string: '2' } },
      { id: 'l1', name: 'list_files', arguments: {} },
      { id: 'r1', name: 'read_file', arguments: { path: 'src/app.txt' } },
    ];
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'sandboxed',
        config: {
          model: 'tools',
          model_settings: { script: [...calls.map((call) => [{ tool_call: call }]), [{ text: 'Done.' }]] },
          default_environment_template_id: tpl.id,
          platform_tools: { groups: ['shell', 'files'], read_permission: 'allow', write_permission: 'allow' },
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
    const results = Object.fromEntries(
      items.filter((item) => item.kind === 'tool_result').map((item) => [item.content.tool_call_id, item.content]),
    );
    expect(results.w1.result).toEqual({ path: 'src/app.txt', size_bytes: 10 });
    expect(results.c1.result).toMatchObject({
      exit_code: 0,
      stdout: expect.stringMatching(/^version 1\n.*\/workspace\n$/),
      stderr: 'warn\n',
    });
    expect(results.e1.result).toEqual({ path: 'src/app.txt', replacements: 1, size_bytes: 10 });
    expect(results.l1.result.entries.map((e: { path: string; kind: string }) => [e.path, e.kind])).toEqual([
      ['src', 'directory'],
      ['src/app.txt', 'file'],
    ]);
    expect(results.r1.result).toMatchObject({ content: 'version 2\n', size_bytes: 10 });
    const env = (await t.rest('GET', `/api/v1/environments/${done.environment_mounts[0].environment_id}`)).body;
    expect(env).toMatchObject({ status: 'ready', working_directory: '/workspace' });
    expect(modal.sandboxes.get(env.instance_id)).toMatchObject({ name: `wsa-${env.id}`, running: true });
  });

  it('maintains environments of a disabled provider: work, stop and DELETE go on, new ones are refused', async () => {
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'modal', name: 'Retiring', config: { server_url: modal.url }, credential: CREDENTIAL },
    });
    const tpl = await template(CONFIG, provider.body.id);
    const env = await environment(tpl.id);
    const { open } = await openThroughRun(env.id);
    const current = await t.rest('GET', `/api/v1/environment-providers/${provider.body.id}`);
    const disabled = await t.rest('PATCH', `/api/v1/environment-providers/${provider.body.id}`, {
      body: { enabled: false },
      headers: { 'if-match': current.headers.get('etag')! },
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    const refused = await t.rest('POST', '/api/v1/environments', { body: { template_id: tpl.id } });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'disabled']);
    expect((await open.exec({ command: 'echo maintained', timeoutMs: 20_000, maxOutputBytes: 100 })).stdout).toBe('maintained\n');
    expect((await t.rest('POST', `/api/v1/environments/${env.id}/stop`)).body.status).toBe('stopped');
    expect((await t.rest('DELETE', `/api/v1/environments/${env.id}`)).body.status).toBe('destroyed');
    expect(modal.sandboxes.get(env.instance_id)!.running).toBe(false);
  });

  it('answers 404 to another workspace', async () => {
    const tpl = await template();
    const env = await environment(tpl.id);
    for (const [method, path] of [
      ['GET', `/api/v1/environment-providers/${providerId}`],
      ['GET', `/api/v1/environment-templates/${tpl.id}`],
      ['GET', `/api/v1/environments/${env.id}`],
      ['POST', `/api/v1/environments/${env.id}/stop`],
      ['DELETE', `/api/v1/environments/${env.id}`],
    ] as const)
      expect((await t.rest(method, path, { token: otherKey })).status, `${method} ${path}`).toBe(404);
    const foreign = await t.rest('POST', '/api/v1/environments', { token: otherKey, body: { template_id: tpl.id } });
    expect([foreign.status, foreign.body.error.details.field]).toEqual([404, 'template_id']);
    expect(modal.sandboxes.get(env.instance_id)!.running).toBe(true);
  });
});

describe('a Modal API that refuses or goes away', () => {
  it('fails provisioning when the token is refused, checked by the server', async () => {
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: {
        type: 'modal',
        name: 'Wrong token',
        config: { server_url: modal.url },
        credential: { token_id: 'ak-test', token_secret: 'as-wrong' },
      },
    });
    const env = await environment((await template(CONFIG, provider.body.id)).id);
    expect(env).toMatchObject({
      status: 'failed',
      failure_message: expect.stringMatching(/refused the token.*Token ID or secret is invalid/),
    });
  });

  it('answers work, stop and DELETE with failed_precondition and leaves the environment as it was', async () => {
    const gone = await startModalServer({ buildable: ['python:3.12-slim'] });
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'modal', name: 'Flaky', config: { server_url: gone.url }, credential: CREDENTIAL },
    });
    const env = await environment((await template(CONFIG, provider.body.id)).id);
    expect(env.status).toBe('ready');
    const { open } = await openThroughRun(env.id);
    await gone.close();
    await expect(open.exec({ command: 'true', timeoutMs: 5000, maxOutputBytes: 10 })).rejects.toMatchObject({
      code: 'failed_precondition',
    });
    await expect(open.writeFile('a.txt', 'x')).rejects.toMatchObject({ code: 'failed_precondition' });
    const stop = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect([stop.status, stop.body.error.code, stop.body.error.message]).toEqual([
      409,
      'failed_precondition',
      expect.stringMatching(/could not reach the Modal API/),
    ]);
    const removed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect([removed.status, removed.body.error.code]).toEqual([409, 'failed_precondition']);
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`)).body.status).toBe('ready');
    // A server that was never there fails provisioning with the reason.
    const nowhere = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'modal', name: 'Nowhere', config: { server_url: gone.url }, credential: CREDENTIAL },
    });
    const failed = await environment((await template(CONFIG, nowhere.body.id)).id);
    expect(failed).toMatchObject({ status: 'failed', failure_message: expect.stringMatching(/could not reach the Modal API/) });
  });
});
