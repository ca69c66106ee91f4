// Who is calling: API keys (bound to one workspace) and login sessions (a user acting in the
// workspace named by X-Workspace-ID, with the permissions of their membership role).
import { AppError, invalidArgument, unauthenticated } from '../../lib/errors.js';
import { hashPassword, hashToken, newToken, TOKEN_PREFIX, verifyPassword } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { checkId } from '../../lib/input-rules.js';
import { parseRateLimit, type RateLimitPolicy } from '../../lib/rate-limit-policy.js';
import { ROLES, type Actor, type Deps, type Permission, type Role } from '../../services/deps.js';
import type { CallContext } from '../../services/call-context.js';
import { announceCredentialChange, cachedCredential, forgetCredentials, rememberCredential } from './credential-cache.js';

const LAST_USED_RESOLUTION_MS = 60_000; // write last_used_at at most once a minute per credential

export function parseBearer(header: string | null | undefined): string {
  if (!header) throw unauthenticated('missing Authorization header; send "Authorization: Bearer <token>"');
  const match = /^Bearer[ \t]+([!-~]+)[ \t]*$/i.exec(header);
  if (!match) throw unauthenticated('the Authorization header must use the Bearer scheme');
  return match[1]!;
}

function forbiddenWorkspace(): AppError {
  return new AppError('forbidden', 'the credential cannot act in the workspace named by X-Workspace-ID');
}

export async function authenticate(
  deps: Deps,
  authorization: string | null | undefined,
  workspaceHeader: string | null | undefined,
): Promise<Actor> {
  const token = parseBearer(authorization);
  const requestedWorkspace = workspaceHeader?.trim() || null;
  // The header reaches PostgreSQL (membership lookup): the same input rules as any id.
  if (requestedWorkspace) checkId(requestedWorkspace, 'X-Workspace-ID');
  const now = new Date();
  const tokenHash = hashToken(token);
  const cacheKey = `${tokenHash}\n${requestedWorkspace ?? ''}`;
  const cached = cachedCredential(deps, cacheKey, now);
  if (cached) {
    if (!cached.lastUsedAt || now.getTime() - cached.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      cached.lastUsedAt = now;
      void touchLastUsed(deps, cached.actor, now).catch((error) =>
        deps.logger.warn({ err: error }, 'recording last use of a credential failed'),
      );
    }
    return cached.actor;
  }
  const { actor, expiresAt, lastUsedAt } = await loadCredential(deps, token, tokenHash, requestedWorkspace, now);
  if (!lastUsedAt || now.getTime() - lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) await touchLastUsed(deps, actor, now);
  rememberCredential(deps, cacheKey, { actor, expiresAt, lastUsedAt: now });
  return actor;
}

/** A key's stored `rate_limit` (written in its canonical form, checked when written). */
function storedRateLimit(stored: string | null): RateLimitPolicy | null {
  if (stored === null) return null;
  const policy = parseRateLimit(stored);
  return 'problem' in policy ? null : policy;
}

async function touchLastUsed(deps: Deps, actor: Actor, now: Date) {
  if (actor.loginSessionId) await deps.db.loginSession.update({ where: { id: actor.loginSessionId }, data: { lastUsedAt: now } });
  else await deps.db.apiKey.update({ where: { id: actor.principalId }, data: { lastUsedAt: now } });
}

async function loadCredential(
  deps: Deps,
  token: string,
  tokenHash: string,
  requestedWorkspace: string | null,
  now: Date,
): Promise<{ actor: Actor; expiresAt: Date | null; lastUsedAt: Date | null }> {
  if (token.startsWith(TOKEN_PREFIX.apiKey)) {
    const key = await deps.db.apiKey.findUnique({ where: { secretHash: tokenHash }, include: { workspace: true } });
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= now))
      throw unauthenticated('the API key is unknown, revoked or expired');
    if (requestedWorkspace && requestedWorkspace !== key.workspaceId) throw forbiddenWorkspace();
    return {
      actor: {
        principalId: key.id,
        principalKind: 'api_key',
        workspaceId: key.workspaceId,
        organizationId: key.workspace.organizationId,
        permissions: new Set(key.permissions as Permission[]),
        loginSessionId: null,
        rateLimit: storedRateLimit(key.rateLimit),
      },
      expiresAt: key.expiresAt,
      lastUsedAt: key.lastUsedAt,
    };
  }
  if (token.startsWith(TOKEN_PREFIX.loginSession)) {
    const session = await deps.db.loginSession.findUnique({ where: { tokenHash }, include: { user: true } });
    if (!session || session.revokedAt || session.expiresAt <= now || session.user.disabledAt) {
      throw unauthenticated('the login session is unknown, expired or logged out');
    }
    if (!requestedWorkspace) {
      throw invalidArgument('a login session must name its workspace in the X-Workspace-ID header', 'X-Workspace-ID');
    }
    const membership = await deps.db.membership.findUnique({
      where: { workspaceId_userId: { workspaceId: requestedWorkspace, userId: session.userId } },
      include: { workspace: true },
    });
    if (!membership) throw forbiddenWorkspace();
    return {
      actor: {
        principalId: session.userId,
        principalKind: 'user',
        workspaceId: membership.workspaceId,
        organizationId: membership.workspace.organizationId,
        permissions: new Set(ROLES[membership.role as Role] ?? []),
        loginSessionId: session.id,
      },
      expiresAt: session.expiresAt,
      lastUsedAt: session.lastUsedAt,
    };
  }
  throw unauthenticated('the bearer token is not a credential of this service');
}

export interface LoginResult {
  token: string;
  sessionId: string;
  expiresAt: Date;
  user: { id: string; email: string; name: string };
  workspaces: { id: string; name: string; role: string }[];
}

// Verifying against a fixed hash when the user is unknown keeps the timing of both failures alike.
let dummyHash: Promise<string> | null = null;

export async function login(call: CallContext<null>, email: string, password: string): Promise<LoginResult> {
  const { deps } = call;
  const normalized = email.trim().toLowerCase();
  const user = await deps.db.user.findUnique({ where: { email: normalized }, include: { memberships: { include: { workspace: true } } } });
  dummyHash ??= hashPassword('not-a-password');
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash));
  if (!user || !ok || user.disabledAt) throw unauthenticated('unknown email or wrong password');
  const token = newToken(TOKEN_PREFIX.loginSession);
  const expiresAt = new Date(Date.now() + deps.config.loginSessionTtlSeconds * 1000);
  const session = await deps.db.loginSession.create({
    data: { id: newId('loginSession'), userId: user.id, tokenHash: hashToken(token), expiresAt },
  });
  return {
    token,
    sessionId: session.id,
    expiresAt,
    user: { id: user.id, email: user.email, name: user.name },
    workspaces: user.memberships.map((m) => ({ id: m.workspaceId, name: m.workspace.name, role: m.role })),
  };
}

/** Ends the login session the caller authenticated with; its token stops working at once. */
export async function logout(call: CallContext<null>, authorization: string | null | undefined): Promise<void> {
  const { deps } = call;
  const token = parseBearer(authorization);
  if (!token.startsWith(TOKEN_PREFIX.loginSession)) {
    throw invalidArgument('logout ends login sessions; API keys are revoked by an operator', 'Authorization');
  }
  const result = await deps.db.$transaction(async (tx) => {
    const ended = await tx.loginSession.updateMany({
      where: { tokenHash: hashToken(token), revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (ended.count) await announceCredentialChange(tx);
    return ended;
  });
  forgetCredentials(deps);
  if (result.count === 0) throw unauthenticated('the login session is unknown or already logged out');
}
