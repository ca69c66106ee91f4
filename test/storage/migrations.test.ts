// Migrations apply to an empty database of the run's PostgreSQL (embedded by default, the server
// in CI's second pass), are recorded the way `prisma migrate deploy` records them, and re-running
// them is a no-op.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase } from '../helpers/app.js';
import { applyMigrations, readMigrations } from '../../src/storage/migrate.js';
import { createLogger } from '../../src/lib/logger.js';

describe('migrations', () => {
  it('apply in order to an empty database, recorded in _prisma_migrations with checksums, then no-op', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      const logger = createLogger('silent');
      const expected = readMigrations();
      expect(expected.length).toBeGreaterThan(0);
      const first = await applyMigrations(database.url, logger);
      expect(first.applied).toEqual(expected.map((m) => m.name));
      const again = await applyMigrations(database.url, logger);
      expect(again.applied).toEqual([]);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const rows = (await client.query('SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name')).rows;
      expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(expected.map((m) => [m.name, m.checksum]));
      for (const row of rows) expect(row.finished_at).not.toBeNull();
      const tables = (await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)).rows.map((r) => r.table_name);
      for (const table of ['organizations', 'workspaces', 'api_keys', 'audit_events', 'agents', 'agent_revisions', 'runs', 'run_items', 'memory_records', 'devices']) {
        expect(tables).toContain(table);
      }
      await client.end();
    } finally {
      await database.drop();
    }
  });

  it('serialise concurrent starts with an advisory lock (each migration applied once)', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      const logger = createLogger('silent');
      const results = await Promise.all([applyMigrations(database.url, logger), applyMigrations(database.url, logger), applyMigrations(database.url, logger)]);
      const appliedTotal = results.reduce((sum, r) => sum + r.applied.length, 0);
      expect(appliedTotal).toBe(readMigrations().length);
    } finally {
      await database.drop();
    }
  });
});
