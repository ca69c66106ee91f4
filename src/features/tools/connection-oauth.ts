// Authorizing a connection with OAuth 2.1 (the MCP authorization specification): the start (needs
// `write`) discovers the MCP server's authorization server, registers a client (or takes the one
// given), and answers the authorization URL for a browser; the authorization server sends the
// browser back to the service's callback (OAUTH_CALLBACK_PATH) with a code and the `state`, which
// names an authorization in progress — bound to the connection, its workspace and whoever started
// it, used once, expiring after STATE_TTL_MS — and the code is exchanged for tokens, stored sealed
// on the connection. Using and refreshing the grant: connection-oauth-grant.ts.
import { randomBytes } from 'node:crypto';
import { AppError, invalidArgument, notFound } from '../../lib/errors.js';
import { hashToken } from '../../lib/crypto.js';
import { beginAuthorization, exchangeCode, type PendingAuthorization } from '../../providers/mcp-oauth.js';
import { callContext, inTransaction, type CallContext } from '../../services/call-context.js';
import type { Deps } from '../../services/deps.js';
import { publicBaseUrl } from '../../services/service-url.js';
import { REDACTED, recordAudit } from '../audit/audit.js';
import { requirePermission } from '../access/permissions.js';
import { outboundFetch } from '../models/providers.js';
import { oauthFailureMessage, sealGrant } from './connection-oauth-grant.js';
import { connectionConfig, getConnection } from './connections.js';

/** The service's route the authorization server sends the browser back to. */
export const OAUTH_CALLBACK_PATH = '/oauth/mcp/callback';
/** How long a started authorization waits for its callback. */
export const STATE_TTL_MS = 10 * 60_000;

export interface StartAuthorizationInput {
  /** A client registered with the authorization server beforehand (its redirect URI: the service's callback). */
  clientId?: string | null;
  clientSecret?: string | null;
  /** The scopes to ask for; absent: those the server's resource metadata lists. */
  scope?: string | null;
}

export interface StartedAuthorization {
  authorizationUrl: string;
  redirectUrl: string;
  expiresAt: Date;
}

function optionalLine(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '' || value.length > max || /[\r\n]/.test(value))
    throw invalidArgument(`${field} must be a non-empty single-line string of at most ${max} characters`, field);
  return value;
}

export async function startConnectionAuthorization(
  call: CallContext,
  id: string,
  input: StartAuthorizationInput | null | undefined,
): Promise<StartedAuthorization> {
  const { deps, actor } = call;
  requirePermission(actor, 'write');
  const clientId = optionalLine(input?.clientId, 'client_id', 500);
  const clientSecret = optionalLine(input?.clientSecret, 'client_secret', 2000);
  const scope = optionalLine(input?.scope, 'scope', 1000);
  if (clientSecret && !clientId) throw invalidArgument('client_secret needs client_id', 'client_secret');
  const row = await getConnection(call, id);
  const config = connectionConfig(row);
  if (config.transport === 'stdio' || !config.url)
    throw new AppError('failed_precondition', `the connection "${row.name}" runs a local process: OAuth is for MCP servers over HTTP`);

  const redirectUrl = `${publicBaseUrl(deps)}${OAUTH_CALLBACK_PATH}`;
  const state = randomBytes(32).toString('base64url');
  let begun;
  try {
    begun = await beginAuthorization({
      serverUrl: config.url,
      redirectUrl,
      state,
      client: clientId ? { clientId, clientSecret } : null,
      scope,
      fetch: outboundFetch(deps),
    });
  } catch (error) {
    throw new AppError(
      'failed_precondition',
      `the authorization of the connection "${row.name}" could not start: ${oauthFailureMessage(error, [clientSecret ?? undefined])}`,
    );
  }
  const expiresAt = new Date(Date.now() + STATE_TTL_MS);
  await inTransaction(call, async (bound) => {
    // Authorizations nobody finished are dropped as new ones start.
    await bound.db.connectionOauthState.deleteMany({ where: { expiresAt: { lt: new Date() } } });
    await bound.db.connectionOauthState.create({
      data: {
        stateHash: hashToken(state),
        connectionId: row.id,
        workspaceId: actor.workspaceId,
        principalId: actor.principalId,
        pendingCiphertext: deps.secrets.encryptJson(begun.pending),
        expiresAt,
      },
    });
    await recordAudit(bound, {
      action: 'authorize_start',
      resourceKind: 'connection',
      resourceId: row.id,
      version: row.version,
      changes: {
        authorization_server: { from: null, to: begun.pending.servers.authorizationServerUrl },
        client: { from: null, to: clientId ? 'configured' : 'registered' },
      },
    });
  });
  return { authorizationUrl: begun.authorizationUrl.href, redirectUrl, expiresAt };
}

interface StateRow {
  connection_id: string;
  workspace_id: string;
  principal_id: string;
  pending_ciphertext: string;
  expires_at: Date;
}

export interface CallbackQuery {
  state?: unknown;
  code?: unknown;
  error?: unknown;
  error_description?: unknown;
}

const queryText = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The callback: takes the authorization `state` names (deleting it: a state is used once, whatever
 * follows), exchanges the code and stores the grant as a change by whoever started it. Answers the
 * connection's id and workspace.
 */
export async function completeConnectionAuthorization(
  deps: Deps,
  requestId: string | null,
  query: CallbackQuery,
): Promise<{ connectionId: string; workspaceId: string }> {
  const state = queryText(query.state);
  if (!state) throw invalidArgument('state is required', 'state');
  const [found] = await deps.db.$queryRaw<StateRow[]>`
    DELETE FROM connection_oauth_states WHERE state_hash = ${hashToken(state)}
    RETURNING connection_id, workspace_id, principal_id, pending_ciphertext, expires_at`;
  if (!found || found.expires_at.getTime() < Date.now())
    throw invalidArgument('the authorization state is unknown, already used or expired: start the authorization again', 'state');
  const error = queryText(query.error);
  if (error) {
    const description = queryText(query.error_description);
    throw new AppError(
      'failed_precondition',
      `the authorization server refused: ${error}${description ? ` (${description.slice(0, 300)})` : ''}`,
    );
  }
  const code = queryText(query.code);
  if (!code) throw invalidArgument('code is required', 'code');
  const row = await deps.db.connection.findUnique({ where: { id: found.connection_id } });
  if (!row || row.workspaceId !== found.workspace_id) throw notFound('connection', found.connection_id);
  const pending = deps.secrets.decryptJson<PendingAuthorization>(found.pending_ciphertext);
  // A grant for the server the authorization began with must not land on a connection that now points elsewhere.
  if (connectionConfig(row).url !== pending.serverUrl)
    throw new AppError('failed_precondition', `the connection "${row.name}" changed its server since the authorization started`);
  let grant;
  try {
    grant = await exchangeCode(pending, code, outboundFetch(deps));
  } catch (failure) {
    throw new AppError(
      'failed_precondition',
      `the authorization code could not be exchanged: ${oauthFailureMessage(failure, [code, pending.client.client_secret])}`,
    );
  }
  const call = callContext(deps, null, requestId);
  await inTransaction(call, async (bound) => {
    const updated = await bound.db.connection.update({
      where: { id: row.id },
      data: {
        oauthCiphertext: sealGrant(deps, grant),
        oauthStatus: 'authorized',
        oauthStatusReason: null,
        oauthExpiresAt: grant.expiresAt === null ? null : new Date(grant.expiresAt),
        version: { increment: 1 },
        updatedById: found.principal_id,
        updatedAt: new Date(),
      },
    });
    await recordAudit(bound, {
      workspaceId: row.workspaceId,
      principalId: found.principal_id,
      action: 'authorize',
      resourceKind: 'connection',
      resourceId: row.id,
      version: updated.version,
      changes: {
        oauth: { from: row.oauthCiphertext ? REDACTED : null, to: REDACTED },
        oauth_status: { from: row.oauthStatus, to: 'authorized' },
      },
    });
  });
  return { connectionId: row.id, workspaceId: row.workspaceId };
}
