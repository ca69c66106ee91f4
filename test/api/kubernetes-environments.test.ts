// The `kubernetes` environment type end to end through the public API, against a loopback
// Kubernetes API server on TLS (test/helpers/kubernetes-api-server.ts) whose pods are real
// processes: a template names an image, creating an environment creates a pod and waits until it
// runs, commands and files go through the pod `exec` subresource over a websocket (v5 channel
// protocol, and a v4-only server), stop is refused (pods cannot stop), DELETE deletes the pod. A
// server that cannot be reached answers 409 failed_precondition; a wrong token, a missing CA or an
// image that cannot be pulled fail provisioning; another workspace sees nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { makeEngineCertificates } from '../helpers/docker-engine-server.js';
import { startKubernetesApiServer, type KubernetesApiServer } from '../helpers/kubernetes-api-server.js';
import { RunEnvironments } from '../../src/engine/environment-mounts.js';
import { runCallContext } from '../../src/engine/run-context.js';
import { createWorkspace } from '../../src/features/access/admin.js';

const IMAGE = 'alpine:3.20';
let t: TestApp;
let cluster: KubernetesApiServer;
let certificates: ReturnType<typeof makeEngineCertificates>;
let providerId: string;
let scratch: string;
let otherKey: string;

async function provider(
  server: KubernetesApiServer,
  name: string,
  credential: Record<string, unknown> = { token: server.token, ca: server.ca },
) {
  const response = await t.rest('POST', '/api/v1/environment-providers', {
    body: { type: 'kubernetes', name, config: { server: server.server, namespace: 'sandboxes' }, credential },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as string;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'wsa-k8s-test-'));
  certificates = makeEngineCertificates();
  cluster = await startKubernetesApiServer({ tls: certificates.server, images: [IMAGE] });
  t = await startTestApp();
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  providerId = await provider(cluster, 'Cluster');
});
afterAll(async () => {
  await t?.stop();
  await cluster?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// The loopback pods share this machine's file system: each template works in a directory of its own.
let directories = 0;
const config = (extra: Record<string, unknown> = {}) => ({
  image: IMAGE,
  working_directory: join(scratch, `w${++directories}`),
  env: { GREETING: 'hello' },
  cpu: 1.5,
  memory_mb: 256,
  ...extra,
});

async function template(body: Record<string, unknown> = config(), provider = providerId) {
  const response = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'Pod', provider_id: provider, config: body } });
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

const limits = { timeoutMs: 20_000, maxOutputBytes: 10_000 };

describe('the kubernetes environment type', () => {
  it('is described without stop; the provider test is unsupported; a credential needs a token or a client certificate', async () => {
    const types = await t.rest('GET', '/api/v1/provider-types/environment');
    const described = types.body.items.find((d: { type: string }) => d.type === 'kubernetes');
    expect(described).toMatchObject({ supports_stop: false, supports_destroy: true, supports_managed_instances: true });
    expect(described.environment_schema).toMatchObject({ required: ['image'], additionalProperties: false });
    const before = cluster.requests.length;
    expect((await t.rest('POST', `/api/v1/environment-providers/${providerId}/test`)).body.status).toBe('unsupported');
    expect(cluster.requests.length).toBe(before);
    const noToken = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'kubernetes', name: 'x', config: { server: cluster.server }, credential: { ca: cluster.ca } },
    });
    expect([noToken.status, noToken.body.error.code]).toEqual([400, 'invalid_argument']);
    const badNamespace = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'kubernetes', name: 'x', config: { server: cluster.server, namespace: 'Not_A_Label' }, credential: { token: 'x' } },
    });
    expect(badNamespace.status).toBe(400);
  });

  it('creates a pod and waits until it runs, execs commands and files over the websocket, refuses stop, deletes it', async () => {
    const cfg = config();
    const env = await environment((await template(cfg)).id);
    const podName = `wsa-${env.id.toLowerCase().replace('_', '-')}`;
    expect(env).toMatchObject({ status: 'ready', working_directory: cfg.working_directory, instance_id: `sandboxes/${podName}` });
    expect(cluster.requests).toContain('POST /api/v1/namespaces/sandboxes/pods');
    expect(cluster.requests.at(-1)).toBe(`GET /api/v1/namespaces/sandboxes/pods/${podName}`);
    const pod = cluster.pods.get(env.instance_id)!;
    expect(pod.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'workspace-agent-service',
      'workspace-agent-service/environment-id': env.id,
    });
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      containers: [
        {
          name: 'workspace',
          image: IMAGE,
          workingDir: cfg.working_directory,
          env: [{ name: 'GREETING', value: 'hello' }],
          resources: { limits: { cpu: '1500m', memory: '256Mi' }, requests: { cpu: '1500m', memory: '256Mi' } },
        },
      ],
    });

    const open = await openThroughRun(env.id);
    const shell = await open.exec({
      command: 'echo "$GREETING $EXTRA from $(pwd)"; echo oops >&2; exit 3',
      env: { EXTRA: 'there' },
      ...limits,
    });
    expect(shell).toMatchObject({ exitCode: 3, signal: null, stdout: `hello there from ${cfg.working_directory}\n`, stderr: 'oops\n' });
    expect(cluster.requests.at(-1)).toBe(`EXEC /api/v1/namespaces/sandboxes/pods/${podName}/exec v5.channel.k8s.io`);
    const piped = await open.exec({ command: ['cat'], stdin: 'through standard input', ...limits });
    expect([piped.exitCode, piped.stdout]).toEqual([0, 'through standard input']);
    const big = await open.exec({ command: "head -c 100000 /dev/zero | tr '\\0' a", timeoutMs: 20_000, maxOutputBytes: 100 });
    expect([big.stdout.length, big.stdoutBytes, big.truncated, big.exitCode]).toEqual([100, 100000, true, 0]);

    const binary = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    await open.writeFile('notes/a.bin', binary);
    expect((await open.readFile('notes/a.bin', { maxBytes: 100 })).content).toEqual(binary);
    const large = Buffer.alloc(200_000, 'x');
    await open.writeFile('notes/large.txt', large);
    expect(readFileSync(join(cfg.working_directory, 'notes/large.txt'))).toEqual(large);
    expect(await open.readFile('notes/large.txt', { maxBytes: 10 })).toMatchObject({ sizeBytes: 200_000, truncated: true });
    const listing = await open.listFiles('.', { depth: 3, limit: 10 });
    expect(listing.entries.map((e) => [e.path, e.kind, e.sizeBytes])).toEqual([
      ['notes', 'directory', 0],
      ['notes/a.bin', 'file', 7],
      ['notes/large.txt', 'file', 200_000],
    ]);
    await expect(open.readFile('missing.txt', { maxBytes: 10 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(open.listFiles('notes/a.bin', { depth: 1, limit: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });

    const stop = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect([stop.status, stop.body.error.code, stop.body.error.message]).toEqual([
      409,
      'failed_precondition',
      expect.stringMatching(/cannot be stopped/),
    ]);
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`)).body.status).toBe('ready');

    const destroyed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect(destroyed.body.status).toBe('destroyed');
    expect(cluster.requests.at(-1)).toBe(`DELETE /api/v1/namespaces/sandboxes/pods/${podName}`);
    expect(cluster.pods.has(env.instance_id)).toBe(false);
    expect(pod.processes.size).toBe(0);
    expect((await t.rest('DELETE', `/api/v1/environments/${env.id}`)).status).toBe(200);
  });

  it('kills a command at its timeout or when aborted; the pod keeps working', async () => {
    const env = await environment((await template()).id);
    const open = await openThroughRun(env.id);
    const timedOut = await open.exec({ command: 'echo started; sleep 47', timeoutMs: 300, maxOutputBytes: 100 });
    expect(timedOut).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    const controller = new AbortController();
    const aborted = await open.exec({
      command: 'echo started; sleep 48',
      timeoutMs: 60_000,
      maxOutputBytes: 100,
      signal: controller.signal,
      onOutput: (_stream, chunk) => {
        if (chunk.toString().includes('started')) controller.abort();
      },
    });
    expect(aborted).toMatchObject({ aborted: true, timedOut: false, exitCode: null, stdout: 'started\n' });
    // Nothing the commands started still runs (the loopback pod's processes are this machine's).
    expect(spawnSync('pgrep', ['-f', '^sleep 4[78]$']).stdout.toString()).toBe('');
    expect((await open.exec({ command: 'echo still here', ...limits })).stdout).toBe('still here\n');
    await t.rest('DELETE', `/api/v1/environments/${env.id}`);
  });

  it('works through the platform tools of a scripted run', async () => {
    const tpl = await template();
    await insertModel(t, 'pod-tools');
    const calls = [
      { id: 'w', name: 'write_file', arguments: { path: 'src/app.txt', content: 'alpha\nbeta\n' } },
      { id: 'c', name: 'run_command', arguments: { command: 'wc -l < src/app.txt' } },
      { id: 'e', name: 'edit_file', arguments: { path: 'src/app.txt', old_string: 'beta', new_string: 'gamma' } },
      { id: 'l', name: 'glob', arguments: { pattern: '**/*.txt' } },
      { id: 'r', name: 'read_file', arguments: { path: 'src/app.txt' } },
    ];
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'pod worker',
        config: {
          model: 'pod-tools',
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
    expect(results.c.result).toMatchObject({ exit_code: 0, stdout: '2\n' });
    expect(results.e.result).toMatchObject({ replacements: 1 });
    expect(results.l.result).toEqual({ paths: ['src/app.txt'], truncated: false });
    expect(results.r.result).toMatchObject({ content: 'alpha\ngamma\n' });
  });

  it('fails provisioning with a wrong token, without the cluster’s CA, or with an image it cannot pull', async () => {
    const wrong = await provider(cluster, 'Wrong token', { token: 'nope', ca: cluster.ca });
    const refused = await environment((await template(config(), wrong)).id);
    expect(refused).toMatchObject({ status: 'failed', failure_message: 'the Kubernetes API answered 401: Unauthorized' });
    const noCa = await provider(cluster, 'No CA', { token: cluster.token });
    const untrusted = await environment((await template(config(), noCa)).id);
    expect(untrusted).toMatchObject({
      status: 'failed',
      failure_message: expect.stringMatching(/could not reach the Kubernetes API: .*(VERIFY|CERT|SIGNED)/i),
    });
    const unknown = await environment((await template(config({ image: 'no-such/image:1' }))).id);
    expect(unknown).toMatchObject({
      status: 'failed',
      failure_message: expect.stringMatching(/ErrImagePull: failed to pull image "no-such\/image:1"/),
    });
    // The pod made before the failure is deleted by its name.
    expect(cluster.pods.has(`sandboxes/wsa-${unknown.id.toLowerCase().replace('_', '-')}`)).toBe(true);
    expect((await t.rest('DELETE', `/api/v1/environments/${unknown.id}`)).body.status).toBe('destroyed');
    expect(cluster.pods.has(`sandboxes/wsa-${unknown.id.toLowerCase().replace('_', '-')}`)).toBe(false);
  });

  it('answers 404 to another workspace', async () => {
    const tpl = await template();
    const env = await environment(tpl.id);
    for (const [method, path] of [
      ['GET', `/api/v1/environments/${env.id}`],
      ['POST', `/api/v1/environments/${env.id}/stop`],
      ['DELETE', `/api/v1/environments/${env.id}`],
      ['GET', `/api/v1/environment-templates/${tpl.id}`],
    ] as const)
      expect((await t.rest(method, path, { token: otherKey })).status, `${method} ${path}`).toBe(404);
    expect((await t.rest('POST', '/api/v1/environments', { token: otherKey, body: { template_id: tpl.id } })).status).toBe(404);
    expect(cluster.pods.has(env.instance_id)).toBe(true);
  });
});

describe('a cluster that speaks only v4.channel.k8s.io', () => {
  it('still ends standard input and reports exit codes', async () => {
    const old = await startKubernetesApiServer({ tls: certificates.server, images: [IMAGE], protocols: ['v4.channel.k8s.io'] });
    try {
      const env = await environment((await template(config(), await provider(old, 'Old cluster'))).id);
      const open = await openThroughRun(env.id);
      const piped = await open.exec({ command: 'cat; echo; exit 5', stdin: 'line one\nline two', ...limits });
      expect([piped.exitCode, piped.stdout]).toEqual([5, 'line one\nline two\n']);
      expect(old.requests.at(-1)).toMatch(/v4\.channel\.k8s\.io$/);
      await open.writeFile('x/y.txt', 'over v4');
      expect((await open.readFile('x/y.txt', { maxBytes: 100 })).content.toString()).toBe('over v4');
    } finally {
      await old.close();
    }
  });
});

describe('a Kubernetes API that cannot be reached', () => {
  it('answers work and DELETE with failed_precondition and leaves the environment as it was', async () => {
    const gone = await startKubernetesApiServer({ tls: certificates.server, images: [IMAGE] });
    const env = await environment((await template(config(), await provider(gone, 'Flaky'))).id);
    const open = await openThroughRun(env.id);
    await gone.close();
    await expect(open.exec({ command: 'true', timeoutMs: 5000, maxOutputBytes: 10 })).rejects.toMatchObject({
      code: 'failed_precondition',
    });
    await expect(open.readFile('a.txt', { maxBytes: 10 })).rejects.toMatchObject({ code: 'failed_precondition' });
    const removed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect([removed.status, removed.body.error.code, removed.body.error.message]).toEqual([
      409,
      'failed_precondition',
      expect.stringMatching(/could not reach the Kubernetes API: ECONNREFUSED/),
    ]);
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`)).body.status).toBe('ready');
  });
});
