// Who a principal is, for views that show a name beside a principal id (memory record provenance).
import type { CallContext } from './call-context.js';
import { SYSTEM_PRINCIPAL } from './deps.js';

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
