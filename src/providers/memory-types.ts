// Memory provider types: the hosted memory services (mem0) and vector databases (Pinecone), and the
// built-in store on the service's own database.
import { randomBytes } from 'node:crypto';
import { probeGet, trimSlash } from './http-probe.js';
import { registerProviderType, type ProbeResult, type ProviderContext } from './registry.js';
import { apiKeyCredential, noConfiguration, noCredential } from './common-schemas.js';
import { openPineconeStore, PINECONE_API_VERSION } from '../memory-stores/pinecone.js';
import { listBuiltinPages, openBuiltinStore } from '../memory-stores/builtin.js';

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
