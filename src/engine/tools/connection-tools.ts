// The tools of a run's MCP connections (`connection_tools`): each entry's server is asked for its
// tools (filtered by `tools`) through a pooled client, and each tool becomes a server tool whose
// calls go to that server. The tool layer does the rest, as for every server tool: unique names
// (the connection's name is the namespace a colliding tool gets, names.ts), the permission (the
// entry's `permission` and `permissions`, resolved by permissions.ts), approvals, results and large
// results (content_refs), retries. The thread's `mcp_headers[connection_id]` travel with every
// request of the thread's runs; `configuration.allowed_hosts` bounds which servers a run may reach.
// Entries with `defer_loading` are not offered at first: the model gets `search_tools`, which
// offers the tools it finds. Every call reads the connection again (through the configuration
// cache), so a connection disabled mid-run refuses the call (`disabled`) and a revoked credential
// fails it with a clear error.
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { runOptionsSchema } from '../../features/agents/documents/config-schema.js';
import { digestOf } from '../../lib/canonical-json.js';
import { AppError } from '../../lib/errors.js';
import { isHostAllowed } from '../../lib/allowed-hosts.js';
import {
  endpointUrl,
  MCP_CALL_TIMEOUT_MS,
  redactSecrets,
  toolErrorText,
  toolResultValue,
  type McpEndpoint,
  type McpTool,
} from '../../providers/mcp-client.js';
import { connectionForUse, type ConnectionForUse } from '../../features/tools/connections.js';
import { threadMcpHeaders } from '../../features/runs/run-inheritance.js';
import type { ConnectionToolsConfig } from '../agent-config.js';
import { mcpPool } from './mcp-pool.js';
import { resolvePermission } from './permissions.js';
import type { RunTool, ToolSource, ToolSourceContext } from './tool.js';
import { readDocument } from '../../lib/json-documents.js';

export const SEARCH_TOOLS_TOOL = 'search_tools';
const MAX_NAME = 64;

/**
 * A server's tool name as model APIs accept names (letters, digits, `_` and `-`, at most 64).
 * Uniqueness in the run is the tool layer's (names.ts), not this source's.
 */
const modelSafeName = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_NAME) || 'tool';

/** The namespace of a connection's tools: its name (names.ts writes it as a name part), its id when the name has no letter or digit. */
const namespaceOf = (connection: ConnectionForUse) => (/[A-Za-z0-9]/.test(connection.name) ? connection.name : connection.id);

/** The endpoint a connection is reached at for one thread, and the key its pooled client is kept under. */
function endpointFor(connection: ConnectionForUse, threadHeaders: Record<string, string> | undefined) {
  const endpoint: McpEndpoint = {
    config: connection.config,
    credential: connection.credential,
    extraHeaders: threadHeaders ?? {},
    fetch: connection.fetch,
  };
  const key = `${connection.id}:${digestOf({ config: connection.config, credential: connection.credentialCiphertext, headers: endpoint.extraHeaders })}`;
  return { endpoint, key };
}

/** Refuses a connection the run's `allowed_hosts` does not allow (a local process cannot be bounded, so it is refused too). */
function checkAllowedHost(connection: ConnectionForUse, allowed: string[] | undefined) {
  if (!allowed) return;
  const url = endpointUrl(connection.config);
  if (!url)
    throw new AppError(
      'permission_denied',
      `the connection "${connection.name}" runs a local process, which a run with allowed_hosts cannot bound`,
    );
  if (!isHostAllowed(allowed, url))
    throw new AppError(
      'permission_denied',
      `the connection "${connection.name}" reaches ${url.host}, which is not in the run's allowed_hosts`,
    );
}

interface Listed {
  entry: ConnectionToolsConfig;
  connection: ConnectionForUse;
  tools: McpTool[];
}

/** Lists one connection's tools, or fails the attempt with a message that names the connection and carries no secret. */
async function listConnection(context: ToolSourceContext, entry: ConnectionToolsConfig, headers: Record<string, string> | undefined) {
  const { deps, run } = context;
  const connection = await connectionForUse(deps, run.workspaceId, entry.connection_id);
  checkAllowedHost(connection, readDocument(runOptionsSchema, run.options, 'runs.options').configuration?.allowed_hosts);
  const { endpoint, key } = endpointFor(connection, headers);
  context.onOutsideWait?.();
  try {
    const tools = await mcpPool(deps).listTools(key, endpoint);
    return { entry, connection, tools: entry.tools ? tools.filter((tool) => entry.tools!.includes(tool.name)) : tools };
  } catch (error) {
    const reason = redactSecrets((error as Error).message, endpoint).slice(0, 500);
    const hint = connection.credential ? '' : ' (the connection has no credential: was it revoked?)';
    throw new AppError('unavailable', `the MCP server of the connection "${connection.name}" did not list its tools: ${reason}${hint}`);
  }
}

/** One MCP tool as a server tool of the run: each call re-checks the connection, then goes to its pooled client. */
function mcpRunTool(context: ToolSourceContext, listed: Listed, tool: McpTool, headers: Record<string, string> | undefined): RunTool {
  const { deps, run } = context;
  const { entry, connection } = listed;
  const hadCredential = connection.credential !== null;
  return {
    name: modelSafeName(tool.name),
    namespace: namespaceOf(connection),
    description: [tool.description ?? tool.title ?? tool.name, `(tool "${tool.name}" of the connection "${connection.name}")`].join(' '),
    inputSchema: (tool.inputSchema ?? { type: 'object' }) as JSONSchema7,
    // `permissions` is keyed by the server's names, before any renaming.
    permission: resolvePermission(tool.name, entry),
    offered: !entry.defer_loading,
    execution: {
      kind: 'server',
      execute: async (args, { signal }) => {
        // Disabled since the attempt began: `disabled`. Revoked: said so, instead of the server's 401.
        const current = await connectionForUse(deps, run.workspaceId, connection.id);
        if (hadCredential && !current.credential)
          throw new AppError(
            'failed_precondition',
            `the credential of the connection "${current.name}" was revoked: its tools cannot be used until a new credential is stored`,
          );
        checkAllowedHost(current, readDocument(runOptionsSchema, run.options, 'runs.options').configuration?.allowed_hosts);
        const { endpoint, key } = endpointFor(current, headers);
        let result;
        try {
          result = await mcpPool(deps).use(key, endpoint, (client) =>
            client.callTool({ name: tool.name, arguments: args }, undefined, {
              signal,
              timeout: MCP_CALL_TIMEOUT_MS,
              resetTimeoutOnProgress: true,
            }),
          );
        } catch (error) {
          if (signal.aborted) throw error;
          // The original is left behind on purpose: its message (and anything logging it) may echo the credential.
          // eslint-disable-next-line preserve-caught-error
          throw new Error(redactSecrets((error as Error).message, endpoint));
        }
        if ('isError' in result && result.isError) throw new Error(redactSecrets(toolErrorText(result as CallToolResult), endpoint));
        return toolResultValue(result);
      },
    },
  };
}

const SEARCH_SCHEMA: JSONSchema7 = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'keywords, or the exact name of a tool' },
    limit: { type: 'integer', minimum: 1, maximum: 20, description: 'at most this many tools (default 5)' },
  },
  required: ['query'],
};

/** How well a tool matches the query's words: every word found in its name or description counts. */
function score(query: string, name: string, description: string): number {
  if (query.trim().toLowerCase() === name.toLowerCase()) return Number.MAX_SAFE_INTEGER;
  const haystack = `${name.replace(/[_-]+/g, ' ')} ${description}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && haystack.includes(word)).length;
}

/**
 * `search_tools`: finds deferred tools by keywords and offers the best matches from the model's next
 * request on. It matches and answers with the tools' names in the run (namespaced where they collided).
 */
function searchTool(context: ToolSourceContext, deferred: RunTool[], connections: string[]): RunTool {
  return {
    name: SEARCH_TOOLS_TOOL,
    namespace: 'connections',
    description:
      `Find tools of the connections ${connections.map((c) => `"${c}"`).join(', ')} (${deferred.length} tools, not loaded yet) ` +
      'by keywords; the tools found can be called from the next step on.',
    inputSchema: SEARCH_SCHEMA,
    permission: 'allow',
    offered: true,
    // It only offers tools the run already has (their own calls are rated): nothing for the reviewer.
    skipReview: true,
    execution: {
      kind: 'server',
      execute: async (args) => {
        const query = String(args.query ?? '');
        const limit = Math.min(Math.max(Number(args.limit) || 5, 1), 20);
        const found = deferred
          .map((tool) => ({ name: context.nameInRun(tool), description: tool.description }))
          .map((tool) => ({ tool, score: score(query, tool.name, tool.description) }))
          .filter((match) => match.score > 0)
          .sort((a, b) => b.score - a.score)
          .slice(0, limit)
          .map((match) => match.tool);
        context.offerTools(found.map((tool) => tool.name));
        return found.length ? { loaded: found } : { loaded: [], message: 'no tool matches; try other words' };
      },
    },
  };
}

export const connectionTools: ToolSource = async (context) => {
  const entries = context.config.connection_tools ?? [];
  if (!entries.length) return [];
  const headers = context.mcpHeaders ?? (await threadMcpHeaders(context.call, context.run.threadId));
  const listed: Listed[] = [];
  for (const entry of entries) listed.push(await listConnection(context, entry, headers[entry.connection_id]));

  const tools = listed.flatMap((item) => item.tools.map((tool) => mcpRunTool(context, item, tool, headers[item.entry.connection_id])));
  const deferred = tools.filter((tool) => !tool.offered);
  if (!deferred.length) return tools;
  const connections = listed.filter(({ entry }) => entry.defer_loading).map(({ connection }) => connection.name);
  return [...tools, searchTool(context, deferred, connections)];
};
