// The shared request counters behind the rate limits: one round trip per counted request, to Redis
// when the service has REDIS_URL, to PostgreSQL otherwise, so every instance counts into the same
// windows. Both stores take the time from their own clock (Redis TIME, PostgreSQL now()), never the
// instance's: instances whose clocks disagree still agree on where a window ends.
import { Redis } from 'ioredis';
import type { Db } from '../../db.js';
import { windowPhaseMs, type RateLimitPolicy, type WindowCount } from '../../lib/rate-limit-policy.js';

export interface RequestCounters {
  readonly kind: 'redis' | 'postgres';
  /** Counts one request of `subject` in its current window of `policy`; answers the window's count so far. */
  count(subject: string, policy: RateLimitPolicy): Promise<WindowCount>;
  close(): Promise<void>;
}

/**
 * One statement: the window is computed from the database's clock and the subject's phase, and the
 * counter row is inserted or incremented (the primary key serialises concurrent requests of one
 * subject, so no count is lost). The table is UNLOGGED (see the migration): no WAL per request.
 */
export function postgresCounters(db: Db): RequestCounters {
  return {
    kind: 'postgres',
    async count(subject, policy) {
      const windowMs = policy.windowSeconds * 1000;
      const phaseMs = windowPhaseMs(subject, windowMs);
      const rows = await db.$queryRaw<{ count: number; reset_ms: number }[]>`
        WITH w AS (
          SELECT now() AS at,
                 to_timestamp(((floor((extract(epoch FROM now()) * 1000 - ${phaseMs}::float8) / ${windowMs}::float8) + 1)
                   * ${windowMs}::float8 + ${phaseMs}::float8) / 1000.0) AS window_end
        )
        INSERT INTO rate_limit_counters AS c (subject, window_end, count)
        SELECT ${subject}, w.window_end, 1 FROM w
        ON CONFLICT (subject, window_end) DO UPDATE SET count = c.count + 1
        RETURNING c.count, ((extract(epoch FROM c.window_end) - extract(epoch FROM now())) * 1000)::float8 AS reset_ms`;
      const row = rows[0]!;
      return { count: Number(row.count), resetMs: Number(row.reset_ms) };
    },
    async close() {},
  };
}

/** Windows that ended are of no use: deletes up to `limit` of them (housekeeping). */
export async function deleteEndedWindows(db: Db, limit: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM rate_limit_counters
    WHERE (subject, window_end) IN (SELECT subject, window_end FROM rate_limit_counters WHERE window_end < now() LIMIT ${limit})`;
}

/**
 * INCR of the window's key and, on its first request, its expiry (a little after the window ends, so
 * Redis drops it by itself), in one script: one round trip, atomic. The window comes from Redis TIME.
 * The key is built inside the script from the prefix it is given, so this assumes one Redis (not a
 * cluster, where a script must name every key it touches).
 */
const COUNT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local windowMs = tonumber(ARGV[1])
local phaseMs = tonumber(ARGV[2])
local index = math.floor((now - phaseMs) / windowMs)
local key = KEYS[1] .. ':' .. index
local count = redis.call('INCR', key)
if count == 1 then redis.call('PEXPIRE', key, windowMs + 1000) end
return {count, (index + 1) * windowMs + phaseMs - now}
`;

type CountingRedis = Redis & { wsaCountRequest(prefix: string, windowMs: number, phaseMs: number): Promise<[number, number]> };

/**
 * Counters in Redis, on a connection of their own: it queues nothing while Redis is away (a command
 * fails at once, and the limiter lets the request through, see rate-limit.ts), unlike the event
 * bus's connections, which hold their commands until Redis is back.
 */
export function redisCounters(redisUrl: string): RequestCounters & { connect(): Promise<void> } {
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectionName: 'wsa-ratelimit',
  }) as CountingRedis;
  client.defineCommand('wsaCountRequest', { numberOfKeys: 1, lua: COUNT_SCRIPT });
  // Connection errors are reported through the commands that fail (rate-limit.ts logs them).
  client.on('error', () => {});
  return {
    kind: 'redis',
    async connect() {
      await client.connect();
    },
    async count(subject, policy) {
      const windowMs = policy.windowSeconds * 1000;
      const [count, resetMs] = await client.wsaCountRequest(
        `wsa:ratelimit:${subject}:${windowMs}`,
        windowMs,
        windowPhaseMs(subject, windowMs),
      );
      return { count: Number(count), resetMs: Number(resetMs) };
    },
    async close() {
      client.disconnect();
    },
  };
}
