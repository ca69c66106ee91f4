// The `docker` environment type against a REAL container engine: Podman's Docker-compatible API
// service, started by the test on its own socket with its own configuration and storage
// (test/helpers/podman-engine.ts), with an image imported from a tarball (no registry is reachable).
// Through the public API: the provider (a unix:// endpoint) and its test (a ping), a template naming
// the image, an environment provisioned to `ready` (verified in the engine), a scripted run whose
// platform tools run commands (exit codes, standard error, a timeout's kill, a missing cwd), write,
// read, edit, list, grep and glob files and truncate large output, a cancelled run whose command is
// killed, provisioning again (idempotent) and after a stop, stop, and DELETE removing the container.
// Skips only when podman is not installed (CI installs it: .ci/run).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, TEST_OUTBOUND_POLICY } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';
import { podmanPath, startPodmanEngine, type PodmanEngine } from '../helpers/podman-engine.js';
import { dockerEnvironmentDriver } from '../../src/providers/environments/docker.js';
import type { EnvironmentDriverContext, EnvironmentInstance } from '../../src/providers/environment-driver.js';

const podman = podmanPath();
if (!podman) console.warn('docker-real-engine.test.ts: skipped — podman is not installed (Debian: podman runc busybox-static)');

// The slow tier (npm run test:slow; CI runs it): starting the engine and a pull it cannot make take
// most of 15–20 s on two busy cores.
describe.skipIf(!podman)('the docker environment type on a real engine (Podman’s compatible service)', { tags: ['slow'] }, () => {
  let engine: PodmanEngine;
  let t: TestApp;
  let providerId: string;
  let templateId: string;
  let ctx: EnvironmentDriverContext;

  beforeAll(async () => {
    engine = await startPodmanEngine();
    t = await startTestApp();
    await insertModel(t, 'dev');
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'docker', name: 'Podman', config: { endpoint: engine.endpoint } },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    providerId = provider.body.id;
    const config = { image: engine.image, working_directory: '/work', env: { GREETING: 'hello' }, cpu: 1, memory_mb: 256 };
    const template = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'Busybox', provider_id: providerId, config } });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    templateId = template.body.id;
    ctx = {
      providerConfig: { endpoint: engine.endpoint },
      environmentConfig: config,
      credential: null,
      dataDir: '',
      fetch,
      outbound: TEST_OUTBOUND_POLICY,
    };
  });
  afterAll(async () => {
    await t?.stop();
    await engine?.close();
  });

  /** A command run in the container directly through the driver (what the test looks at, not what it tests). */
  const look = async (instance: EnvironmentInstance, command: string) =>
    (await dockerEnvironmentDriver.exec(ctx, instance, { command, timeoutMs: 20_000, maxOutputBytes: 100_000 })).stdout;
  /** The processes running in the container, one command line each. */
  const processes = (instance: EnvironmentInstance) => look(instance, 'ps -o args').then((out) => out.split('\n'));

  async function environment() {
    const response = await t.rest('POST', '/api/v1/environments', { body: { template_id: templateId } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  type Call = { id: string; name: string; arguments: Record<string, unknown> };
  async function startRun(environmentId: string, calls: Call[]) {
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'worker',
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
    return started.body.id as string;
  }
  const itemsOf = async (runId: string) => (await t.rest('GET', `/api/v1/runs/${runId}/items`)).body.items as any[];
  async function resultsOf(runId: string): Promise<Record<string, any>> {
    const results = (await itemsOf(runId)).filter((item) => item.kind === 'tool_result');
    return Object.fromEntries(results.map((item) => [item.content.tool_call_id, item]));
  }

  it('the provider test pings the engine; an endpoint where nothing listens fails', async () => {
    expect((await t.rest('POST', `/api/v1/environment-providers/${providerId}/test`)).body).toEqual({ status: 'succeeded', message: null });
    const missing = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'docker', name: 'Nowhere', config: { endpoint: `${engine.endpoint}.missing` } },
    });
    expect((await t.rest('POST', `/api/v1/environment-providers/${missing.body.id}/test`)).body).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/could not reach the container engine: ENOENT/),
    });
  });

  it('provisions a container, runs the platform tools in it, stops it and DELETE removes it', async () => {
    const env = await environment();
    expect(env).toMatchObject({ status: 'ready', working_directory: '/work', instance_id: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const inspected = await engine.api('GET', `/containers/${env.instance_id}/json`);
    expect(inspected.status).toBe(200);
    expect(inspected.body).toMatchObject({
      Id: env.instance_id,
      Name: expect.stringMatching(new RegExp(`^/?wsa-${env.id}$`)),
      State: { Running: true },
      Config: { WorkingDir: '/work', Labels: { 'workspace-agent-service.environment-id': env.id } },
    });
    expect(inspected.body.Config.Env).toContain('GREETING=hello');
    const instance = { instanceId: env.instance_id, workingDirectory: '/work' };

    const runId = await startRun(env.id, [
      { id: 'w1', name: 'write_file', arguments: { path: 'notes/hello.txt', content: 'hello world\nsecond line\n' } },
      { id: 'c1', name: 'run_command', arguments: { command: 'echo "$GREETING"; cat notes/hello.txt; echo oops >&2; exit 3' } },
      { id: 'e1', name: 'edit_file', arguments: { path: 'notes/hello.txt', old_string: 'world', new_string: 'there' } },
      { id: 'g1', name: 'grep', arguments: { pattern: 'th[e]re', path: '.' } },
      { id: 'g2', name: 'grep', arguments: { pattern: 'second', include: '*.md' } },
      { id: 'gl', name: 'glob', arguments: { pattern: '**/*.txt' } },
      { id: 'l1', name: 'list_files', arguments: {} },
      { id: 'r1', name: 'read_file', arguments: { path: 'notes/hello.txt' } },
      { id: 'r2', name: 'read_file', arguments: { path: 'notes/missing.txt' } },
      { id: 'big', name: 'run_command', arguments: { command: 'yes abcdefghij | head -c 60000' } },
      { id: 'cut', name: 'run_command', arguments: { command: 'yes x | head -c 5000; yes y | head -c 3000 >&2', max_output_bytes: 100 } },
      { id: 't1', name: 'run_command', arguments: { command: 'sleep 31 & sleep 32; echo never', timeout_seconds: 1 } },
      { id: 'cwd', name: 'run_command', arguments: { command: 'pwd', cwd: 'no/such/dir' } },
      { id: 'sub', name: 'run_command', arguments: { command: 'pwd', cwd: 'notes' } },
    ]);
    const done = await settleRun(t, runId);
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    const results = await resultsOf(runId);
    expect(results.w1.content.result).toEqual({ path: 'notes/hello.txt', size_bytes: 24 });
    expect(results.c1.content.result).toMatchObject({
      exit_code: 3,
      signal: null,
      stdout: 'hello\nhello world\nsecond line\n',
      stderr: 'oops\n',
      truncated: false,
      timed_out: false,
    });
    expect(results.e1.content.result).toEqual({ path: 'notes/hello.txt', replacements: 1, size_bytes: 24 });
    expect(results.g1.content.result).toEqual({ matches: ['./notes/hello.txt:1:hello there'], truncated: false });
    expect(results.g2.content.result).toEqual({ matches: [], truncated: false });
    expect(results.gl.content.result).toEqual({ paths: ['notes/hello.txt'], truncated: false });
    expect(
      results.l1.content.result.entries.map((e: { path: string; kind: string; size_bytes: number }) => [e.path, e.kind, e.size_bytes]),
    ).toEqual([
      ['notes', 'directory', 0],
      ['notes/hello.txt', 'file', 24],
    ]);
    expect(results.r1.content.result).toEqual({
      path: 'notes/hello.txt',
      content: 'hello there\nsecond line\n',
      size_bytes: 24,
      truncated: false,
    });
    expect(results.r2.content.error).toMatch(/does not exist/);
    expect(results.big.content_refs.result).toMatchObject({ media_type: 'application/json' });
    expect(results.big.content_refs.result.size_bytes).toBeGreaterThan(60_000);
    expect(results.cut.content.result).toMatchObject({
      exit_code: 0,
      stdout: 'x\n'.repeat(50),
      stdout_bytes: 5000,
      stderr: 'y\n'.repeat(50),
      stderr_bytes: 3000,
      truncated: true,
    });
    expect(results.t1.content.result).toMatchObject({ timed_out: true, exit_code: null, signal: 'SIGKILL', stdout: '' });
    expect(results.cwd.content.error).toMatch(/no\/such\/dir is not a directory/);
    expect(results.sub.content.result).toMatchObject({ exit_code: 0, stdout: '/work/notes\n' });
    // The timed-out command and what it started were killed, not left behind in the container.
    expect((await processes(instance)).filter((line) => /sleep 3[12]/.test(line))).toEqual([]);
    // The file is in the container itself.
    expect(await look(instance, 'cat /work/notes/hello.txt')).toBe('hello there\nsecond line\n');

    // Stop: the container stops (its files stay), work is refused.
    const stopped = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect([stopped.status, stopped.body.status]).toEqual([200, 'stopped']);
    expect((await engine.api('GET', `/containers/${env.instance_id}/json`)).body.State.Running).toBe(false);
    await expect(look(instance, 'true')).rejects.toMatchObject({ reason: 'unavailable' });
    // Provisioning the same environment again (as the service would to bring it back) finds the
    // container by its name — Podman answers the name conflict with 500, not Docker's 409 — and starts it.
    expect(await dockerEnvironmentDriver.provision(ctx, { environmentId: env.id, config: ctx.environmentConfig })).toEqual(instance);
    expect(await look(instance, 'cat notes/hello.txt')).toBe('hello there\nsecond line\n');

    const destroyed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect([destroyed.status, destroyed.body.status]).toEqual([200, 'destroyed']);
    expect((await engine.api('GET', `/containers/${env.instance_id}/json`)).status).toBe(404);
    expect((await engine.api('GET', `/containers/wsa-${env.id}/json`)).status).toBe(404);
    expect((await t.rest('DELETE', `/api/v1/environments/${env.id}`)).status).toBe(200);
  });

  it('a cancelled run kills its running command (and what it started); the container keeps working', async () => {
    const env = await environment();
    const instance = { instanceId: env.instance_id, workingDirectory: '/work' };
    const runId = await startRun(env.id, [
      { id: 'long', name: 'run_command', arguments: { command: 'sleep 41 & touch /tmp/started; sleep 42', timeout_seconds: 300 } },
    ]);
    // The command runs once the marker exists in the container.
    await waitFor(
      () => look(instance, '[ -e /tmp/started ] && echo yes'),
      (out) => out === 'yes\n',
      'the command to start in the container',
    );
    expect((await t.rest('POST', `/api/v1/runs/${runId}/cancel`)).status).toBe(200);
    expect((await settleRun(t, runId, ['cancelled', 'completed', 'failed'])).status).toBe('cancelled');
    const result = (await resultsOf(runId)).long;
    expect(result.content.result).toMatchObject({ exit_code: null, signal: 'SIGKILL', timed_out: false });
    // The kill is a second exec the driver sends without waiting for it: observe its effect.
    await waitFor(
      () => processes(instance),
      (lines) => !lines.some((line) => /sleep 4[12]/.test(line)),
      'the cancelled command to be killed',
    );
    expect(await look(instance, 'echo still here')).toBe('still here\n');
    expect((await t.rest('DELETE', `/api/v1/environments/${env.id}`)).body.status).toBe('destroyed');
  });

  it('an image the engine does not have and cannot pull fails provisioning with the engine’s sentence', async () => {
    const tpl = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'missing', provider_id: providerId, config: { image: 'localhost/no-such-image:1' } },
    });
    const failed = await t.rest('POST', '/api/v1/environments', { body: { template_id: tpl.body.id } });
    expect(failed.body).toMatchObject({ status: 'failed', failure_message: expect.stringMatching(/localhost\/no-such-image:1/) });
    // Nothing was left in the engine under the environment's name, and DELETE cleans up all the same.
    expect((await engine.api('GET', `/containers/wsa-${failed.body.id}/json`)).status).toBe(404);
    expect((await t.rest('DELETE', `/api/v1/environments/${failed.body.id}`)).body.status).toBe('destroyed');
  });
});
