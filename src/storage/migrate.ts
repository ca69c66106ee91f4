// Applies pending SQL migrations from prisma/migrations at start-up, the way `prisma migrate deploy`
// does: each in its own transaction, in name order, recorded in Prisma's `_prisma_migrations`
// table with Prisma's columns and checksum, so `prisma migrate status/deploy` agree with us.
// An advisory lock serialises concurrent starts (several instances against one server).
import pg from 'pg';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../lib/logger.js';
import { fromRepositoryRoot } from '../lib/repository-root.js';

export const MIGRATIONS_DIR = fromRepositoryRoot('prisma', 'migrations');
const LOCK_ID = 72707369; // arbitrary, constant for this service

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationResult {
  applied: string[];
  total: number;
}

export async function applyMigrations(databaseUrl: string, logger: Logger, dir = MIGRATIONS_DIR): Promise<MigrationResult> {
  const migrations = readMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(CREATE_TABLE);
    const done = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const doneByName = new Map(done.rows.map((row) => [row.migration_name, row.checksum]));
    const failed = await client.query<{ migration_name: string }>(
      `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NULL AND rolled_back_at IS NULL`,
    );
    if (failed.rowCount) {
      throw new Error(
        `migration ${failed.rows[0]!.migration_name} failed earlier; resolve it before starting (see docs/development.md, "Migrations without the Prisma engine download")`,
      );
    }
    for (const migration of migrations) {
      const checksum = doneByName.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum)
          logger.warn({ migration: migration.name }, 'an applied migration was modified after it was applied');
        continue;
      }
      logger.info({ migration: migration.name }, 'applying migration');
      const id = randomUUID();
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count, started_at)
           VALUES ($1, $2, now(), $3, 1, now())`,
          [id, migration.checksum, migration.name],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(migration.name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]).catch(() => undefined);
    await client.end();
  }
  return { applied, total: migrations.length };
}

/** True when every migration under `dir` is recorded as applied (used by /readyz). */
export async function pendingMigrationCount(
  query: (sql: string) => Promise<{ migration_name: string }[]>,
  dir = MIGRATIONS_DIR,
): Promise<number> {
  const names = new Set(
    (await query(`SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`)).map(
      (row) => row.migration_name,
    ),
  );
  return readMigrations(dir).filter((migration) => !names.has(migration.name)).length;
}
