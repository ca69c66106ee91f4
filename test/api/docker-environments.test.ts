// The `docker` environment type end to end through the public API, against a loopback Docker
// Engine API on a unix socket (test/helpers/docker-engine-server.ts): the provider test pings, a
// template names an image, creating an environment pulls the missing image and creates and starts a
// container, a run mounts it, commands run through the engine's exec API (standard input on the
// hijacked connection, output demultiplexed from its frames, timeouts and aborts killing the
// command), files go through exec, stop stops the container and DELETE removes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, TEST_OUTBOUND_POLICY } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { stillRunning } from '../helpers/wait.js';
import { makeEngineCertificates, startDockerEngineServer, type DockerEngineServer } from '../helpers/docker-engine-server.js';
import { RunEnvironments } from '../../src/engine/environment-mounts.js';
import { runCallContext } from '../../src/engine/run-context.js';
import { dockerEnvironmentDriver } from '../../src/providers/environments/docker.js';

let t: TestApp;
let engine: DockerEngineServer;
let providerId: string;
beforeAll(async () => {
  engine = await startDockerEngineServer({ pullable: ['alpine:3.20'] });
  t = await startTestApp();
  const provider = await t.rest('POST', '/api/v1/environment-providers', {
    body: { type: 'docker', name: 'Engine', config: { endpoint: engine.endpoint } },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  providerId = provider.body.id;
});
afterAll(async () => {
  await t?.stop();
  await engine?.close();
});

const CONFIG = { image: 'alpine:3.20', working_directory: '/work', env: { GREETING: 'hello' }, cpu: 1.5, memory_mb: 256 };

async function template(config: Record<string, unknown> = CONFIG) {
  const response = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'Alpine', provider_id: providerId, config } });
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

describe('the docker environment type', () => {
  it('is described with its environment schema; the provider test only pings', async () => {
    const types = await t.rest('GET', '/api/v1/provider-types/environment');
    const docker = types.body.items.find((d: { type: string }) => d.type === 'docker');
    expect(docker.environment_schema).toMatchObject({ required: ['image'], additionalProperties: false });
    const before = engine.requests.length;
    expect((await t.rest('POST', `/api/v1/environment-providers/${providerId}/test`)).body).toEqual({ status: 'succeeded', message: null });
    expect(engine.requests.slice(before)).toEqual(['GET /_ping']);
    const missing = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'docker', name: 'Nowhere', config: { endpoint: `${engine.endpoint}.missing` } },
    });
    const failed = (await t.rest('POST', `/api/v1/environment-providers/${missing.body.id}/test`)).body;
    expect(failed).toMatchObject({ status: 'failed', message: expect.stringMatching(/could not reach the container engine: ENOENT/) });
  });

  it('refuses a template without an image or with a relative working directory', async () => {
    const noImage = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'x', provider_id: providerId, config: {} } });
    expect([noImage.status, noImage.body.error.code]).toEqual([400, 'invalid_argument']);
    const relative = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'x', provider_id: providerId, config: { image: 'alpine', working_directory: 'work' } },
    });
    expect([relative.status, relative.body.error.details.field]).toEqual([400, 'config.working_directory']);
  });

  it('provisions a container (pulling the missing image), runs commands and files in it, stops and removes it', async () => {
    const tpl = await template();
    const before = engine.requests.length;
    const env = await environment(tpl.id);
    expect(env).toMatchObject({ status: 'ready', working_directory: '/work', instance_id: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(engine.requests.slice(before)).toEqual([
      'POST /containers/create',
      'POST /images/create',
      'POST /containers/create',
      `POST /containers/${env.instance_id}/start`,
    ]);
    const container = engine.containers.get(env.instance_id)!;
    expect(container).toMatchObject({ name: `wsa-${env.id}`, running: true });
    expect(container.config).toMatchObject({
      Image: 'alpine:3.20',
      WorkingDir: '/work',
      Env: ['GREETING=hello'],
      HostConfig: { NanoCpus: 1_500_000_000, Memory: 256 * 1024 * 1024 },
    });

    const { run, open } = await openThroughRun(env.id);
    expect(run.environment_mounts).toEqual([{ environment_id: env.id, name: 'default', working_directory: '/work' }]);
    const limits = { timeoutMs: 20_000, maxOutputBytes: 10_000 };
    const shell = await open.exec({ command: 'echo "$GREETING $EXTRA"; echo oops >&2; exit 3', env: { EXTRA: 'there' }, ...limits });
    expect(shell).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: 'hello there\n',
      stderr: 'oops\n',
      timedOut: false,
      truncated: false,
    });
    const piped = await open.exec({ command: ['cat'], stdin: 'through standard input', ...limits });
    expect([piped.exitCode, piped.stdout]).toEqual([0, 'through standard input']);
    const big = await open.exec({ command: "head -c 5000 /dev/zero | tr '\\0' a", timeoutMs: 20_000, maxOutputBytes: 100 });
    expect([big.stdout.length, big.stdoutBytes, big.truncated]).toEqual([100, 5000, true]);
    // A working directory the runtime cannot enter: the command never starts (the engine's error comes
    // on standard output, not the wrapper's process id), and the directory is named as the problem.
    await expect(open.exec({ command: 'pwd', cwd: 'no/such/dir', ...limits })).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/no\/such\/dir is not a directory/),
    });

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

    const stopped = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect(stopped.body.status).toBe('stopped');
    expect(engine.requests.at(-1)).toBe(`POST /containers/${env.instance_id}/stop`);
    expect(container.running).toBe(false);
    const destroyed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect(destroyed.body.status).toBe('destroyed');
    expect(engine.containers.has(env.instance_id)).toBe(false);
    expect((await t.rest('DELETE', `/api/v1/environments/${env.id}`)).status).toBe(200);
  });

  it('kills a command at its timeout or when aborted, and the container keeps working', async () => {
    const env = await environment((await template()).id);
    const { open } = await openThroughRun(env.id);
    const container = engine.containers.get(env.instance_id)!;
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
    // The commands were killed (not only left behind): nothing the engine started for them still runs.
    const leftovers = [...container.processes].filter((child) => child.spawnargs.join(' ').includes('sleep 30'));
    expect(await stillRunning(leftovers)).toEqual([]);
    expect((await open.exec({ command: 'echo still here', timeoutMs: 20_000, maxOutputBytes: 100 })).stdout).toBe('still here\n');
    expect(container.running).toBe(true);
    // A stopped container refuses work: the environment is no longer ready.
    await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    await expect(open.exec({ command: 'true', timeoutMs: 1000, maxOutputBytes: 10 })).rejects.toMatchObject({
      code: 'failed_precondition',
    });
  });

  it('starts a stopped container again with its files; a removed container or a failed environment cannot be started', async () => {
    const env = await environment((await template()).id);
    const container = engine.containers.get(env.instance_id)!;
    const { open } = await openThroughRun(env.id);
    await open.writeFile('kept.txt', 'across the restart');
    await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect(container.running).toBe(false);
    const before = engine.requests.length;
    const started = await t.rest('POST', `/api/v1/environments/${env.id}/start`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ status: 'ready', instance_id: env.instance_id, working_directory: '/work' });
    expect(engine.requests.slice(before)).toEqual([`POST /containers/${env.instance_id}/start`]);
    expect(container.running).toBe(true);
    const { open: reopened } = await openThroughRun(env.id);
    const read = await reopened.exec({ command: 'cat kept.txt', timeoutMs: 20_000, maxOutputBytes: 100 });
    expect([read.exitCode, read.stdout]).toEqual([0, 'across the restart']);
    const types = await t.rest('GET', '/api/v1/provider-types/environment');
    expect(types.body.items.find((d: { type: string }) => d.type === 'docker')).toMatchObject({ supports_start: true });

    // Removed outside the service while stopped: the start is refused and the environment stays stopped.
    await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    engine.containers.delete(env.instance_id);
    const refused = await t.rest('POST', `/api/v1/environments/${env.id}/start`);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'failed_precondition']);
    expect(refused.body.error.message).toContain('has no container');
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`)).body.status).toBe('stopped');

    const failed = await environment((await template({ image: 'no-such/image:2' })).id);
    expect(failed.status).toBe('failed');
    const notStopped = await t.rest('POST', `/api/v1/environments/${failed.id}/start`);
    expect([notStopped.status, notStopped.body.error.code]).toEqual([409, 'failed_precondition']);
    expect(notStopped.body.error.message).toContain('is failed: only a stopped environment can be started');
  });

  it('reuses present images, provisions idempotently, and reports an image it cannot pull', async () => {
    const tpl = await template();
    const before = engine.requests.length;
    const env = await environment(tpl.id);
    expect(engine.requests.slice(before).filter((r) => r.includes('/images/create'))).toEqual([]);
    const row = await t.app.deps.db.provider.findUniqueOrThrow({ where: { id: providerId } });
    const ctx = {
      providerConfig: row.config as Record<string, unknown>,
      environmentConfig: CONFIG,
      credential: null,
      dataDir: '',
      fetch,
      outbound: TEST_OUTBOUND_POLICY,
    };
    const again = await dockerEnvironmentDriver.provision(ctx, { environmentId: env.id, config: CONFIG });
    expect(again).toEqual({ instanceId: env.instance_id, workingDirectory: '/work' });

    const unknown = await template({ image: 'no-such/image:1' });
    const failed = await environment(unknown.id);
    expect(failed).toMatchObject({ status: 'failed', failure_message: expect.stringMatching(/pull access denied for no-such\/image:1/) });
  });

  it('is mounted at run start from an agent’s default template', async () => {
    const tpl = await template();
    await insertModel(t, 'default-env');
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'containers', config: { model: 'default-env', default_environment_template_id: tpl.id } },
    });
    const started = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'go' }] } },
    });
    const done = await settleRun(t, started.body.id);
    expect(done.status).toBe('completed');
    expect(done.environment_mounts).toEqual([
      { environment_id: expect.stringMatching(/^env_/), name: 'default', working_directory: '/work' },
    ]);
    const env = (await t.rest('GET', `/api/v1/environments/${done.environment_mounts[0].environment_id}`)).body;
    expect(engine.containers.get(env.instance_id)).toMatchObject({ name: `wsa-${env.id}`, running: true });
  });
});

describe('an engine that answers as Podman’s compatible service does', () => {
  it('provisions idempotently through a name conflict answered 500, reports a pull failing in the stream, and names a missing cwd', async () => {
    const podman = await startDockerEngineServer({ images: ['localhost/wsa-busybox:1'], flavour: 'podman' });
    try {
      const provider = await t.rest('POST', '/api/v1/environment-providers', {
        body: { type: 'docker', name: 'Podman', config: { endpoint: podman.endpoint } },
      });
      const config = { image: 'localhost/wsa-busybox:1', working_directory: '/work' };
      const tpl = await t.rest('POST', '/api/v1/environment-templates', {
        body: { name: 'podman', provider_id: provider.body.id, config },
      });
      const env = await environment(tpl.body.id);
      expect(env).toMatchObject({ status: 'ready', working_directory: '/work' });
      const ctx = {
        providerConfig: { endpoint: podman.endpoint },
        environmentConfig: config,
        credential: null,
        dataDir: '',
        fetch,
        outbound: TEST_OUTBOUND_POLICY,
      };
      const before = podman.requests.length;
      expect(await dockerEnvironmentDriver.provision(ctx, { environmentId: env.id, config })).toEqual({
        instanceId: env.instance_id,
        workingDirectory: '/work',
      });
      expect(podman.requests.slice(before)).toEqual([
        'POST /containers/create',
        `GET /containers/wsa-${env.id}/json`,
        `POST /containers/${env.instance_id}/start`,
      ]);
      const { open } = await openThroughRun(env.id);
      await expect(open.exec({ command: 'pwd', cwd: 'missing', timeoutMs: 20_000, maxOutputBytes: 100 })).rejects.toMatchObject({
        code: 'invalid_argument',
        message: expect.stringMatching(/missing is not a directory/),
      });
      expect((await open.exec({ command: 'pwd', timeoutMs: 20_000, maxOutputBytes: 1000 })).exitCode).toBe(0);

      const unknown = await t.rest('POST', '/api/v1/environment-templates', {
        body: { name: 'unknown', provider_id: provider.body.id, config: { image: 'localhost/no-such:1' } },
      });
      expect(await environment(unknown.body.id)).toMatchObject({
        status: 'failed',
        failure_message: expect.stringMatching(/docker:\/\/localhost\/no-such:1: pinging container registry/),
      });
    } finally {
      await podman.close();
    }
  });
});

describe('an engine that loses a command’s output (as a busy Podman service does)', () => {
  it('runs a read or a listing again when its output was lost, fails after three losses, and marks a command’s lost output', async () => {
    const env = await environment((await template()).id);
    const { open } = await openThroughRun(env.id);
    await open.writeFile('notes/hello.txt', 'hello world, a line long enough to be cut in half\n');
    const execs = () => engine.requests.filter((r) => /^POST \/exec\/[^/]+\/start$/.test(r)).length;

    // Lost entirely, then lost at the end: the third run answers, whole.
    engine.loseOutput(1, 'all');
    engine.loseOutput(1, 'tail');
    let before = execs();
    const listing = await open.listFiles('.', { depth: 3, limit: 10 });
    expect(listing.entries.map((e) => e.path)).toEqual(['notes', 'notes/hello.txt']);
    expect(execs() - before).toBe(3);
    // Lost at the start (the engine attached the stream late), with the end marker arriving.
    engine.loseOutput(1, 'head');
    before = execs();
    expect((await open.listFiles('.', { depth: 3, limit: 10 })).entries).toHaveLength(2);
    expect(execs() - before).toBe(2);
    engine.loseOutput(1, 'tail');
    before = execs();
    const read = await open.readFile('notes/hello.txt', { maxBytes: 1000 });
    expect(read).toMatchObject({ sizeBytes: 50, truncated: false });
    expect(read.content.toString()).toBe('hello world, a line long enough to be cut in half\n');
    expect(execs() - before).toBe(2);

    // Lost every time: a clear refusal (the service's failed_precondition), never partial data.
    engine.loseOutput(3, 'tail');
    await expect(open.readFile('notes/hello.txt', { maxBytes: 1000 })).rejects.toMatchObject({
      code: 'failed_precondition',
      message: expect.stringMatching(/lost the command's output \(3 attempts\)/),
    });
    engine.loseOutput(3, 'all');
    await expect(open.listFiles('.', { depth: 3, limit: 10 })).rejects.toMatchObject({ code: 'failed_precondition' });

    // A command may have side effects: it runs once, and its result says its output is incomplete.
    engine.loseOutput(1, 'tail');
    before = execs();
    const command = await open.exec({ command: 'seq 1 100', timeoutMs: 20_000, maxOutputBytes: 1000 });
    expect(execs() - before).toBe(1);
    expect(command).toMatchObject({ exitCode: 0, truncated: true, stderr: expect.stringMatching(/lost the command's output/) });
    const full = Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join('');
    expect(full.startsWith(command.stdout)).toBe(true);
    expect(command.stdout.length).toBeLessThan(full.length);
    // Output that arrives whole is not marked, and a command ending in a marker-like text keeps it.
    const whole = await open.exec({ command: 'printf "a\\n<wsa-end-"', timeoutMs: 20_000, maxOutputBytes: 1000 });
    expect(whole).toMatchObject({ exitCode: 0, stdout: 'a\n<wsa-end-', stderr: '', truncated: false });
    // A write's answer is its exit code: output lost there changes nothing.
    engine.loseOutput(1, 'all');
    await open.writeFile('notes/b.txt', 'written');
    expect((await open.readFile('notes/b.txt', { maxBytes: 100 })).content.toString()).toBe('written');
  });
});

describe('an engine that goes away', () => {
  it('answers work, stop and DELETE with failed_precondition and leaves the environment as it was', async () => {
    const gone = await startDockerEngineServer({ images: ['alpine:3.20'] });
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'docker', name: 'Flaky', config: { endpoint: gone.endpoint } },
    });
    const tpl = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'flaky', provider_id: provider.body.id, config: { image: 'alpine:3.20' } },
    });
    const env = await environment(tpl.body.id);
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
      expect.stringMatching(/could not reach the container engine/),
    ]);
    const removed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect([removed.status, removed.body.error.code]).toEqual([409, 'failed_precondition']);
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`)).body.status).toBe('ready');
  });
});

describe('a container engine on TLS with client certificates', () => {
  let tlsEngine: DockerEngineServer;
  let certificates: ReturnType<typeof makeEngineCertificates>;
  beforeAll(async () => {
    certificates = makeEngineCertificates();
    tlsEngine = await startDockerEngineServer({ images: ['alpine:3.20'], tls: certificates.server });
  });
  afterAll(async () => {
    await tlsEngine?.close();
  });

  it('is reached with the credential’s CA and client certificate, and refused without them', async () => {
    const { ca, cert, key } = certificates.client;
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: {
        type: 'docker',
        name: 'Remote engine',
        config: { endpoint: tlsEngine.endpoint },
        credential: { tls_ca: ca, tls_cert: cert, tls_key: key },
      },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    expect((await t.rest('POST', `/api/v1/environment-providers/${provider.body.id}/test`)).body.status).toBe('succeeded');
    const tpl = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'remote', provider_id: provider.body.id, config: { image: 'alpine:3.20' } },
    });
    const env = await environment(tpl.body.id);
    expect(env).toMatchObject({ status: 'ready', working_directory: '/workspace' });
    const { open } = await openThroughRun(env.id);
    const result = await open.exec({ command: ['cat'], stdin: 'over TLS', timeoutMs: 20_000, maxOutputBytes: 100 });
    expect([result.exitCode, result.stdout]).toEqual([0, 'over TLS']);

    const anonymous = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'docker', name: 'No client certificate', config: { endpoint: tlsEngine.endpoint }, credential: { tls_ca: ca } },
    });
    const refused = (await t.rest('POST', `/api/v1/environment-providers/${anonymous.body.id}/test`)).body;
    expect(refused.status).toBe('failed');
  });
});
