// The outbound policy for the environment drivers with clients of their own — the container engine
// (node:http over TCP or a unix socket), Kubernetes (node:http and the exec websocket) and Modal
// (gRPC) — and for Vertex AI's token exchange (google-auth-library): on a server deployment
// (nothing private allowed), a name that resolves to loopback or a private address is refused at
// connection, with the policy's sentence, and reached once the deployment allows it. A unix socket is
// refused when written and at use unless its path is allowed. Names under `.wsa.test` resolve through
// the policies' test resolver (test/helpers/test-dns.ts); the servers are the drivers' loopback fakes
// of each wire protocol.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { makeEngineCertificates, startDockerEngineServer, type DockerEngineServer } from '../helpers/docker-engine-server.js';
import { startKubernetesApiServer, type KubernetesApiServer } from '../helpers/kubernetes-api-server.js';
import { startModalServer, type ModalServer } from '../helpers/modal-server.js';
import { startVertexServer } from '../helpers/model-wire-servers.js';
import { testAllowance, testPolicy } from '../helpers/test-dns.js';
import { OutboundPolicy, outboundRefusalOf } from '../../src/lib/outbound-policy.js';
import type { EnvironmentDriver, EnvironmentDriverContext } from '../../src/providers/environment-driver.js';
import { dockerEnvironmentDriver } from '../../src/providers/environments/docker.js';
import { kubernetesEnvironmentDriver } from '../../src/providers/environments/kubernetes.js';
import { modalEnvironmentDriver } from '../../src/providers/environments/modal.js';
import { providerType } from '../../src/providers/index.js';

const IMAGE = 'alpine:3.20';
const NONE = testPolicy([]);
const LOOPBACK = testPolicy(['127.0.0.1']);
const refusal = (target: string, what: string) => `outbound_refused: ${target} is ${what}; allow it with OUTBOUND_ALLOW_PRIVATE`;

let certificates: ReturnType<typeof makeEngineCertificates>;
let scratch: string;
beforeAll(() => {
  certificates = makeEngineCertificates();
  scratch = mkdtempSync(join(tmpdir(), 'wsa-outbound-env-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const portOf = (url: string) => new URL(url).port;
const LIMITS = { timeoutMs: 30_000, maxOutputBytes: 1000 };

/** Provisions through `driver`, runs `echo` in the instance, destroys it: what an allowed connection carries. */
async function roundTrip(driver: EnvironmentDriver, ctx: EnvironmentDriverContext, environmentId: string) {
  const instance = await driver.provision(ctx, { environmentId, config: ctx.environmentConfig });
  const result = await driver.exec(ctx, instance, { command: 'echo reached', ...LIMITS });
  await driver.destroy(ctx, instance);
  return { instance, stdout: result.stdout };
}

describe('the container engine', () => {
  let t: TestApp;
  let engine: DockerEngineServer;
  let socketEngine: DockerEngineServer;
  const allow = (entries: string[]) => {
    (t.app.deps.config as { outboundAllowPrivate: readonly string[] }).outboundAllowPrivate = testAllowance(entries);
  };
  beforeAll(async () => {
    engine = await startDockerEngineServer({ images: [IMAGE], tls: certificates.server });
    socketEngine = await startDockerEngineServer({ images: [IMAGE] });
    t = await startTestApp({ outboundAllowPrivate: testAllowance([]) });
  });
  afterAll(async () => {
    await t?.stop();
    await engine?.close();
    await socketEngine?.close();
  });

  const create = (endpoint: string, credential?: Record<string, unknown>) =>
    t.rest('POST', '/api/v1/environment-providers', { body: { type: 'docker', name: 'Engine', config: { endpoint }, credential } });
  const probe = async (id: string) => (await t.rest('POST', `/api/v1/environment-providers/${id}/test`)).body;

  it('a unix socket is refused when written unless the deployment allows its path', async () => {
    allow([]);
    const refused = await create('unix:///var/run/docker.sock');
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_argument',
      details: { field: 'config.endpoint', reason: 'outbound_refused' },
      message: `config.endpoint: ${refusal('unix:/var/run/docker.sock', "a unix socket on the service's own machine")}`,
    });
    allow(['unix:/run/podman/podman.sock']);
    expect((await create('unix:///var/run/docker.sock')).status).toBe(400);
    // The path is compared normalized: `..` leads nowhere else.
    expect((await create('unix:///run/podman/../docker.sock')).status).toBe(400);
    allow(['unix:/var/run/docker.sock']);
    expect((await create('unix:///var/run/docker.sock')).status).toBe(201);
    expect((await create('unix:///var/run/../run/docker.sock')).status).toBe(201);
  });

  it('a unix socket written while allowed is refused at use once the allowance is withdrawn', async () => {
    allow(['unix:*']);
    const created = await create(socketEngine.endpoint);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await probe(created.body.id)).toEqual({ status: 'succeeded', message: null });
    allow([]);
    const requests = socketEngine.requests.length;
    const refused = await probe(created.body.id);
    expect(refused.status).toBe('failed');
    expect(refused.message).toContain(
      refusal(`unix:${socketEngine.endpoint.slice('unix://'.length)}`, "a unix socket on the service's own machine"),
    );
    expect(socketEngine.requests.length).toBe(requests);
  });

  it('a name is refused at connection by the address it resolves to; allowed, it is reached', async () => {
    allow([]);
    const credential = { tls_ca: certificates.client.ca, tls_cert: certificates.client.cert, tls_key: certificates.client.key };
    const byName = await create(`https://engine.wsa.test:${portOf(engine.endpoint)}`, credential);
    expect(byName.status, JSON.stringify(byName.body)).toBe(201);
    const refused = await probe(byName.body.id);
    expect(refused.status).toBe('failed');
    expect(refused.message).toBe(`could not reach the container engine: ${refusal('engine.wsa.test (127.0.0.1)', 'a loopback address')}`);
    const internal = await create(`https://internal.wsa.test:2376`, credential);
    expect((await probe(internal.body.id)).message).toContain(refusal('internal.wsa.test (10.255.0.1)', 'a private address'));
    allow(['127.0.0.1']);
    expect(await probe(byName.body.id)).toEqual({ status: 'succeeded', message: null });
  });

  it('every connection of the driver goes through the policy: provisioning, commands (the hijacked exec stream) and removal', async () => {
    const ctx = (outbound: OutboundPolicy): EnvironmentDriverContext => ({
      providerConfig: { endpoint: `https://engine.wsa.test:${portOf(engine.endpoint)}` },
      credential: { tls_ca: certificates.client.ca, tls_cert: certificates.client.cert, tls_key: certificates.client.key },
      environmentConfig: { image: IMAGE, working_directory: '/work' },
      dataDir: '',
      fetch,
      outbound,
    });
    const allowed = await roundTrip(dockerEnvironmentDriver, ctx(LOOPBACK), 'env_outbound_docker');
    expect(allowed.stdout).toBe('reached\n');
    const requests = engine.requests.length;
    await expect(
      dockerEnvironmentDriver.provision(ctx(NONE), { environmentId: 'env_outbound_docker2', config: ctx(NONE).environmentConfig }),
    ).rejects.toThrow(refusal('engine.wsa.test (127.0.0.1)', 'a loopback address'));
    // A container made while allowed: its commands are refused once the policy refuses the engine.
    const instance = await dockerEnvironmentDriver.provision(ctx(LOOPBACK), {
      environmentId: 'env_outbound_docker3',
      config: ctx(LOOPBACK).environmentConfig,
    });
    await expect(dockerEnvironmentDriver.exec(ctx(NONE), instance, { command: 'echo no', ...LIMITS })).rejects.toThrow(
      refusal('engine.wsa.test (127.0.0.1)', 'a loopback address'),
    );
    await dockerEnvironmentDriver.destroy(ctx(LOOPBACK), instance);
    expect(engine.requests.slice(requests).some((r) => r.includes('echo no'))).toBe(false);
  });
});

describe('Kubernetes', () => {
  let cluster: KubernetesApiServer;
  beforeAll(async () => {
    cluster = await startKubernetesApiServer({ tls: certificates.server, images: [IMAGE] });
  });
  afterAll(() => cluster?.close());

  let made = 0;
  const ctx = (outbound: OutboundPolicy, host = 'cluster.wsa.test'): EnvironmentDriverContext => ({
    providerConfig: { server: `https://${host}:${portOf(cluster.server)}`, namespace: 'sandboxes' },
    credential: { token: cluster.token, ca: cluster.ca },
    environmentConfig: { image: IMAGE, working_directory: join(scratch, `k${++made}`) },
    dataDir: '',
    fetch,
    outbound,
  });

  it('API requests and the exec websocket are refused by the address the name resolves to, and reached when allowed', async () => {
    const allowed = await roundTrip(kubernetesEnvironmentDriver, ctx(LOOPBACK), 'env_outbound_kube');
    expect(allowed.stdout).toBe('reached\n');
    expect(cluster.requests.some((r) => r.startsWith('EXEC '))).toBe(true);

    const before = cluster.requests.length;
    const refused = ctx(NONE);
    await expect(
      kubernetesEnvironmentDriver.provision(refused, { environmentId: 'env_outbound_kube2', config: refused.environmentConfig }),
    ).rejects.toThrow(`could not reach the Kubernetes API: ${refusal('cluster.wsa.test (127.0.0.1)', 'a loopback address')}`);
    const internal = ctx(NONE, 'internal.wsa.test');
    await expect(
      kubernetesEnvironmentDriver.provision(internal, { environmentId: 'env_outbound_kube3', config: internal.environmentConfig }),
    ).rejects.toThrow(refusal('internal.wsa.test (10.255.0.1)', 'a private address'));
    expect(cluster.requests.length).toBe(before);

    // A pod made while allowed: its exec websocket is refused once the policy refuses the server.
    const open = ctx(LOOPBACK);
    const instance = await kubernetesEnvironmentDriver.provision(open, {
      environmentId: 'env_outbound_kube4',
      config: open.environmentConfig,
    });
    const execs = cluster.requests.filter((r) => r.startsWith('EXEC ')).length;
    await expect(
      kubernetesEnvironmentDriver.exec({ ...open, outbound: NONE }, instance, { command: 'echo no', ...LIMITS }),
    ).rejects.toThrow(refusal('cluster.wsa.test (127.0.0.1)', 'a loopback address'));
    expect(cluster.requests.filter((r) => r.startsWith('EXEC ')).length).toBe(execs);
    await kubernetesEnvironmentDriver.destroy(open, instance);
  });
});

describe('Modal (gRPC)', () => {
  let modal: ModalServer;
  beforeAll(async () => {
    modal = await startModalServer({ buildable: [IMAGE] });
  });
  afterAll(() => modal?.close());

  const ctx = (outbound: OutboundPolicy, host = 'modal.wsa.test'): EnvironmentDriverContext => ({
    providerConfig: { server_url: `http://${host}:${portOf(modal.url)}`, app_name: 'agents', environment: 'dev' },
    credential: { token_id: 'ak-test', token_secret: 'as-test' },
    environmentConfig: { image: IMAGE, working_directory: '/work' },
    dataDir: '',
    fetch,
    outbound,
  });

  it('the control plane is refused by the address its name resolves to, and reached when allowed', async () => {
    const allowed = await roundTrip(modalEnvironmentDriver, ctx(LOOPBACK), 'env_outbound_modal');
    expect(allowed.stdout).toBe('reached\n');

    const calls = modal.calls.length;
    await expect(
      modalEnvironmentDriver.provision(ctx(NONE), { environmentId: 'env_outbound_modal2', config: ctx(NONE).environmentConfig }),
    ).rejects.toThrow(refusal('modal.wsa.test (127.0.0.1)', 'a loopback address'));
    await expect(
      modalEnvironmentDriver.provision(ctx(testPolicy([]), 'internal.wsa.test'), {
        environmentId: 'env_outbound_modal3',
        config: ctx(NONE).environmentConfig,
      }),
    ).rejects.toThrow(refusal('internal.wsa.test (10.255.0.1)', 'a private address'));
    expect(modal.calls.length).toBe(calls);
  });

  it('a command router the control plane names is checked as its own connection (a name allowed does not allow its answer)', async () => {
    // The control plane is allowed by name; the router it answers (https://127.0.0.1:port) is not:
    // the sandbox is made, the first command in it (making its working directory) is refused.
    const byName = ctx(testPolicy(['modal.wsa.test']));
    const before = modal.calls.length;
    await expect(
      modalEnvironmentDriver.provision(byName, { environmentId: 'env_outbound_modal4', config: byName.environmentConfig }),
    ).rejects.toThrow(`could not reach the Modal API (TaskExecStart): ${refusal('127.0.0.1', 'a loopback address')}`);
    const made = modal.calls.slice(before);
    expect(made).toContain('SandboxCreate');
    expect(made).toContain('TaskGetCommandRouterAccess');
    expect(made.filter((call) => call.startsWith('TaskExec'))).toEqual([]);
  });
});

describe("Vertex AI's token exchange", () => {
  let vertex: Awaited<ReturnType<typeof startVertexServer>>;
  let tokenServer: Server;
  let tokenPort: number;
  const exchanges: string[] = [];
  beforeAll(async () => {
    vertex = await startVertexServer('ya29.exchanged');
    // Google's OAuth token endpoint, as a service account's JWT bearer grant is answered.
    tokenServer = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => {
        exchanges.push(new URLSearchParams(body).get('grant_type') ?? '');
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: 'ya29.exchanged', expires_in: 3600, token_type: 'Bearer' }));
      });
    });
    await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
    tokenPort = (tokenServer.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await vertex?.close();
    await new Promise<void>((resolve) => tokenServer.close(() => resolve()));
  });

  const serviceAccount = JSON.stringify({
    type: 'service_account',
    client_email: 'agent@p1.iam.gserviceaccount.com',
    private_key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    private_key_id: 'k1',
  });

  /**
   * The model of a Vertex provider whose every request goes through `policy`. google-auth-library
   * posts to https://oauth2.googleapis.com/token (fixed, port 443): the test's fetch moves that one
   * URL to the loopback token server's port, keeping its name, then hands it to the policy's fetch —
   * the name resolves to 127.0.0.1 (test/helpers/test-dns.ts) and the policy judges that address.
   */
  const model = (policy: OutboundPolicy, credential: Record<string, unknown> = { service_account_json: serviceAccount }) => {
    const fetchThroughPolicy = ((input: string | URL | Request, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      return policy.fetch(
        url.startsWith('https://oauth2.googleapis.com/')
          ? url.replace('https://oauth2.googleapis.com/', `http://oauth2.googleapis.com:${tokenPort}/`)
          : input,
        init,
      );
    }) as typeof fetch;
    return providerType('model', 'vertex')!.languageModel!(
      {
        config: {
          project: 'p1',
          location: 'us-central1',
          base_url: `${vertex.url}/v1beta1/projects/p1/locations/us-central1/publishers/google`,
        },
        credential,
        extraHeaders: {},
        fetch: fetchThroughPolicy,
        outbound: policy,
      },
      { providerModel: 'loop-model' } as never,
      {},
    );
  };

  it('is refused by the address the token endpoint resolves to, and made when allowed', async () => {
    // The refusal is the failure's cause (google-auth-library's own message is fetch's "fetch
    // failed"): what a run reports (outboundRefusalOf reads the causes, src/engine/attempt-errors.ts).
    const failure = await generateText({ model: model(NONE), prompt: 'hello', maxRetries: 0 }).catch((error: unknown) => error);
    expect(outboundRefusalOf(failure)?.message).toBe(refusal('oauth2.googleapis.com (127.0.0.1)', 'a loopback address'));
    expect(exchanges).toEqual([]);
    // The loopback Vertex serves streamGenerateContent, with the exchanged token only.
    const answer = streamText({ model: model(LOOPBACK), prompt: 'hello', maxRetries: 0, onError: () => undefined });
    expect((await answer.text).length).toBeGreaterThan(0);
    expect(vertex.requests.map((r) => r.headers.authorization)).toEqual(['Bearer ya29.exchanged']);
    expect(exchanges).toEqual(['urn:ietf:params:oauth:grant-type:jwt-bearer']);
  });

  it('takes only a service account key: other credential files name URLs and files of their own', async () => {
    const external = JSON.stringify({
      type: 'external_account',
      token_url: 'http://169.254.169.254/token',
      credential_source: { file: '/etc/hostname' },
    });
    expect(() => model(LOOPBACK, { service_account_json: external })).toThrow(/"type" must be "service_account"/);
  });
});
