// The one Prisma client: on an embedded PostgreSQL (default) or a PostgreSQL server (DATABASE_URL),
// through the same driver adapter, schema and migrations.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient, type Prisma } from './generated/prisma/client.js';
import type { Config } from './config.js';
import type { Logger } from './lib/logger.js';
import { PoolWaits } from './lib/metrics.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './storage/embedded.js';
import { applyMigrations, pendingMigrationCount } from './storage/migrate.js';
import { preparedStatementNames } from './storage/prepared-statements.js';
import { directStatements, type DirectStatements } from './storage/direct-statements.js';

/** How long a transaction may wait for a pool connection before it fails (503 `unavailable`). */
export const TRANSACTION_MAX_WAIT_MS = 30_000;

export type Db = PrismaClient;
export type { Prisma } from './generated/prisma/client.js';

export interface Database {
  prisma: PrismaClient;
  mode: 'embedded' | 'server';
  url: string;
  /** Prisma operations run so far (tests use it to prove lists make no per-row queries). */
  operationCount(): number;
  /** The pool's connection waits and sizes (the operator metrics read them). */
  poolWaits: PoolWaits;
  /** Migrations applied by this start (empty when the schema was current). */
  appliedMigrations: string[];
  ready(): Promise<{ ok: boolean; pendingMigrations: number; error?: string }>;
  close(): Promise<void>;
}

/**
 * The node-postgres pool under each client: for the one bulk read where Prisma's handling of raw rows
 * dominates (a memory's vectors: ~8× the CPU of node-postgres per row), nothing else.
 */
const driverPools = new WeakMap<Db, pg.Pool>();
export const driverPoolOf = (db: Db): pg.Pool | null => driverPools.get(db) ?? null;

const directRunners = new WeakMap<object, DirectStatements>();

/**
 * A raw statement of the run path (the create, claim and seal of a run, the reads of a run and of
 * its items), returning rows shaped as `db.$queryRaw` returns them: on the client itself sent to
 * node-postgres directly (storage/direct-statements.ts: Prisma's query layer cost ~4× the CPU of the
 * statement's own round trip), inside a transaction (or on a client not opened here) through
 * `$queryRaw`, on the transaction's connection.
 */
export function queryDirect<Row>(db: Db | Prisma.TransactionClient, statement: Prisma.Sql): Promise<Row[]> {
  const direct = directRunners.get(db);
  return direct ? direct.query<Row>(statement) : db.$queryRaw<Row[]>(statement);
}

export async function openDatabase(config: Config, logger: Logger, options: { adoptRunningEmbedded?: boolean } = {}): Promise<Database> {
  let embedded: EmbeddedDatabase | null = null;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres(config.dataDir, logger, {
      fastUnsafe: config.embeddedFastUnsafe,
      settings: config.embeddedPgSettings,
      socket: config.embeddedSocket,
      batchScheduling: config.embeddedBatchScheduling,
      adopt: options.adoptRunningEmbedded ?? true,
    });
    url = embedded.url;
  }
  try {
    const { applied } = await applyMigrations(url, logger);
    // Statements that repeat are prepared once per connection (storage/prepared-statements.ts),
    // unless turned off (a transaction-mode pooler that does not keep prepared statements).
    // A connection the server drops (a restart, a failover) fails the query that used it, answered
    // 503 (lib/unavailable.ts), and the pool opens a new one for the next. An idle connection that
    // drops is reported here: logged once per outage, never thrown (pg's pool would otherwise emit an
    // `error` nobody handles).
    const reportLost = onceUntilQuiet((err: Error) => logger.warn({ err }, 'a database connection was lost; the pool reconnects'));
    // Once closing, a connection's end is ours: pg's pool resolves `end()` when it has asked its idle
    // connections to close, not when they have, so the embedded PostgreSQL's stop can still reach one
    // (57P01) and that is no lost connection to report.
    let closing = false;
    const connectionLost = (err: Error) => {
      if (!closing) reportLost(err);
    };
    // The pool is ours (not the adapter's own) so that the metrics can time how long queries wait for a
    // connection; the adapter still ends it on disconnect.
    const pool = new pg.Pool({ connectionString: url, max: config.databasePoolSize });
    const poolWaits = new PoolWaits(pool);
    const adapter = new PrismaPg(pool, {
      disposeExternalPool: true,
      onPoolError: connectionLost,
      onConnectionError: connectionLost,
      ...(config.databasePreparedStatements ? { statementNameGenerator: preparedStatementNames() } : {}),
    });
    // A transaction waits for a pool connection as long as a plain query does (queries wait without
    // bound): Prisma's default of 2 s failed runs outright when 100 live runs kept the pool busy
    // (bench:workload), where waiting a little longer was all they needed.
    const base = new PrismaClient({ adapter, transactionOptions: { maxWait: TRANSACTION_MAX_WAIT_MS } });
    await base.$connect();
    let operations = 0;
    // Counting through an extension keeps the client's behaviour; the cast keeps one client type
    // for services (an extended client has a structurally different, but compatible, type).
    const prisma = base.$extends({
      query: {
        async $allOperations({ args, query }) {
          operations++;
          return query(args);
        },
      },
    }) as unknown as PrismaClient;
    driverPools.set(prisma, pool);
    directRunners.set(prisma, directStatements(pool, { prepared: config.databasePreparedStatements, count: () => operations++ }));
    return {
      prisma,
      mode: embedded ? 'embedded' : 'server',
      url,
      appliedMigrations: applied,
      poolWaits,
      operationCount: () => operations,
      async ready() {
        try {
          const pending = await pendingMigrationCount((sql) => prisma.$queryRawUnsafe(sql));
          return { ok: pending === 0, pendingMigrations: pending };
        } catch (error) {
          return { ok: false, pendingMigrations: -1, error: (error as Error).message };
        }
      },
      async close() {
        closing = true;
        await base.$disconnect();
        if (embedded) await embedded.stop();
      },
    };
  } catch (error) {
    if (embedded) await embedded.stop();
    throw error;
  }
}

/** Calls `report` for the first of a burst of failures, then again only after a quiet minute. */
function onceUntilQuiet(report: (error: Error) => void): (error: Error) => void {
  let last = 0;
  return (error) => {
    const now = Date.now();
    if (now - last > 60_000) report(error);
    last = now;
  };
}
