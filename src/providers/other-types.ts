// Environment, connector and memory provider types (the web types are in ./web). The spec makes
// every environment type's test `unsupported` except the container engine's (which only pings).
import { randomBytes } from 'node:crypto';
import { connectMcpClient, listMcpTools, redactSecrets } from './mcp-client.js';
import { PROBE_TIMEOUT_MS, probeGet, trimSlash } from './http-probe.js';
import { registerProviderType, type JsonSchema, type ProbeResult, type ProviderContext } from './registry.js';
import { apiKeyCredential, noConfiguration, noCredential } from './common-schemas.js';
import { openPineconeStore, PINECONE_API_VERSION } from '../memory-stores/pinecone.js';
import { listBuiltinPages, openBuiltinStore } from '../memory-stores/builtin.js';
import { localEnvironmentDriver } from './environments/local.js';
import { dockerEnvironmentDriver } from './environments/docker.js';
import { EngineError, pingEngine } from './environments/docker-engine.js';
import { checkEnvdConfig, envdEnvironmentDriver } from './environments/envd.js';
import { envMember, imageMember, workingDirectoryMember } from './environments/template-schema.js';

// ── web: src/providers/web ──

// ── environment ──
/** GET /_ping on the provider's Docker Engine API (unix socket, TCP, TLS from the credential): creates nothing. */
async function dockerPing(ctx: ProviderContext): Promise<ProbeResult> {
  const credential = ctx.credential ?? {};
  try {
    await pingEngine(
      {
        endpoint: String(ctx.config.endpoint),
        tls: {
          ca: credential.tls_ca as string | undefined,
          cert: credential.tls_cert as string | undefined,
          key: credential.tls_key as string | undefined,
        },
      },
      PROBE_TIMEOUT_MS,
      ctx.signal,
    );
    return { status: 'succeeded' };
  } catch (error) {
    if (error instanceof EngineError) return { status: 'failed', message: `the engine answered ${error.status}` };
    return { status: 'failed', message: (error as Error).message };
  }
}
// The container engine's template config. Members are ordered so the type's description only grows
// (the REST golden file compares it member by member).
const dockerEnvironmentSchema: JsonSchema = {
  type: 'object',
  required: ['image'],
  additionalProperties: false,
  properties: {
    image: imageMember('the image the container starts from (pulled when the engine does not have it), e.g. alpine:3.20'),
    working_directory: workingDirectoryMember(
      'an absolute path inside the container where commands start (default /workspace; created by the engine)',
    ),
    env: envMember('environment variables of the container and every command'),
    cpu: { description: 'CPUs the container may use (e.g. 1.5)', exclusiveMinimum: 0, maximum: 256, type: 'number' },
    memory_mb: { description: 'memory limit in MiB', minimum: 6, maximum: 1048576, type: 'integer' },
  },
};
registerProviderType({
  kind: 'environment',
  type: 'docker',
  title: 'Container engine (Docker Engine API)',
  configurationSchema: {
    type: 'object',
    properties: { endpoint: { type: 'string', pattern: '^(unix://|https?://|tcp://)' } },
    required: ['endpoint'],
    additionalProperties: false,
  },
  credentialSchema: {
    type: 'object',
    properties: { tls_ca: { type: 'string' }, tls_cert: { type: 'string' }, tls_key: { type: 'string', writeOnly: true } },
    additionalProperties: false,
  },
  credentialRequired: false,
  endpointFields: ['endpoint'],
  environment: {
    environmentSchema: dockerEnvironmentSchema,
    managedInstances: true,
    stop: true,
    destroy: true,
    driver: dockerEnvironmentDriver,
  },
  probe: dockerPing,
});
// The hosted sandboxes E2B, Daytona and Modal register in their own modules (./environments/e2b.ts,
// daytona.ts, modal.ts).

// The local type runs environments on the service's own machine (a directory under DATA_DIR and real
// subprocesses, ./environments/local.ts): offered only where the deployment sets ALLOW_LOCAL_ENVIRONMENTS.
registerProviderType({
  kind: 'environment',
  type: 'local',
  title: 'Local machine (development only)',
  configurationSchema: noConfiguration,
  credentialSchema: noCredential,
  credentialRequired: false,
  offeredWhen: (deployment) => deployment.allowLocalEnvironments,
  environment: {
    environmentSchema: {
      type: 'object',
      properties: {
        working_directory: {
          type: 'string',
          maxLength: 1024,
          description: "a relative subdirectory of the environment's directory where commands start (created on provisioning)",
        },
        env: {
          type: 'object',
          maxProperties: 100,
          additionalProperties: { type: 'string', maxLength: 32768 },
          description: "environment variables of every command (the service's own are never passed on)",
        },
      },
      additionalProperties: false,
    },
    managedInstances: true,
    stop: true,
    destroy: true,
    driver: localEnvironmentDriver,
  },
});

// Paired devices (the envd daemon on a user's own machine, ./environments/envd.ts): the instance is
// a directory on the device, reached over the device's websocket. Nothing to configure on the
// provider and no credential: the device's own pairing is the credential, and its daemon must opt in
// (serve --allow-environments). No probe: a provider test answers `unsupported`.
registerProviderType({
  kind: 'environment',
  type: 'envd',
  title: 'Paired device (envd daemon)',
  configurationSchema: noConfiguration,
  credentialSchema: noCredential,
  credentialRequired: false,
  environment: {
    environmentSchema: {
      type: 'object',
      required: ['device_id', 'root'],
      additionalProperties: false,
      properties: {
        device_id: {
          description: 'a paired device of the workspace (dev_…) whose daemon runs with --allow-environments',
          pattern: '^dev_[A-Za-z0-9]{1,64}$',
          type: 'string',
        },
        root: {
          description:
            "an absolute directory on the device inside the daemon's roots; each environment gets its own directory .wsa-environments/<environment id> under it",
          maxLength: 4096,
          pattern: '^/',
          type: 'string',
        },
        working_directory: {
          description: "a relative subdirectory of the environment's directory where commands start (created on provisioning)",
          maxLength: 1024,
          type: 'string',
        },
        env: {
          description: "environment variables of every command (the daemon's own are never passed on)",
          maxProperties: 100,
          type: 'object',
          additionalProperties: { type: 'string', maxLength: 32768 },
        },
      },
    },
    managedInstances: true,
    stop: true,
    destroy: true,
    driver: envdEnvironmentDriver,
    checkConfig: checkEnvdConfig,
  },
});

// ── connector: MCP servers ──
registerProviderType({
  kind: 'connector',
  type: 'mcp',
  title: 'Model Context Protocol server',
  configurationSchema: {
    type: 'object',
    properties: {
      transport: {
        enum: ['streamable_http', 'stdio'],
        description: 'default streamable_http; stdio only where the deployment allows it (ALLOW_STDIO_CONNECTORS)',
      },
      url: { type: 'string', format: 'uri' },
      command: { type: 'string', minLength: 1 },
      args: { type: 'array', items: { type: 'string' } },
    },
    additionalProperties: false,
    if: { properties: { transport: { const: 'stdio' } }, required: ['transport'] },
    then: { required: ['command'] },
    else: { required: ['url'] },
  },
  credentialSchema: {
    type: 'object',
    properties: {
      bearer_token: { type: 'string', writeOnly: true },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
    },
    additionalProperties: false,
  },
  credentialRequired: false,
  endpointFields: ['url'],
  probe: async (ctx) => {
    const endpoint = { config: ctx.config, credential: ctx.credential };
    let client: Awaited<ReturnType<typeof connectMcpClient>> | null = null;
    try {
      client = await connectMcpClient(endpoint, ctx.signal);
      const tools = await listMcpTools(client, ctx.signal);
      return { status: 'succeeded', message: `${tools.length} tools` };
    } catch (error) {
      return {
        status: 'failed',
        message: `the MCP server did not answer: ${redactSecrets((error as Error).message, endpoint).slice(0, 200)}`,
      };
    } finally {
      await client?.close().catch(() => undefined);
    }
  },
});

// ── memory ──
// Mem0's hosted memory API. Not offered: its API does not fit the record contract — Mem0 makes the
// ids, processes adds asynchronously (no record to answer with) and rewrites the text it extracts —,
// so a memory on it could hold no records. The offered memory types are the contract's two, `builtin`
// and `pinecone`. Kept registered so that providers created while it was offered still resolve (their
// test still lists one page of a user id that no memory uses); no new ones are accepted.
registerProviderType({
  kind: 'memory',
  type: 'mem0',
  title: 'Mem0',
  offeredWhen: () => false,
  configurationSchema: {
    type: 'object',
    properties: {
      base_url: { type: 'string', format: 'uri', description: 'default https://api.mem0.ai' },
      org_id: { type: 'string' },
      project_id: { type: 'string' },
    },
    additionalProperties: false,
  },
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  setupUrl: 'https://app.mem0.ai/dashboard/api-keys',
  endpointFields: ['base_url'],
  probe: (ctx) => {
    const root = String(ctx.config.base_url ?? 'https://api.mem0.ai').replace(/\/+$/, '');
    const key = String(ctx.credential?.api_key ?? '');
    return probeGet(
      `${root}/v1/memories/?user_id=${encodeURIComponent(`wsa-probe-${Date.now()}`)}&page=1&page_size=1`,
      { authorization: `Token ${key}`, ...ctx.extraHeaders },
      ctx.signal,
      [key],
    );
  },
});

/** The Pinecone type's test: one page (of one id) of a namespace no memory uses — memories' namespaces are their ids. */
function probePinecone(ctx: ProviderContext): Promise<ProbeResult> {
  const apiKey = String(ctx.credential?.api_key ?? '');
  const namespace = `wsa-probe-${randomBytes(6).toString('hex')}`;
  return probeGet(
    `${trimSlash(String(ctx.config.index_host))}/vectors/list?${new URLSearchParams({ namespace, limit: '1' })}`,
    { 'api-key': apiKey, 'x-pinecone-api-version': PINECONE_API_VERSION },
    ctx.signal,
    [apiKey],
  );
}

// A vector database that users run or rent, through Pinecone's data-plane HTTP API: records live in
// the index at `index_host`, one namespace per memory, embedded by the memory's embedding model.
registerProviderType({
  kind: 'memory',
  type: 'pinecone',
  title: 'Pinecone (or a compatible vector database)',
  configurationSchema: {
    type: 'object',
    properties: {
      index_host: {
        type: 'string',
        format: 'uri',
        pattern: '^https?://',
        description:
          'the index host, e.g. https://my-index-abc123.svc.aped-4627-b74a.pinecone.io (cosine or dotproduct metric, dimension of the embedding model)',
      },
    },
    required: ['index_host'],
    additionalProperties: false,
  },
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  setupUrl: 'https://app.pinecone.io/',
  endpointFields: ['index_host'],
  records: { embeddingModelRequired: true, open: (ctx) => openPineconeStore(ctx) },
  probe: probePinecone,
});

registerProviderType({
  kind: 'memory',
  type: 'builtin',
  title: 'Built-in (records in this service’s database)',
  configurationSchema: noConfiguration,
  credentialSchema: noCredential,
  credentialRequired: false,
  records: { embeddingModelRequired: false, open: openBuiltinStore, listMany: listBuiltinPages },
  // Lists one page of a namespace no memory uses: proves the records store answers, touches nothing.
  probe: async (ctx) => {
    if (!ctx.db) return { status: 'failed', message: 'the records store is not reachable' };
    await ctx.db.memoryRecord.findMany({ where: { namespace: `probe-${Date.now()}` }, take: 1 });
    return { status: 'succeeded' };
  },
});
