// `npm run db -- migrate | psql | dump FILE | restore FILE` as processes: a dump of the embedded database
// (taken while it is running, by attaching to it) restores into a fresh data directory, where the
// service's CLI finds every row and no pending migration; the same through DATABASE_URL. `migrate`
// brings an empty database to the current schema, and a current one stays as it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runCli, runDbTool } from '../helpers/process.js';
import { createTestDatabase } from '../helpers/app.js';
import { startEmbeddedPostgres } from '../../src/storage/embedded.js';
import { createLogger } from '../../src/lib/logger.js';
import { chooseClient, findCandidates } from '../../src/storage/pg-clients.js';
import { readMigrations } from '../../src/storage/migrate.js';

// The client tools come from the machine (Debian/Ubuntu: postgresql-client); the embedded server is 15.
const clientsInstalled = (['psql', 'pg_dump', 'pg_restore'] as const).every((program) => {
  try {
    chooseClient(program, findCandidates(program), 15);
    return true;
  } catch {
    return false;
  }
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsa-db-tool-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe.skipIf(!clientsInstalled)('npm run db (needs PostgreSQL client tools ≥ 15)', () => {
  it('dumps the running embedded database and restores it into a fresh data directory', { tags: ['slow'] }, async () => {
    const source = join(dir, 'source');
    const target = join(dir, 'target');
    const dump = join(dir, 'backup.dump');
    const embedded = { DATABASE_URL: '' };
    const running = await startEmbeddedPostgres(source, createLogger('silent'));
    let workspaceId: string;
    try {
      const created = await runCli(['workspaces', 'create', '--name', 'Kept by the dump', '--json'], { ...embedded, DATA_DIR: source });
      expect(created.code).toBe(0);
      workspaceId = JSON.parse(created.stdout).workspace_id;
      const dumped = await runDbTool(['dump', dump], { ...embedded, DATA_DIR: source });
      expect(dumped.stderr).toBe('');
      expect(dumped.code).toBe(0);
    } finally {
      await running.stop();
    }
    expect(statSync(dump).mode & 0o777).toBe(0o600); // every row is in it

    const restored = await runDbTool(['restore', dump], { ...embedded, DATA_DIR: target });
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    const query = await runDbTool(['psql', '-At', '-c', `SELECT name FROM workspaces WHERE id = '${workspaceId}'`], {
      ...embedded,
      DATA_DIR: target,
    });
    expect(query.code).toBe(0);
    expect(query.stdout.trim()).toBe('Kept by the dump');
    // The restored database is the service's own: the CLI opens it (no migration left to apply) and writes to it.
    const key = await runCli(['api-keys', 'create', '--workspace', workspaceId, '--permissions', 'read', '--json'], {
      ...embedded,
      DATA_DIR: target,
      LOG_LEVEL: 'info',
    });
    expect(key.code).toBe(0);
    expect(key.stderr).not.toContain('applying migration');

    const again = await runDbTool(['restore', dump], { ...embedded, DATA_DIR: target });
    expect(again.code).toBe(1);
    expect(oneLine(again.stderr)).toMatch(/^error: database workspace already has \d+ tables; restore into an empty database/);
  });

  it('works on the server named by DATABASE_URL, plain SQL restores too', async () => {
    const source = await createTestDatabase();
    const target = await createTestDatabase({ empty: true });
    try {
      const sql = join(dir, 'plain.sql');
      writeFileSync(sql, `CREATE TABLE notes (body text);\nINSERT INTO notes VALUES ('from plain SQL');\n`);
      const restored = await runDbTool(['restore', sql], { DATABASE_URL: target.url });
      expect(restored.code).toBe(0);
      const read = await runDbTool(['psql', '-At', '-c', 'SELECT body FROM notes'], { DATABASE_URL: target.url });
      expect(read.stdout.trim()).toBe('from plain SQL');
      const dumped = await runDbTool(['dump', '-'], { DATABASE_URL: source.url });
      expect(dumped.code).toBe(0);
      expect(dumped.stdout.startsWith('PGDMP')).toBe(true);
    } finally {
      await source.drop();
      await target.drop();
    }
  });
});

describe('npm run db -- migrate', () => {
  it('applies every pending migration to an empty database, then finds nothing to apply', async () => {
    const target = await createTestDatabase({ empty: true });
    try {
      const names = readMigrations().map((migration) => migration.name);
      const first = await runDbTool(['migrate'], { DATABASE_URL: target.url });
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout.trim().split('\n')).toEqual([
        ...names.map((name) => `applied ${name}`),
        `${names.length} of ${names.length} migrations applied now; the schema is current`,
      ]);
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      const recorded = await client
        .query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY 1')
        .finally(() => client.end());
      expect(recorded.rows.map((row) => row.migration_name)).toEqual(names);
      const again = await runDbTool(['migrate'], { DATABASE_URL: target.url });
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(`0 of ${names.length} migrations applied now; the schema is current\n`);
    } finally {
      await target.drop();
    }
  });
});

describe('npm run db failures', () => {
  it('says in one line what is wrong', async () => {
    const unknown = await runDbTool(['backup'], { DATABASE_URL: '', DATA_DIR: join(dir, 'unused') });
    expect(unknown.code).toBe(1);
    expect(oneLine(unknown.stderr)).toBe('error: unknown command "backup"; use migrate, psql, dump FILE or restore FILE');
    expect(existsSync(join(dir, 'unused'))).toBe(false); // nothing started for a bad command
    const missing = await runDbTool(['dump'], { DATABASE_URL: '' });
    expect(oneLine(missing.stderr)).toBe('error: dump takes one FILE argument');
    const extra = await runDbTool(['migrate', 'now'], { DATABASE_URL: '' });
    expect(oneLine(extra.stderr)).toBe('error: migrate takes no argument');
  });
});
