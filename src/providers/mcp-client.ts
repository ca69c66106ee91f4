// Opening an MCP client (the official SDK's) for a connector's configuration: streamable HTTP with
// the credential's bearer token and headers plus any extra headers, or a local process over stdio.
// Whether stdio is allowed and which hosts may be reached is decided by the callers (services: the
// deployment's policy; the engine: a run's allowed hosts); this module only speaks the protocol.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import Type, { type Static } from 'typebox';
import { mapOf } from './common-schemas.js';

export type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';

/** How long connecting, listing and a call may take before they are given up. */
export const MCP_CONNECT_TIMEOUT_MS = 15_000;
export const MCP_CALL_TIMEOUT_MS = 120_000;

/**
 * A connection's (and an MCP provider's) `config`: `transport` (default `streamable_http`) with `url`,
 * or `stdio` with `command` and `args`.
 */
export const McpConfig = Type.Object(
  {
    transport: Type.Optional(
      Type.Enum(['streamable_http', 'stdio'], {
        description: 'default streamable_http; stdio only where the deployment allows it (ALLOW_STDIO_CONNECTORS)',
      }),
    ),
    url: Type.Optional(Type.String({ format: 'uri' })),
    command: Type.Optional(Type.String({ minLength: 1 })),
    args: Type.Optional(Type.Array(Type.String())),
  },
  {
    additionalProperties: false,
    if: { properties: { transport: { const: 'stdio' } }, required: ['transport'] },
    then: { required: ['command'] },
    else: { required: ['url'] },
  },
);
export type McpConfig = Static<typeof McpConfig>;

/** A connection's credential: a bearer token and/or headers sent with every request. */
export const McpCredential = Type.Object(
  { bearer_token: Type.Optional(Type.String({ writeOnly: true })), headers: Type.Optional(mapOf(Type.String())) },
  { additionalProperties: false },
);
export type McpCredential = Static<typeof McpCredential>;

export interface McpEndpoint {
  config: McpConfig;
  credential: McpCredential | null;
  /** Headers added to every request after the credential's (a thread's `mcp_headers` for this connection). */
  extraHeaders?: Record<string, string>;
  /** The outbound policy's fetch (src/lib/outbound-policy.ts): every HTTP request of the transport goes through it. */
  fetch: typeof fetch;
}

/** The request headers an endpoint sends: the credential's headers, its bearer token, then the extra headers. */
export function endpointHeaders(endpoint: McpEndpoint): Record<string, string> {
  const headers: Record<string, string> = { ...(endpoint.credential?.headers ?? {}) };
  if (endpoint.credential?.bearer_token !== undefined) headers.authorization = `Bearer ${endpoint.credential.bearer_token}`;
  return { ...headers, ...(endpoint.extraHeaders ?? {}) };
}

/** Every secret string of an endpoint (credential values and extra header values), to keep them out of messages. */
export function endpointSecrets(endpoint: McpEndpoint): string[] {
  const values = Object.values(endpointHeaders(endpoint));
  if (endpoint.credential?.bearer_token !== undefined) values.push(endpoint.credential.bearer_token);
  // Short values would blank out ordinary words; they are no secret worth that.
  return values.filter((value) => value.length >= 4);
}

/** `message` with every secret of `endpoint` replaced by "[redacted]" (servers may echo what they were sent). */
export function redactSecrets(message: string, endpoint: McpEndpoint): string {
  let text = message;
  for (const secret of endpointSecrets(endpoint)) text = text.split(secret).join('[redacted]');
  return text;
}

/** The host (`host` or `host:port`) an HTTP endpoint reaches; null for stdio. */
export function endpointUrl(config: McpConfig): URL | null {
  if (config.transport === 'stdio') return null;
  return new URL(config.url ?? '');
}

/** What a client's owner hears from its server after connecting. */
export interface McpClientListeners {
  /**
   * The server said its tools changed (`notifications/tools/list_changed`). Only servers that declare
   * `tools.listChanged` send it, and over streamable HTTP only while a session's event stream is open.
   */
  onToolsChanged?: () => void;
}

/** Connects a new client (initialize handshake included). The caller closes it. */
export async function connectMcpClient(endpoint: McpEndpoint, signal?: AbortSignal, listeners: McpClientListeners = {}): Promise<Client> {
  const { onToolsChanged } = listeners;
  const client = new Client(
    { name: 'workspace-agent-service', version: '1' },
    // The SDK ignores this for servers that do not declare `tools.listChanged`. No refresh here: the
    // owner decides when to list again.
    onToolsChanged ? { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onToolsChanged() } } } : {},
  );
  const url = endpointUrl(endpoint.config);
  const transport = url
    ? new StreamableHTTPClientTransport(url, { requestInit: { headers: endpointHeaders(endpoint) }, fetch: endpoint.fetch })
    : new StdioClientTransport({
        command: endpoint.config.command ?? '',
        args: endpoint.config.args ?? [],
        // The child gets the SDK's short list of harmless variables (PATH, HOME, …), never the service's own.
        stderr: 'ignore',
      });
  const timeout = AbortSignal.timeout(MCP_CONNECT_TIMEOUT_MS);
  try {
    await client.connect(transport, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout, timeout: MCP_CONNECT_TIMEOUT_MS });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return client;
}

/** Every tool the server offers (following its pagination). */
export async function listMcpTools(client: Client, signal?: AbortSignal): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  // A server that pages for ever is cut off: no real server has this many tools.
  for (let page = 0; page < 50; page += 1) {
    const listed = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: MCP_CONNECT_TIMEOUT_MS });
    tools.push(...listed.tools);
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** What `callTool` answers: a result, or (servers of the first protocol version) a bare `toolResult`. */
export type McpCallResult = CallToolResult | { toolResult: unknown };

/** A tool's result as the model gets it: its structured content, else its text, else a summary of the other parts. */
export function toolResultValue(answer: McpCallResult): unknown {
  if (!('content' in answer) && 'toolResult' in answer) return answer.toolResult;
  const result = answer as CallToolResult;
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  const parts = result.content ?? [];
  const texts = parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text);
  if (texts.length === parts.length) return texts.join('\n');
  return parts.map((part) => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'image':
      case 'audio':
        // Media is described, not inlined: base64 bytes in a tool result would flood the model's context.
        return { type: part.type, mime_type: part.mimeType, bytes: Math.floor((part.data.length * 3) / 4) };
      case 'resource_link':
        return { type: 'resource_link', uri: part.uri, name: part.name };
      case 'resource':
        return 'text' in part.resource
          ? { type: 'resource', uri: part.resource.uri, text: part.resource.text }
          : { type: 'resource', uri: part.resource.uri, mime_type: part.resource.mimeType ?? null };
      default:
        return { type: (part as { type: string }).type };
    }
  });
}

/** The text of an error result (`isError`), for the model. */
export function toolErrorText(result: CallToolResult): string {
  const value = toolResultValue({ ...result, structuredContent: undefined } as CallToolResult);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text || 'the tool reported an error';
}
