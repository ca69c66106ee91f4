// Claims of periodic sweeps across instances: every process that runs workers keeps house, and a
// sweep that should run once per interval for the whole deployment (not once per process) claims
// its turn here first.
import { Prisma } from '../generated/prisma/client.js';
import type { Db } from '../db.js';

/**
 * Claims the sweep `sweep` for the interval that starts at `now`: the row `housekeeping.<sweep>` in
 * service_settings remembers when it last ran, and only the instance whose statement moves it on (it
 * ran `intervalMs` or more before `now`) gets true. One atomic statement and no lock held during the
 * sweep: an instance that dies mid-sweep leaves the rest to the next interval, which bounded,
 * idempotent sweeps make safe.
 */
export async function claimSweep(db: Db, sweep: string, now: number, intervalMs: number): Promise<boolean> {
  const claimed = await db.$queryRaw<unknown[]>(Prisma.sql`
    INSERT INTO service_settings (key, value, updated_at) VALUES (${`housekeeping.${sweep}`}, '{}'::jsonb, ${new Date(now)}::timestamptz)
    ON CONFLICT (key) DO UPDATE SET updated_at = EXCLUDED.updated_at
      WHERE service_settings.updated_at <= ${new Date(now - intervalMs)}::timestamptz
    RETURNING key`);
  return claimed.length > 0;
}
