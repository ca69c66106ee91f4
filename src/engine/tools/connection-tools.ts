// The tools of a run's MCP connections (`connection_tools`): each entry's server is asked for its
// tools (filtered by `tools`) through a pooled client, and each tool becomes a server tool whose
// calls go to that server. The thread's `mcp_headers[connection_id]` travel with every request of
// the thread's runs; `configuration.allowed_hosts` bounds which servers a run may reach. Entries with
// `defer_loading` are not offered at first: the model gets `search_tools`, which loads the tools it
// finds. Every call reads the connection again (through the configuration cache), so a connection
// disabled mid-run refuses the call (`disabled`) and a revoked credential fails it with a clear error.
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunOptions } from '../../agents/config-schema.js';
import { digestOf } from '../../lib/canonical-json.js';
import { AppError } from '../../lib/errors.js';
import { isHostAllowed } from '../../lib/allowed-hosts.js';
import {
  endpointUrl,
  listMcpTools,
  MCP_CALL_TIMEOUT_MS,
  redactSecrets,
  toolErrorText,
  toolResultValue,
  type McpEndpoint,
  type McpTool,
} from '../../providers/mcp-client.js';
import { connectionForUse, type ConnectionForUse } from '../../services/connections.js';
import type { ConnectionToolsConfig } from '../agent-config.js';
import { ASK_USER_TOOL } from './ask-user.js';
import { mcpPool } from './mcp-pool.js';
import type { RunTool, ToolPermission, ToolSource, ToolSourceContext } from './tool.js';

export const SEARCH_TOOLS_TOOL = 'search_tools';
const MAX_NAME = 64;

/** Tool names every model API accepts: letters, digits, `_` and `-`, at most 64. */
const toolName = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_NAME) || 'tool';
const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 30) || 'connection';

/** `inherit` (or nothing) is the agent's default, which is `allow` for server tools. */
function permissionOf(entry: ConnectionToolsConfig, tool: string): ToolPermission {
  const chosen = entry.permissions?.[tool] ?? entry.permission;
  return chosen === 'ask' || chosen === 'deny' ? chosen : 'allow';
}

/** The endpoint a connection is reached at for one thread, and the key its pooled client is kept under. */
function endpointFor(connection: ConnectionForUse, threadHeaders: Record<string, string> | undefined) {
  const endpoint: McpEndpoint = { config: connection.config, credential: connection.credential, extraHeaders: threadHeaders ?? {} };
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

async function threadMcpHeaders(context: ToolSourceContext): Promise<Record<string, Record<string, string>>> {
  const thread = await context.call.db.thread.findUnique({ where: { id: context.run.threadId }, select: { mcpHeaders: true } });
  // The column holds only what the threads service validated: connection id → header map.
  return (thread?.mcpHeaders as Record<string, Record<string, string>> | null) ?? {};
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
  checkAllowedHost(connection, (run.options as RunOptions).configuration?.allowed_hosts);
  const { endpoint, key } = endpointFor(connection, headers);
  try {
    const tools = await mcpPool(deps).use(key, endpoint, (client) => listMcpTools(client));
    return { entry, connection, tools: entry.tools ? tools.filter((tool) => entry.tools!.includes(tool.name)) : tools };
  } catch (error) {
    const reason = redactSecrets((error as Error).message, endpoint).slice(0, 500);
    const hint = connection.credential ? '' : ' (the connection has no credential: was it revoked?)';
    throw new AppError('unavailable', `the MCP server of the connection "${connection.name}" did not list its tools: ${reason}${hint}`);
  }
}

/**
 * Names in the run: the server's name made acceptable to model APIs; where two connections (or a
 * client tool, `ask_user`, `search_tools`) share a name, `connection__tool`; still taken, a number.
 */
function assignNames(listed: Listed[], reserved: Set<string>): Map<McpTool, string> {
  const counts = new Map<string, number>();
  for (const { tools } of listed) for (const tool of tools) counts.set(toolName(tool.name), (counts.get(toolName(tool.name)) ?? 0) + 1);
  const taken = new Set(reserved);
  const names = new Map<McpTool, string>();
  for (const { connection, tools } of listed) {
    for (const tool of tools) {
      const plain = toolName(tool.name);
      let name = counts.get(plain)! > 1 || reserved.has(plain) ? toolName(`${slug(connection.name)}__${plain}`) : plain;
      for (let n = 2; taken.has(name); n += 1) name = `${name.slice(0, MAX_NAME - String(n).length - 1)}_${n}`;
      taken.add(name);
      names.set(tool, name);
    }
  }
  return names;
}

/** One MCP tool as a server tool of the run: each call re-checks the connection, then goes to its pooled client. */
function mcpRunTool(
  context: ToolSourceContext,
  listed: Listed,
  tool: McpTool,
  name: string,
  headers: Record<string, string> | undefined,
): RunTool {
  const { deps, run } = context;
  const { entry, connection } = listed;
  const hadCredential = connection.credential !== null;
  return {
    name,
    description: [tool.description ?? tool.title ?? tool.name, `(tool "${tool.name}" of the connection "${connection.name}")`].join(' '),
    inputSchema: (tool.inputSchema ?? { type: 'object' }) as JSONSchema7,
    permission: permissionOf(entry, tool.name),
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
        checkAllowedHost(current, (run.options as RunOptions).configuration?.allowed_hosts);
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

/** `search_tools`: finds deferred tools by keywords and loads the best matches for the model's next request. */
function searchTool(context: ToolSourceContext, deferred: RunTool[], connections: string[]): RunTool {
  return {
    name: SEARCH_TOOLS_TOOL,
    description:
      `Find tools of the connections ${connections.map((c) => `"${c}"`).join(', ')} (${deferred.length} tools, not loaded yet) ` +
      'by keywords; the tools found can be called from the next step on.',
    inputSchema: SEARCH_SCHEMA,
    permission: 'allow',
    offered: true,
    execution: {
      kind: 'server',
      execute: async (args) => {
        const query = String(args.query ?? '');
        const limit = Math.min(Math.max(Number(args.limit) || 5, 1), 20);
        const found = deferred
          .map((tool) => ({ tool, score: score(query, tool.name, tool.description) }))
          .filter((match) => match.score > 0)
          .sort((a, b) => b.score - a.score)
          .slice(0, limit)
          .map((match) => match.tool);
        context.offerTools(found.map((tool) => tool.name));
        return found.length
          ? { loaded: found.map((tool) => ({ name: tool.name, description: tool.description })) }
          : { loaded: [], message: 'no tool matches; try other words' };
      },
    },
  };
}

export const connectionTools: ToolSource = async (context) => {
  const entries = context.config.connection_tools ?? [];
  if (!entries.length) return [];
  const headers = await threadMcpHeaders(context);
  const listed: Listed[] = [];
  for (const entry of entries) listed.push(await listConnection(context, entry, headers[entry.connection_id]));

  const deferring = listed.some(({ entry }) => entry.defer_loading);
  const reserved = new Set([
    ASK_USER_TOOL,
    ...(context.config.client_tools ?? []).map((tool) => tool.name),
    ...(deferring ? [SEARCH_TOOLS_TOOL] : []),
  ]);
  const names = assignNames(listed, reserved);
  const tools = listed.flatMap((item) =>
    item.tools.map((tool) => mcpRunTool(context, item, tool, names.get(tool)!, headers[item.entry.connection_id])),
  );
  const deferred = tools.filter((tool) => !tool.offered);
  if (!deferred.length) return tools;
  const connections = listed.filter(({ entry }) => entry.defer_loading).map(({ connection }) => connection.name);
  return [...tools, searchTool(context, deferred, connections)];
};
