// Database tools: `npm run db -- migrate | psql [ARGS…] | dump FILE | restore FILE`.
// They work on the service's database: the server named by DATABASE_URL, else the embedded
// PostgreSQL of DATA_DIR (attached to when the service is running, started for the command and
// stopped afterwards when not). The client programs come from the machine (see pg-clients.ts);
// connection details reach them through the environment (PGHOST, PGPASSWORD, …), never the
// command line, where other users could read them.
// First: traces of the compiled build name the .ts files (lib/source-mapped-stacks.ts).
import './lib/source-mapped-stacks.js';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import pg from 'pg';
import { loadConfig } from './config.js';
import { createLogger } from './lib/logger.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './storage/embedded.js';
import { applyMigrations } from './storage/migrate.js';
import { chooseClient, findCandidates, type ClientProgram } from './storage/pg-clients.js';
import { connectionEnvironment } from './storage/pg-environment.js';

const USAGE = `usage: npm run db -- <command>

  migrate              applies the pending migrations and exits (what an upgrade runs before the new code)
  psql [PSQL_ARGS…]    an interactive psql session (or psql with the given arguments, e.g. -c 'select 1')
  dump FILE            writes the whole database to FILE (pg_dump custom format; - for stdout)
  restore FILE         loads a dump (custom format or plain SQL) into an empty database, in one transaction

The database is DATABASE_URL's, else the embedded PostgreSQL of DATA_DIR (default ./.data).
`;

/** A failure the operator must act on: printed as one line. */
class UsageError extends Error {}

async function serverFacts(url: string): Promise<{ major: number; tables: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const version = await client.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`);
    const tables = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
    );
    return { major: Math.floor(Number(version.rows[0]!.v) / 10_000), tables: Number(tables.rows[0]!.n) };
  } finally {
    await client.end();
  }
}

/** Runs a client program with the connection in its environment; resolves to its exit code. */
function runClient(path: string, args: string[], connection: Record<string, string>): Promise<number> {
  // Ctrl-C belongs to the client (psql cancels the query); this process waits for it to finish.
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('PG')) delete env[name]; // no stray PGSERVICE, PGPASSFILE…
  const child = spawn(path, args, { stdio: 'inherit', env: { ...env, ...connection } });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', ignore);
      resolve(code ?? (signal ? 128 + 2 : 1));
    });
  });
}

/** Whether FILE is a pg_dump archive (custom format starts with "PGDMP"), else plain SQL. */
function isArchive(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(5);
    readSync(fd, head, 0, 5, 0);
    return head.toString('latin1') === 'PGDMP';
  } finally {
    closeSync(fd);
  }
}

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  const program: Record<string, ClientProgram> = { psql: 'psql', dump: 'pg_dump', restore: 'pg_restore' };
  if (command !== 'migrate' && !program[command])
    throw new UsageError(`unknown command ${JSON.stringify(command)}; use migrate, psql, dump FILE or restore FILE`);
  if (command === 'migrate' && rest.length > 0) throw new UsageError('migrate takes no argument');
  if (command !== 'psql' && command !== 'migrate' && rest.length !== 1) throw new UsageError(`${command} takes one FILE argument`);
  const file = rest[0]!;

  const config = loadConfig();
  // Logs (the embedded server's start) go to stderr: stdout may be a dump (FILE -).
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  let embedded: EmbeddedDatabase | null = null;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres(config.dataDir, logger, {
      adopt: false,
      settings: config.embeddedPgSettings,
      socket: config.embeddedSocket,
      batchScheduling: config.embeddedBatchScheduling,
    });
    url = embedded.url;
  }
  try {
    if (command === 'migrate') {
      // The same code and advisory lock as a start's (storage/migrate.ts): running it while old
      // instances serve, or twice at once, is safe. One line per migration applied, then a summary.
      const { applied, total } = await applyMigrations(url, logger);
      for (const name of applied) process.stdout.write(`applied ${name}\n`);
      process.stdout.write(`${applied.length} of ${total} migrations applied now; the schema is current\n`);
      return 0;
    }
    const { major, tables } = await serverFacts(url);
    const connection = connectionEnvironment(url);
    if (command === 'psql') {
      const psql = chooseClient('psql', findCandidates('psql'), major);
      return await runClient(psql.path, rest, connection);
    }
    if (command === 'dump') {
      const pgDump = chooseClient('pg_dump', findCandidates('pg_dump'), major);
      process.umask(0o077); // the dump holds every row (hashed keys, sealed credentials): private to its owner
      return await runClient(pgDump.path, ['--format=custom', ...(file === '-' ? [] : [`--file=${file}`])], connection);
    }
    if (tables > 0) {
      throw new UsageError(
        `database ${connection.PGDATABASE} already has ${tables} tables; restore into an empty database (a new DATA_DIR, or an empty database in DATABASE_URL) so nothing is mixed or overwritten`,
      );
    }
    const single = ['--single-transaction'];
    if (isArchive(file)) {
      const pgRestore = chooseClient('pg_restore', findCandidates('pg_restore'), major);
      return await runClient(
        pgRestore.path,
        [...single, '--exit-on-error', '--no-owner', '--no-privileges', `--dbname=${connection.PGDATABASE}`, file],
        connection,
      );
    }
    const psql = chooseClient('psql', findCandidates('psql'), major);
    return await runClient(psql.path, [...single, '--quiet', '--set=ON_ERROR_STOP=1', `--file=${file}`], connection);
  } finally {
    if (embedded) await embedded.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Usage, configuration, client and embedded-server problems (and file errors) are one line each.
    process.stderr.write(`error: ${(error as Error).message.split('\n')[0]}\n`);
    process.exit(1);
  },
);
