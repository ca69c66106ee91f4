// A connection's OAuth grant in use: read from its sealed column, refreshed when the access token is
// about to expire, and the refresh's failure recorded on the connection (status `refresh_failed`
// and the reason), after which its tools answer that error at once instead of asking the server.
//
// A refresh holds the connection's row lock (SELECT … FOR UPDATE) while it asks the authorization
// server, so processes sharing the database refresh a grant once: servers that rotate refresh tokens
// would otherwise see the old one used twice and end the grant. The second process finds the new
// grant when it gets the lock. Within a process, concurrent uses share one refresh.
import type { Connection } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { outboundRefusalOf } from '../../lib/outbound-policy.js';
import { isOAuthAnswer, OAUTH_REQUEST_TIMEOUT_MS, refreshGrant, type OAuthGrant } from '../../providers/mcp-oauth.js';
import { announceIfConfiguration, bumpConfigGeneration } from '../../services/config-cache.js';
import type { Deps } from '../../services/deps.js';
import { recordServiceAudit } from '../audit/audit.js';
import { outboundFetch } from '../models/providers.js';

/** An access token expiring within this is refreshed before it is used. */
export const REFRESH_MARGIN_MS = 60_000;

export type OAuthStatus = 'authorized' | 'refresh_failed';

export const sealGrant = (deps: Pick<Deps, 'secrets'>, grant: OAuthGrant): string => deps.secrets.encryptJson(grant);
const openGrant = (deps: Pick<Deps, 'secrets'>, ciphertext: string): OAuthGrant => deps.secrets.decryptJson<OAuthGrant>(ciphertext);

/** A message about a failure at the authorization server, without the grant's secrets (servers may echo them). */
export function oauthFailureMessage(error: unknown, secrets: readonly (string | undefined)[] = []): string {
  const refusal = outboundRefusalOf(error);
  let text = refusal
    ? refusal.message
    : isOAuthAnswer(error)
      ? `the authorization server answered ${error.errorCode}${error.message ? `: ${error.message}` : ''}`
      : (error as Error).message;
  for (const secret of secrets) if (secret && secret.length >= 4) text = text.split(secret).join('[redacted]');
  return text.slice(0, 500);
}

const refreshFailed = (row: Pick<Connection, 'id' | 'name'>, reason: string | null) =>
  new AppError(
    'failed_precondition',
    `the OAuth authorization of the connection "${row.name}" (${row.id}) could not be refreshed: ${reason ?? 'unknown reason'}; authorize it again`,
  );

const inFlight = new Map<string, Promise<OAuthGrant>>();

/**
 * The grant of a connection with OAuth, its access token valid for at least REFRESH_MARGIN_MS when
 * the server said when it expires. Throws `failed_precondition` for a failed refresh (recorded now or
 * before), `unavailable` when the authorization server could not be reached (nothing recorded: the
 * next use tries again).
 */
export async function usableGrant(deps: Deps, row: Connection): Promise<OAuthGrant> {
  if (!row.oauthCiphertext) throw new Error(`connection ${row.id} has no OAuth grant`);
  if (row.oauthStatus === 'refresh_failed') throw refreshFailed(row, row.oauthStatusReason);
  const grant = openGrant(deps, row.oauthCiphertext);
  if (grant.expiresAt === null || grant.expiresAt - Date.now() > REFRESH_MARGIN_MS) return grant;
  let refresh = inFlight.get(row.id);
  if (!refresh) {
    refresh = refreshUnderLock(deps, row).finally(() => inFlight.delete(row.id));
    inFlight.set(row.id, refresh);
  }
  return refresh;
}

async function refreshUnderLock(deps: Deps, row: Connection): Promise<OAuthGrant> {
  const outcome = await deps.db.$transaction(
    async (tx) => {
      const [locked] = await tx.$queryRaw<
        { oauth_ciphertext: string | null; oauth_status: string | null; oauth_status_reason: string | null }[]
      >`
        SELECT oauth_ciphertext, oauth_status, oauth_status_reason FROM connections WHERE id = ${row.id} FOR UPDATE`;
      if (!locked?.oauth_ciphertext)
        throw new AppError('failed_precondition', `the OAuth authorization of the connection "${row.name}" (${row.id}) was revoked`);
      if (locked.oauth_status === 'refresh_failed') return { failed: locked.oauth_status_reason };
      const current = openGrant(deps, locked.oauth_ciphertext);
      // Refreshed by another process while this one waited for the lock.
      if (
        locked.oauth_ciphertext !== row.oauthCiphertext &&
        (current.expiresAt === null || current.expiresAt - Date.now() > REFRESH_MARGIN_MS)
      )
        return { grant: current };
      let fresh: OAuthGrant;
      try {
        fresh = await refreshGrant(current, outboundFetch(deps));
      } catch (error) {
        const reason = oauthFailureMessage(error, [
          current.tokens.refresh_token,
          current.tokens.access_token,
          current.client.client_secret,
        ]);
        // Not reached (a network failure, the outbound policy): said so, nothing recorded, tried again on the next use.
        if (!isOAuthAnswer(error) && current.tokens.refresh_token)
          throw new AppError('unavailable', `the authorization server of the connection "${row.name}" could not be reached: ${reason}`);
        await tx.connection.update({ where: { id: row.id }, data: { oauthStatus: 'refresh_failed', oauthStatusReason: reason } });
        await recordServiceAudit(tx, {
          workspaceId: row.workspaceId,
          action: 'refresh_failed',
          resourceKind: 'connection',
          resourceId: row.id,
          version: row.version,
          changes: { oauth_status: { from: 'authorized', to: 'refresh_failed' }, oauth_status_reason: { from: null, to: reason } },
        });
        return { failed: reason };
      }
      await tx.connection.update({
        where: { id: row.id },
        data: { oauthCiphertext: sealGrant(deps, fresh), oauthExpiresAt: fresh.expiresAt === null ? null : new Date(fresh.expiresAt) },
      });
      // Not the caller's change (no version, no audit row), but every process's cached row is now stale.
      await announceIfConfiguration(tx, 'connection');
      return { grant: fresh };
    },
    { timeout: OAUTH_REQUEST_TIMEOUT_MS * 2 + 5_000, maxWait: OAUTH_REQUEST_TIMEOUT_MS * 2 },
  );
  // Reads that began during the transaction may have cached the old row under the new generation.
  bumpConfigGeneration();
  if ('failed' in outcome) throw refreshFailed(row, outcome.failed ?? null);
  return outcome.grant;
}
