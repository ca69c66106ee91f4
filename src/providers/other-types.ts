// Environment, connector and memory provider types (the web types are in ./web). The spec makes
// every environment type's test `unsupported` except the container engine's (which only pings).
import { request } from 'node:http';
import { connectMcpClient, listMcpTools, redactSecrets } from './mcp-client.js';
import { PROBE_TIMEOUT_MS, probeGet } from './http-probe.js';
import { registerProviderType, type JsonSchema, type ProbeResult } from './registry.js';
import { openPineconeStore, probePinecone } from '../memory-stores/pinecone.js';
import { listBuiltinPages, openBuiltinStore } from '../memory-stores/builtin.js';
import { localEnvironmentDriver } from './environments/local.js';

const apiKeyCredential: JsonSchema = {
  type: 'object',
  properties: { api_key: { type: 'string', minLength: 1, writeOnly: true } },
  required: ['api_key'],
  additionalProperties: false,
};
const noCredential: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

// ── web: src/providers/web ──

// ── environment ──
/** GET /_ping on a Docker Engine API (unix socket or http(s) URL): creates nothing. */
async function dockerPing(endpoint: string, signal: AbortSignal): Promise<ProbeResult> {
  const options = endpoint.startsWith('unix://')
    ? { socketPath: endpoint.slice('unix://'.length), path: '/_ping' }
    : (() => {
        const url = new URL('/_ping', endpoint.replace(/^tcp:/, 'http:'));
        return { host: url.hostname, port: url.port || 2375, path: url.pathname };
      })();
  return new Promise((resolve) => {
    const req = request({ ...options, method: 'GET', timeout: PROBE_TIMEOUT_MS, signal }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? { status: 'succeeded' } : { status: 'failed', message: `the engine answered ${res.statusCode}` });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) =>
      resolve({
        status: 'failed',
        message: `could not reach the container engine: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
      }),
    );
    req.end();
  });
}
const environmentSchema: JsonSchema = {
  type: 'object',
  properties: {
    image: { type: 'string' },
    working_directory: { type: 'string' },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    cpu: { type: 'number' },
    memory_mb: { type: 'integer' },
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
  environment: { environmentSchema, managedInstances: true, stop: true, destroy: true },
  probe: (ctx) => dockerPing(String(ctx.config.endpoint), ctx.signal),
});
for (const [type, title, setupUrl] of [
  ['e2b', 'E2B sandboxes', 'https://e2b.dev/dashboard'],
  ['modal', 'Modal sandboxes', 'https://modal.com/settings'],
  ['daytona', 'Daytona', 'https://app.daytona.io/'],
] as const) {
  registerProviderType({
    kind: 'environment',
    type,
    title,
    configurationSchema: {
      type: 'object',
      properties: { base_url: { type: 'string', format: 'uri' }, template: { type: 'string' } },
      additionalProperties: false,
    },
    credentialSchema: apiKeyCredential,
    credentialRequired: true,
    setupUrl,
    endpointFields: ['base_url'],
    environment: { environmentSchema, managedInstances: true, stop: type !== 'e2b', destroy: true },
  });
}

// The local type runs environments on the service's own machine (a directory under DATA_DIR and real
// subprocesses, ./environments/local.ts): offered only where the deployment sets ALLOW_LOCAL_ENVIRONMENTS.
registerProviderType({
  kind: 'environment',
  type: 'local',
  title: 'Local machine (development only)',
  configurationSchema: { type: 'object', properties: {}, additionalProperties: false },
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
// Mem0's hosted memory API: records live with the vendor; the probe lists one page of a user id
// that no memory uses.
registerProviderType({
  kind: 'memory',
  type: 'mem0',
  title: 'Mem0',
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
  configurationSchema: { type: 'object', properties: {}, additionalProperties: false },
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
