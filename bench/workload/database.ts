// What the service wrote to its database, read over a direct SQL connection to it (the database, not the
// service): rows inserted, updated and deleted in its tables (pg_stat_user_tables), the database's size,
// and the WAL position. PostgreSQL publishes table statistics some time after a transaction (up to 10 s
// for an idle connection), so a reading waits for them to settle first.
import pg from 'pg';

export interface DbCounters {
  rows: number;
  bytes: number;
  walLsn: string;
}

/** The byte distance between two WAL positions ("16/B374D848"). */
export function walBytes(from: string, to: string): number {
  const value = (lsn: string) => {
    const [high, low] = lsn.split('/');
    return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
  };
  return Number(value(to) - value(from));
}

export class DatabaseCounters {
  private constructor(private readonly client: pg.Client) {}

  static async open(databaseUrl: string): Promise<DatabaseCounters> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return new DatabaseCounters(client);
  }

  async read(settleMs: number): Promise<DbCounters> {
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    await this.client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await this.client.query(
      `SELECT (SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables)::bigint AS rows,
              pg_database_size(current_database())::bigint AS bytes,
              pg_current_wal_lsn()::text AS lsn`,
    );
    return { rows: Number(rows[0].rows), bytes: Number(rows[0].bytes), walLsn: rows[0].lsn };
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
