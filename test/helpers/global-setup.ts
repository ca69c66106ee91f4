// One PostgreSQL for the whole run: the embedded one (default) or the server named by
// TEST_DATABASE_URL (CI's second pass). Migrations are applied once to a template database;
// each test app gets its own database cloned from it (CREATE DATABASE … TEMPLATE), which is fast
// and keeps tests independent.
import type { TestProject } from 'vitest/node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { EmbeddedPostgresError, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/storage/embedded.js';
import { applyMigrations } from '../../src/storage/migrate.js';
import { createLogger } from '../../src/lib/logger.js';
// @ts-expect-error a plain ES module script without types
import { buildConsole } from '../../scripts/build-console.mjs';
// @ts-expect-error a plain ES module script without types
import { buildService } from '../../scripts/build.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { adminUrl: string; template: string; mode: 'embedded' | 'server'; prefix: string };
  }
}

export const TEMPLATE = `wsa_template_${process.pid}`;

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export default async function setup(project: TestProject) {
  const logger = createLogger('warn');
  // The console tests load the page the service serves: build it first if its sources changed.
  await buildConsole({ quiet: true });
  // Tests that run the compiled service (dist/) would otherwise each build it, at once, on a fresh clone.
  await buildService({ quiet: true });
  let embedded: EmbeddedDatabase | null = null;
  let dir: string | null = null;
  let adminUrl = process.env.TEST_DATABASE_URL ?? '';
  if (!adminUrl) {
    try {
      dir = mkdtempSync(join(tmpdir(), 'wsa-test-pg-'));
      // Every test file's apps share this server: room for their pools.
      embedded = await startEmbeddedPostgres(dir, logger, { fastUnsafe: true, settings: { max_connections: '200' } });
    } catch (error) {
      if (!(error instanceof EmbeddedPostgresError) && !(error as NodeJS.ErrnoException).code) throw error;
      // Something the operator must fix (see docs/operations.md, "Running as root"): one line, no stack trace.
      if (dir) rmSync(dir, { recursive: true, force: true });
      process.stderr.write(`error: the test database could not be started: ${(error as Error).message}\n`);
      process.exit(1);
    }
    adminUrl = withDatabase(embedded.url, 'postgres');
  }
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${TEMPLATE}`);
  await client.query(`CREATE DATABASE ${TEMPLATE}`);
  await client.end();
  await applyMigrations(withDatabase(adminUrl, TEMPLATE), logger);
  project.provide('postgres', { adminUrl, template: TEMPLATE, mode: embedded ? 'embedded' : 'server', prefix: `wsa_t_${process.pid}_` });

  return async () => {
    if (!embedded) {
      // Drop what this run created on the shared server.
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      const { rows } = await cleanup.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`, [
        `wsa_t_${process.pid}_%`,
        TEMPLATE,
      ]);
      for (const row of rows) await cleanup.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
      await cleanup.end();
    } else {
      await embedded.stop();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}
