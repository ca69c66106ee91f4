// Holding a table against every reader from a connection of the test's own, so that a statement of
// the service that reads it waits in PostgreSQL until the test lets it go: how tests hold a claim or a
// preparation at a known point without racing a delay.
import pg from 'pg';

/** Runs `work` while `table` is locked (ACCESS EXCLUSIVE); the lock is released however `work` ends. */
export async function withTableLocked<T>(
  databaseUrl: string,
  table: string,
  work: (lock: pg.Client, release: () => Promise<void>) => Promise<T>,
): Promise<T> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  let locked = true;
  const release = async () => {
    if (!locked) return;
    locked = false;
    await lock.query('COMMIT');
  };
  try {
    await lock.query('BEGIN');
    await lock.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return await work(lock, release);
  } finally {
    if (locked) await lock.query('ROLLBACK');
    await lock.end();
  }
}

/** Backends of the client's database waiting for a lock in a statement whose text matches `like`. */
export async function lockWaiters(client: pg.Client, like: string): Promise<number> {
  // Inside a transaction (the lock's) PostgreSQL keeps the first snapshot of pg_stat_activity it took.
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
    [like],
  );
  return rows[0].n;
}
