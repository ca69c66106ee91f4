// Connections: a workspace's configured servers of a connector provider (MCP servers: streamable
// HTTP, or a local process over stdio where the deployment allows it). A live resource: changed in
// place, disabled with `enabled` false, its credential (a bearer token and/or headers) write-only,
// sealed, replaced or removed by PATCH under the providers' rule, and removed by revoke. An HTTP
// connection may instead (or as well) hold an OAuth grant (connection-oauth.ts), whose access token
// becomes its bearer token. Runs reach a connection through `connectionForUse`, which refuses a
// disabled connection (or provider) and refreshes an OAuth access token about to expire.
import type { Connection, Provider } from '../../generated/prisma/client.js';
import type { Prisma } from '../../db.js';
import { AppError, invalidArgument, notFound, quoteInput } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { readDocument } from '../../lib/json-documents.js';
import { providerType, type ProviderType } from '../../providers/index.js';
import { connectMcpClient, listMcpTools, McpConfig, McpCredential, redactSecrets, type McpEndpoint } from '../../providers/mcp-client.js';
import { REDACTED, recordCreation } from '../audit/audit.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { namedPatchData, newNamedFields, newNamedRow } from '../../services/named-patch.js';
import { configGeneration, GenerationCache } from '../../services/config-cache.js';
import type { Deps } from '../../services/deps.js';
import { requirePermission } from '../access/permissions.js';
import { checkEndpointPolicy, outboundFetch, validateAgainst } from '../models/providers.js';
import { outboundRefusalOf } from '../../lib/outbound-policy.js';
import { changeVersioned, updateVersioned, type VersionedTable } from '../../services/versioned.js';
import { listQuery, NAME_AND_DESCRIPTION, newestFirst } from '../../services/list-query.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import { inCallersWorkspace } from '../../services/workspace-rows.js';
import { oauthFailureMessage, usableGrant } from './connection-oauth-grant.js';
import { revokeGrant, type OAuthGrant } from '../../providers/mcp-oauth.js';

const RESOURCE_KIND = 'connection';
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers the HTTP client sets itself: a credential may not name them. */
const RESERVED_HEADER = /^(host|content-length|content-type|transfer-encoding|connection|accept|mcp-session-id|mcp-protocol-version)$/i;

export interface ConnectionInput {
  providerId?: string | null;
  name?: unknown;
  description?: unknown;
  config?: unknown;
  /** A value replaces, null removes, undefined keeps (PATCH); on create, absent or null: none. */
  credential?: unknown;
  labels?: unknown;
  enabled?: boolean | null;
}

export interface ConnectionTestResult {
  status: 'succeeded' | 'failed';
  message: string | null;
  toolCount: number | null;
}

function validateObject(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(`${field} must be an object`, field);
  return value as Record<string, unknown>;
}

/** A connection's config, read as the MCP connector type's schema says (it was checked against it when written). */
export const connectionConfig = (row: Pick<Connection, 'config'>): McpConfig => readDocument(McpConfig, row.config, 'connections.config');

/** The connector type of a provider, or why it cannot serve connections. */
function connectorType(provider: Provider): ProviderType {
  const t = providerType('connector', provider.type);
  if (!t) throw new AppError('failed_precondition', `connector provider type ${provider.type} is not installed`);
  return t;
}

function validateConfig(deps: Deps, t: ProviderType, value: unknown): Record<string, unknown> {
  const config = validateObject(value ?? {}, 'config');
  validateAgainst(t.configurationSchema, config, 'config');
  checkEndpointPolicy(deps, t, config);
  return config;
}

function validateCredential(t: ProviderType, value: unknown): Record<string, unknown> {
  const credential = validateObject(value, 'credential');
  validateAgainst(t.credentialSchema, credential, 'credential');
  for (const [name, header] of Object.entries((credential.headers as Record<string, unknown> | undefined) ?? {})) {
    if (!HEADER_NAME.test(name) || RESERVED_HEADER.test(name))
      throw invalidArgument(`credential.headers.${name} is not an allowed header name`, `credential.headers.${name}`);
    if (typeof header !== 'string' || /[\r\n]/.test(header) || header.length > 4096)
      throw invalidArgument(`credential.headers.${name} must be a single-line string`, `credential.headers.${name}`);
  }
  if (typeof credential.bearer_token === 'string' && (credential.bearer_token === '' || /[\r\n]/.test(credential.bearer_token)))
    throw invalidArgument('credential.bearer_token must be a non-empty single-line string', 'credential.bearer_token');
  return credential;
}

async function connectorProvider(call: CallContext, providerId: unknown): Promise<Provider> {
  if (typeof providerId !== 'string' || !providerId) throw invalidArgument('provider_id is required', 'provider_id');
  const provider = await call.db.provider.findUnique({ where: { id: providerId } });
  if (!provider || provider.workspaceId !== call.actor.workspaceId || provider.kind !== 'connector')
    throw new AppError('not_found', `connector provider ${quoteInput(providerId)} not found`, { field: 'provider_id' });
  return provider;
}

export async function getConnection(call: CallContext, id: string): Promise<Connection> {
  requirePermission(call.actor, 'read');
  return inCallersWorkspace(call, 'connection', id, await call.db.connection.findUnique({ where: { id } }));
}

export async function createConnection(call: CallContext, input: ConnectionInput): Promise<Connection> {
  const { deps, actor } = call;
  requirePermission(actor, 'write');
  const named = newNamedFields(input);
  return inTransaction(call, async (bound) => {
    const provider = await connectorProvider(bound, input.providerId);
    if (!provider.enabled) throw new AppError('disabled', 'the connector provider is disabled', { field: 'provider_id' });
    const t = connectorType(provider);
    const config = validateConfig(deps, t, input.config);
    const credential = input.credential === undefined || input.credential === null ? null : validateCredential(t, input.credential);
    const row = await bound.db.connection.create({
      data: {
        ...newNamedRow(actor, newId('connection'), named, input.enabled),
        providerId: provider.id,
        config: config as Prisma.InputJsonValue,
        credentialCiphertext: credential ? deps.secrets.encryptJson(credential) : null,
      },
    });
    await recordCreation(bound, RESOURCE_KIND, row.id, {
      provider_id: { from: null, to: provider.id },
      name: { from: null, to: named.name },
      config: { from: null, to: config },
      ...(credential ? { credential: { from: REDACTED, to: REDACTED } } : {}),
    });
    return row;
  });
}

export async function listConnections(
  call: CallContext,
  args: {
    label?: readonly string[] | null;
    q?: string | null;
    enabled?: boolean | null;
    providerId?: string | null;
    limit?: number | null;
    cursor?: string | null;
  },
) {
  requirePermission(call.actor, 'read');
  const query = listQuery(newestFirst('connections', { search: NAME_AND_DESCRIPTION }), call, args);
  const rows = await call.db.connection.findMany(
    query.findArgs({
      ...(args.enabled != null ? { enabled: args.enabled } : {}),
      ...(args.providerId ? { providerId: args.providerId } : {}),
    }),
  );
  return query.page(rows);
}

const CONNECTIONS: VersionedTable<Connection> = {
  resourceKind: RESOURCE_KIND,
  read: getConnection,
  delegate: (bound) => bound.db.connection,
  // The stored credential never shows in the audit row.
  secretFields: ['credentialCiphertext'],
};

export async function updateConnection(
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  patch: ConnectionInput,
  present: { credential: boolean },
): Promise<Connection> {
  const { deps } = call;
  return updateVersioned(call, CONNECTIONS, { permission: 'write', id, ifMatch }, async (bound, row) => {
    if (patch.providerId !== undefined && patch.providerId !== null && patch.providerId !== row.providerId)
      throw invalidArgument('a connection stays with its provider', 'provider_id');
    const t = connectorType(await bound.db.provider.findUniqueOrThrow({ where: { id: row.providerId } }));
    const data = namedPatchData(patch);
    let configChanged = false;
    if (patch.config !== undefined) {
      const config = validateConfig(deps, t, patch.config);
      data.config = config;
      configChanged = JSON.stringify(config) !== JSON.stringify(row.config);
    }
    // The providers' rule 3: a new endpoint must not inherit a credential meant for the old one, so a
    // config change while a credential is stored must replace or remove it in the same change.
    if (configChanged && row.credentialCiphertext && !present.credential)
      throw invalidArgument(
        'changing config while a credential is stored needs the credential replaced or removed (null) too',
        'credential',
        {
          missing: ['credential'],
        },
      );
    if (present.credential)
      data.credentialCiphertext =
        patch.credential === null || patch.credential === undefined
          ? null
          : deps.secrets.encryptJson(validateCredential(t, patch.credential));
    return data;
  });
}

/**
 * Removes the stored credential and OAuth grant (audited as `revoke`); a connection without either is
 * left as it is. If-Match is optional. An OAuth grant is first revoked at its authorization server
 * where that server offers revocation (RFC 7009); a server that cannot be reached or refuses does
 * not keep the grant stored (the service forgets it either way), and the audit row says which.
 */
export async function revokeConnection(call: CallContext, id: string, ifMatch: string | null | undefined): Promise<Connection> {
  requirePermission(call.actor, 'write');
  const before = await getConnection(call, id);
  const atServer = before.oauthCiphertext ? await revokeAtServer(call, before.oauthCiphertext) : null;
  return inTransaction(call, async (bound) => {
    const row = await getConnection(bound, id);
    return changeVersioned({
      call: bound,
      delegate: bound.db.connection,
      row,
      ifMatch,
      ifMatchRequired: false,
      resourceKind: RESOURCE_KIND,
      action: 'revoke',
      data: { credentialCiphertext: null, oauthCiphertext: null, oauthStatus: null, oauthStatusReason: null, oauthExpiresAt: null },
      secretFields: ['credentialCiphertext', 'oauthCiphertext'],
      ...(atServer ? { auditNotes: { oauth_revoked_at_server: atServer } } : {}),
    });
  });
}

/** Revokes a grant at its authorization server: `revoked`, `unsupported` (no revocation endpoint) or `failed: …`. */
async function revokeAtServer(call: CallContext, ciphertext: string): Promise<string> {
  const grant = call.secrets.decryptJson<OAuthGrant>(ciphertext);
  try {
    return (await revokeGrant(grant, outboundFetch(call.deps))) ? 'revoked' : 'unsupported';
  } catch (error) {
    const reason = oauthFailureMessage(error, [grant.tokens.access_token, grant.tokens.refresh_token, grant.client.client_secret]);
    call.logger.warn({ error: reason }, 'revoking an OAuth grant at its server failed');
    return `failed: ${reason}`;
  }
}

/** A connection as the engine uses it: its endpoint (configuration and credential) and what it is called. */
export interface ConnectionForUse {
  id: string;
  name: string;
  version: number;
  config: McpConfig;
  /** The stored credential, with an OAuth grant's access token as its bearer token. */
  credential: McpCredential | null;
  /** Changes with every new credential or token: part of the key clients are pooled under. */
  credentialCiphertext: string | null;
  /** The outbound policy's fetch: the MCP transport's every request goes through it. */
  fetch: typeof fetch;
}

const forUseCache = new GenerationCache<{ row: Connection; providerEnabled: boolean } | null>();

/**
 * For the engine (and the test operation): the connection `id` of `workspaceId` ready to be used —
 * refused with `not_found` when there is none, `disabled` when it or its provider is disabled.
 * Read through the configuration cache, so every change (a disable, a revoke) is seen at once.
 */
export async function connectionForUse(deps: Deps, workspaceId: string, id: string): Promise<ConnectionForUse> {
  let found = forUseCache.get(id);
  if (found === undefined) {
    const generation = configGeneration();
    const row = await deps.db.connection.findUnique({ where: { id } });
    const provider = row && (await deps.db.provider.findUnique({ where: { id: row.providerId }, select: { enabled: true } }));
    found = row ? { row, providerEnabled: provider?.enabled ?? false } : null;
    forUseCache.set(id, found, generation);
  }
  if (!found || found.row.workspaceId !== workspaceId) throw notFound('connection', id);
  const { row } = found;
  if (!row.enabled) throw new AppError('disabled', `the connection "${row.name}" (${row.id}) is disabled`);
  if (!found.providerEnabled)
    throw new AppError('disabled', `the connector provider of the connection "${row.name}" (${row.id}) is disabled`);
  if (connectionConfig(row).transport === 'stdio' && !deps.config.allowStdioConnectors)
    throw new AppError('failed_precondition', `the connection "${row.name}" runs a local process, which this deployment no longer allows`);
  const stored = row.credentialCiphertext
    ? readDocument(McpCredential, deps.secrets.decryptJson<unknown>(row.credentialCiphertext), 'connections.credential_ciphertext')
    : null;
  // OAuth: the grant's access token (refreshed first when it is about to expire) is the bearer token.
  const grant = row.oauthCiphertext ? await usableGrant(deps, row) : null;
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    config: connectionConfig(row),
    credential: grant ? { ...stored, bearer_token: grant.tokens.access_token } : stored,
    credentialCiphertext: grant ? `${row.credentialCiphertext ?? ''}:${grant.tokens.access_token}` : row.credentialCiphertext,
    fetch: outboundFetch(deps),
  };
}

/** Needs `run`: connects, lists the server's tools and disconnects. `failed` carries a message without secrets. */
export async function testConnection(call: CallContext, id: string): Promise<ConnectionTestResult> {
  requirePermission(call.actor, 'run');
  await getConnection(call, id);
  const connection = await connectionForUse(call.deps, call.actor.workspaceId, id);
  const endpoint: McpEndpoint = { config: connection.config, credential: connection.credential, fetch: connection.fetch };
  let client: Awaited<ReturnType<typeof connectMcpClient>> | null = null;
  try {
    client = await connectMcpClient(endpoint);
    const tools = await listMcpTools(client);
    return { status: 'succeeded', message: null, toolCount: tools.length };
  } catch (error) {
    const message = redactSecrets((outboundRefusalOf(error) ?? (error as Error)).message, endpoint).slice(0, 500);
    call.logger.info({ connectionId: id, error: message }, 'connection test failed');
    return { status: 'failed', message: `the MCP server did not answer: ${message}`, toolCount: null };
  } finally {
    await client?.close().catch(() => undefined);
  }
}

/** Connections by id for `node(id)` (src/services/nodes.ts). */
export const loadConnections: NodeRowsLoader<Connection> = (call, ids) => call.db.connection.findMany({ where: idsInWorkspace(call, ids) });
