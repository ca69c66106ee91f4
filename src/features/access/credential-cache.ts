// Authenticated callers, remembered per credential for a short while: every request would
// otherwise read the API key (or login session and membership) again. Anything that can end or
// narrow a credential — revoking a key, logging out, changing a membership — clears the cache of
// this process at once and, through NOTIFY on CREDENTIALS_CHANNEL, of every other process on the
// database. The TTL only bounds how long a missed notification (a dropped listener) could matter.
import type { Prisma } from '../../db.js';
import type { Actor, Deps } from '../../services/deps.js';

export const CREDENTIALS_CHANNEL = 'wsa_credentials_changed';
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

export interface CachedCredential {
  actor: Actor;
  /** When the credential itself expires (null: never). */
  expiresAt: Date | null;
  /** The credential's last_used_at as last written, to keep writing it at most once a minute. */
  lastUsedAt: Date | null;
  cachedAt: number;
}

const caches = new WeakMap<object, Map<string, CachedCredential>>();

function cacheOf(deps: Deps): Map<string, CachedCredential> {
  let cache = caches.get(deps.db);
  if (!cache) caches.set(deps.db, (cache = new Map()));
  return cache;
}

/** `key` names the credential and what it was asked for (token hash and workspace header). */
export function cachedCredential(deps: Deps, key: string, now: Date): CachedCredential | null {
  const cache = cacheOf(deps);
  const entry = cache.get(key);
  if (!entry) return null;
  if (now.getTime() - entry.cachedAt > TTL_MS || (entry.expiresAt && entry.expiresAt <= now)) {
    cache.delete(key);
    return null;
  }
  return entry;
}

export function rememberCredential(deps: Deps, key: string, entry: Omit<CachedCredential, 'cachedAt'>) {
  const cache = cacheOf(deps);
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, { ...entry, cachedAt: Date.now() });
}

/** Forgets every remembered credential of this process's database. */
export function forgetCredentials(deps: Pick<Deps, 'db'>) {
  caches.get(deps.db)?.clear();
}

/** In the changing transaction: tells every process (this one too) once it commits. */
export async function announceCredentialChange(tx: Prisma.TransactionClient | Deps['db']) {
  await tx.$executeRaw`SELECT pg_notify(${CREDENTIALS_CHANNEL}, '')`;
}
