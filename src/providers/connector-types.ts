// The connector provider type: tool servers spoken to over MCP.
import { outboundRefusalOf } from '../lib/outbound-policy.js';
import { connectMcpClient, listMcpTools, McpConfig, McpCredential, redactSecrets } from './mcp-client.js';
import { defineProviderType, registerProviderType } from './registry.js';

registerProviderType(
  defineProviderType({
    kind: 'connector',
    type: 'mcp',
    title: 'Model Context Protocol server',
    configuration: McpConfig,
    credential: McpCredential,
    credentialRequired: false,
    endpointFields: ['url'],
    probe: async (ctx) => {
      const endpoint = { config: ctx.config, credential: ctx.credential, fetch: ctx.fetch };
      let client: Awaited<ReturnType<typeof connectMcpClient>> | null = null;
      try {
        client = await connectMcpClient(endpoint, ctx.signal);
        const tools = await listMcpTools(client, ctx.signal);
        return { status: 'succeeded', message: `${tools.length} tools` };
      } catch (error) {
        return {
          status: 'failed',
          message: `the MCP server did not answer: ${redactSecrets((outboundRefusalOf(error) ?? (error as Error)).message, endpoint).slice(0, 200)}`,
        };
      } finally {
        await client?.close().catch(() => undefined);
      }
    },
  }),
);

// ── memory ──
// Mem0's hosted memory API. Not offered: its API does not fit the record contract — Mem0 makes the
// ids, processes adds asynchronously (no record to answer with) and rewrites the text it extracts —,
// so a memory on it could hold no records. The offered memory types are the contract's two, `builtin`
// and `pinecone`. Kept registered so that providers created while it was offered still resolve (their
// test still lists one page of a user id that no memory uses); no new ones are accepted.
