// Who a principal is, for views that show a name beside a principal id (memory record provenance).
import type { CallContext } from '../../services/call-context.js';
import { SYSTEM_PRINCIPAL } from '../../services/deps.js';

/**
 * The principal's display name: an API key's name, a user's name (their email when they have no
 * name), `system` for the service itself; "" when the key has no name or the principal is gone.
 */
export async function principalName(call: CallContext, principalId: string): Promise<string> {
  const { db } = call;
  if (principalId === SYSTEM_PRINCIPAL) return SYSTEM_PRINCIPAL;
  if (principalId.startsWith('usr_')) {
    const user = await db.user.findUnique({ where: { id: principalId }, select: { name: true, email: true } });
    return user ? user.name || user.email : '';
  }
  const key = await db.apiKey.findUnique({ where: { id: principalId }, select: { name: true } });
  return key?.name ?? '';
}

/** A principal as the graph shows it: who a user or an API key is, never a secret or a hash. */
export type PrincipalView =
  | { kind: 'user'; id: string; name: string; email: string }
  | {
      kind: 'api_key';
      id: string;
      name: string;
      hint: string;
      permissions: string[];
      createdAt: Date;
      expiresAt: Date | null;
      revokedAt: Date | null;
      /** The key's own rate limit (`"600/60s"`, `"0"`); null: the service's default. */
      rateLimit: string | null;
    };

/**
 * The principals with these ids that belong to the caller's workspace, in any order: API keys of the
 * workspace and users who are members of it; at most one statement per kind. Anything else — the
 * service itself (`system`), a key of another workspace, a user who is not (or no longer) a member —
 * is left out, so it reads as "unknown" and never tells another workspace's principals apart.
 */
export async function loadPrincipals(call: CallContext, ids: readonly string[]): Promise<PrincipalView[]> {
  const workspaceId = call.actor.workspaceId;
  const userIds = ids.filter((id) => id.startsWith('usr_'));
  const keyIds = ids.filter((id) => id.startsWith('key_'));
  const [users, keys] = await Promise.all([
    userIds.length === 0
      ? []
      : call.db.user.findMany({
          where: { id: { in: userIds }, memberships: { some: { workspaceId } } },
          select: { id: true, name: true, email: true },
        }),
    keyIds.length === 0
      ? []
      : call.db.apiKey.findMany({
          where: { id: { in: keyIds }, workspaceId },
          select: {
            id: true,
            name: true,
            hint: true,
            permissions: true,
            createdAt: true,
            expiresAt: true,
            revokedAt: true,
            rateLimit: true,
          },
        }),
  ]);
  return [...users.map((user) => ({ kind: 'user' as const, ...user })), ...keys.map((key) => ({ kind: 'api_key' as const, ...key }))];
}
