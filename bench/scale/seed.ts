// npm run seed:scale: fills a database of a PostgreSQL server with months of data in minutes.
//   1. The service starts on the database as users start it (it applies its migrations and bootstraps the
//      workspace), and writes a small set of template rows through its REST API (templates.ts).
//   2. Set-based INSERT … SELECT generate_series(…) statements multiply them (seed-sql.ts): at scale 1,
//      1M runs over 100k threads, 10M run items, 1M audit rows, 100k traces, 1M memory records over 100
//      memories, 100k webhook deliveries. Then VACUUM ANALYZE, as autovacuum would have by then.
//
// Usage: npm run seed:scale -- [--scale 0.01] [--database-url postgresql://…/db] [--replace]
// Without --database-url it creates `wsa_scale_<scale>` (SCALE_DATABASE_PREFIX instead of wsa_scale) on SCALE_ADMIN_URL (default
// postgresql://postgres@127.0.0.1:5432/postgres). --replace drops an existing database of that name first.
// The service's bootstrap key of a seeded database is SCALE_API_KEY (below): it is a bench database.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Rest } from '../blackbox/clients.js';
import { startService } from '../blackbox/service.js';
import { amountsAt, SEED_DAYS, type Amounts } from './amounts.js';
import { readTemplates, seedSteps, wordsFunctions } from './seed-sql.js';
import { writeTemplates, type Templates } from './templates.js';
import { helperStatements } from './ulid-sql.js';

/** The seeded workspace's API key and the service's secret key: fixed, so the bench can start the service on it later. */
export const SCALE_API_KEY = 'wsk_scalebench_seeded_database_key';
export const SCALE_SECRET_KEY = 'scale bench secret key: a throwaway bench database';
/** The service settings of a seeded database: nothing delivered or deleted behind the bench's back. */
export const SCALE_SERVICE_ENV = {
  SECRET_KEY: SCALE_SECRET_KEY,
  BOOTSTRAP_API_KEY: SCALE_API_KEY,
  WEBHOOK_DELIVERY_CONCURRENCY: '0',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  TRACE_RETENTION_DAYS: '36500',
  WEBHOOK_RETENTION_DAYS: '36500',
};

// SCALE_DATABASE_PREFIX names the databases otherwise (two benches on one server keep apart).
export const databaseName = (scale: number) => `${process.env.SCALE_DATABASE_PREFIX ?? 'wsa_scale'}_${String(scale).replace(/\W/g, '_')}`;

const adminUrl = () => process.env.SCALE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export function databaseUrlOf(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates database `name` on the admin URL's server; false when it exists and `replace` is not set. */
export async function createDatabase(name: string, replace: boolean): Promise<boolean> {
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount! > 0;
    if (exists && !replace) return false;
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    return true;
  } finally {
    await admin.end();
  }
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => admin.end());
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

/** Seeds an empty database at `databaseUrl` with the amounts of `scale`. */
export async function seed(databaseUrl: string, scale: number, log: (line: string) => void = console.log): Promise<Amounts> {
  const amounts = amountsAt(scale);
  const started = performance.now();
  const service = await startService({ databaseUrl, env: SCALE_SERVICE_ENV });
  let templates;
  try {
    templates = await writeTemplates(new Rest(service.url, SCALE_API_KEY), amounts.agents, amounts.memories);
  } finally {
    await service.stop();
  }
  log(`templates written by the service (${seconds(started)} s)`);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await fill(client, amounts, templates, log);
  } finally {
    await client.end();
  }
  log(`seeded in ${seconds(started)} s`);
  return amounts;
}

/**
 * Multiplies the template rows the service wrote into `amounts`, on `client`'s database, then runs
 * VACUUM ANALYZE (as autovacuum would have by the time a workspace holds that much).
 */
export async function fill(
  client: pg.Client,
  amounts: Amounts,
  templates: Templates,
  log: (line: string) => void = () => undefined,
): Promise<void> {
  // A bench database: a crash mid-seed means seeding again, so commits need not wait for the disk.
  await client.query('SET synchronous_commit = off');
  await client.query("SET maintenance_work_mem = '256MB'");
  await client.query("SET work_mem = '64MB'");
  const end = new Date((await client.query('SELECT min(created_at) AS at FROM runs')).rows[0].at);
  for (const sql of [...helperStatements(amounts.runs, SEED_DAYS, new Date(end.getTime() - 60_000)), ...wordsFunctions()])
    await client.query(sql);
  const rows = await readTemplates(client, templates.agentIds, templates.memoryIds);
  // A bulk load: no per-row triggers (the memory steps write what they would), and the GIN indexes
  // of memory records built once after the load instead of row by row.
  await client.query('SET session_replication_role = replica');
  const gin = (
    await client.query("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memory_records' AND indexdef LIKE '%USING gin%'")
  ).rows;
  try {
    for (const index of gin) await client.query(`DROP INDEX ${index.indexname}`);
    for (const step of seedSteps(amounts, rows)) {
      const t0 = performance.now();
      const result = await client.query(step.sql, step.params);
      log(`${step.name}: ${result.rowCount ?? 0} rows (${seconds(t0)} s)`);
    }
  } finally {
    const t1 = performance.now();
    for (const index of gin) await client.query(index.indexdef.replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS'));
    await client.query('SET session_replication_role = DEFAULT');
    log(`memory record GIN indexes rebuilt (${seconds(t1)} s)`);
  }
  // The runs were written directly: the dashboards' hourly roll-ups are built from them, as the
  // migration's backfill does.
  const t2 = performance.now();
  await client.query('SELECT wsa_rebuild_run_rollups(NULL)');
  log(`run roll-ups rebuilt (${seconds(t2)} s)`);
  const t0 = performance.now();
  await client.query('VACUUM ANALYZE');
  log(`vacuum analyze (${seconds(t0)} s)`);
}

async function main() {
  const { values } = parseArgs({
    options: { scale: { type: 'string', default: '1' }, 'database-url': { type: 'string' }, replace: { type: 'boolean', default: false } },
  });
  const scale = Number(values.scale);
  if (!(scale > 0 && scale <= 10)) throw new Error('--scale must be a number in (0, 10]');
  let databaseUrl = values['database-url'];
  if (!databaseUrl) {
    const name = databaseName(scale);
    if (!(await createDatabase(name, values.replace!))) throw new Error(`database ${name} exists: pass --replace to seed it again`);
    databaseUrl = databaseUrlOf(name);
  }
  console.log(`seeding ${databaseUrl} at scale ${scale}: ${JSON.stringify(amountsAt(scale))}`);
  await seed(databaseUrl, scale);
  console.log(`API key of the seeded workspace: ${SCALE_API_KEY}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
