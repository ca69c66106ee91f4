// Memory provider types: the hosted memory services (mem0) and vector databases (Pinecone), and the
// built-in store on the service's own database.
import { randomBytes } from 'node:crypto';
import { probeGet, trimSlash } from './http-probe.js';
import Type from 'typebox';
import { defineProviderType, registerProviderType, type ProbeResult, type TypedProviderContext } from './registry.js';
import { ApiKeyCredential, NoConfiguration, NoCredential, uriMember } from './common-schemas.js';
import { openPineconeStore, PINECONE_API_VERSION, PineconeConfig } from '../memory-stores/pinecone.js';
import { listBuiltinPages, openBuiltinStore } from '../memory-stores/builtin.js';

registerProviderType(
  defineProviderType({
    kind: 'memory',
    type: 'mem0',
    title: 'Mem0',
    offeredWhen: () => false,
    configuration: Type.Object(
      {
        base_url: Type.Optional(uriMember('default https://api.mem0.ai')),
        org_id: Type.Optional(Type.String()),
        project_id: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
    credential: ApiKeyCredential,
    credentialRequired: true,
    setupUrl: 'https://app.mem0.ai/dashboard/api-keys',
    endpointFields: ['base_url'],
    probe: (ctx) => {
      const root = trimSlash(ctx.config.base_url ?? 'https://api.mem0.ai');
      const key = ctx.credential?.api_key ?? '';
      return probeGet(
        ctx.fetch,
        `${root}/v1/memories/?user_id=${encodeURIComponent(`wsa-probe-${Date.now()}`)}&page=1&page_size=1`,
        { authorization: `Token ${key}`, ...ctx.extraHeaders },
        ctx.signal,
        [key],
      );
    },
  }),
);

/** The Pinecone type's test: one page (of one id) of a namespace no memory uses — memories' namespaces are their ids. */
function probePinecone(ctx: TypedProviderContext<{ index_host: string }, { api_key: string }>): Promise<ProbeResult> {
  const apiKey = ctx.credential?.api_key ?? '';
  const namespace = `wsa-probe-${randomBytes(6).toString('hex')}`;
  return probeGet(
    ctx.fetch,
    `${trimSlash(ctx.config.index_host)}/vectors/list?${new URLSearchParams({ namespace, limit: '1' })}`,
    { 'api-key': apiKey, 'x-pinecone-api-version': PINECONE_API_VERSION },
    ctx.signal,
    [apiKey],
  );
}

// A vector database that users run or rent, through Pinecone's data-plane HTTP API: records live in
// the index at `index_host`, one namespace per memory, embedded by the memory's embedding model.
registerProviderType(
  defineProviderType({
    kind: 'memory',
    type: 'pinecone',
    title: 'Pinecone (or a compatible vector database)',
    configuration: PineconeConfig,
    credential: ApiKeyCredential,
    credentialRequired: true,
    setupUrl: 'https://app.pinecone.io/',
    endpointFields: ['index_host'],
    records: { embeddingModelRequired: true, open: (ctx) => openPineconeStore(ctx) },
    probe: probePinecone,
  }),
);

registerProviderType(
  defineProviderType({
    kind: 'memory',
    type: 'builtin',
    title: 'Built-in (records in this service’s database)',
    configuration: NoConfiguration,
    credential: NoCredential,
    credentialRequired: false,
    records: { embeddingModelRequired: false, open: openBuiltinStore, listMany: listBuiltinPages },
    // Lists one page of a namespace no memory uses: proves the records store answers, touches nothing.
    probe: async (ctx) => {
      if (!ctx.db) return { status: 'failed', message: 'the records store is not reachable' };
      await ctx.db.memoryRecord.findMany({ where: { namespace: `probe-${Date.now()}` }, take: 1 });
      return { status: 'succeeded' };
    },
  }),
);
