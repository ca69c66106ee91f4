// Migrations apply to an empty database of the run's PostgreSQL (embedded by default, the server
// in CI's second pass), are recorded the way `prisma migrate deploy` records them, and re-running
// them is a no-op.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../helpers/app.js';
import { MIGRATIONS_DIR, applyMigrations, readMigrations } from '../../src/storage/migrate.js';
import { createLogger } from '../../src/lib/logger.js';
import { canonicalize, sha256Hex } from '../../src/lib/canonical-json.js';

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
      const rows = (
        await client.query(
          'SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
        )
      ).rows;
      expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(expected.map((m) => [m.name, m.checksum]));
      for (const row of rows) expect(row.finished_at).not.toBeNull();
      const tables = (await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)).rows.map(
        (r) => r.table_name,
      );
      for (const table of [
        'organizations',
        'workspaces',
        'api_keys',
        'audit_events',
        'agents',
        'agent_revisions',
        'runs',
        'run_items',
        'memory_records',
        'devices',
      ]) {
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
      const results = await Promise.all([
        applyMigrations(database.url, logger),
        applyMigrations(database.url, logger),
        applyMigrations(database.url, logger),
      ]);
      const appliedTotal = results.reduce((sum, r) => sum + r.applied.length, 0);
      expect(appliedTotal).toBe(readMigrations().length);
    } finally {
      await database.drop();
    }
  });

  it('built-in records keep a SHA-256 of their created text, not the text itself (existing rows backfilled)', async () => {
    const DIGEST_MIGRATION = '20261123190000_memory_record_text_sha256';
    const database = await createTestDatabase({ empty: true });
    const before = mkdtempSync(join(tmpdir(), 'wsa-migrations-'));
    const client = new pg.Client({ connectionString: database.url });
    try {
      // The schema as it was before the backfill, with records written the old way.
      cpSync(MIGRATIONS_DIR, before, { recursive: true, filter: (path) => !path.includes(DIGEST_MIGRATION) });
      const logger = createLogger('silent');
      expect((await applyMigrations(database.url, logger, before)).applied).not.toContain(DIGEST_MIGRATION);
      await client.connect();
      // No provider or workspace rows: foreign keys are not what this test is about.
      await client.query(`SET session_replication_role = replica`);
      const created = 'first "text" \\ é 😀\nline';
      const stamp = { principal_id: 'key_1', principal_name: 'k' };
      const insert = `INSERT INTO memory_records (provider_id, namespace, id, workspace_id, text, embedding, provenance, seq, created_at, updated_at) VALUES ('prv_1', 'mem_1', $1, 'wsp_1', $2, '{}', $3, $4, now(), now())`;
      await client.query(insert, [
        'replaced',
        'a later text',
        { created: stamp, last_write: stamp, created_text_digest: canonicalize(created) },
        7,
      ]);
      await client.query(insert, ['foreign', 'written by SQL', {}, 8]);
      await client.query(`RESET session_replication_role`);
      expect((await applyMigrations(database.url, logger)).applied).toEqual([DIGEST_MIGRATION]);
      const rows = new Map((await client.query('SELECT id, provenance, seq FROM memory_records')).rows.map((row) => [row.id, row]));
      expect(rows.get('replaced')!.provenance).toEqual({ created: stamp, last_write: stamp, created_text_sha256: sha256Hex(created) });
      expect(rows.get('foreign')!.provenance).toEqual({});
      // Provenance is not indexed in process: the rewrite takes no change-counter value.
      expect(rows.get('replaced')!.seq).toBe('7');
      // The trigger is back on for later writes.
      const triggers = await client.query(`SELECT tgenabled FROM pg_trigger WHERE tgname = 'memory_records_stamp'`);
      expect(triggers.rows.map((row) => row.tgenabled)).toEqual(['O']);
    } finally {
      await client.end().catch(() => undefined);
      rmSync(before, { recursive: true, force: true });
      await database.drop();
    }
  });
});
