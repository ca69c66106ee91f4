// Finds PostgreSQL client programs (psql, pg_dump, pg_restore) that can talk to a given server.
// pg_dump refuses a server of a newer major version than its own, and a much newer one writes
// settings an older server does not know; so the client chosen is the oldest installed one whose
// major is at least the server's.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export type ClientProgram = 'psql' | 'pg_dump' | 'pg_restore';

export interface ClientCandidate {
  path: string;
  major: number;
}

export class ClientNotFoundError extends Error {}

/** "pg_dump (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)" → 15. */
export function parseClientMajor(versionOutput: string): number | null {
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(versionOutput);
  return match ? Number(match[1]) : null;
}

/** Directories where PostgreSQL clients are usually installed, besides PATH. */
function versionedDirectories(): string[] {
  const dirs: string[] = [];
  const globbed = (parent: string, pattern: RegExp, suffix: string) => {
    if (!existsSync(parent)) return;
    for (const name of readdirSync(parent)) if (pattern.test(name)) dirs.push(join(parent, name, suffix));
  };
  globbed('/usr/lib/postgresql', /^\d+$/, 'bin'); // Debian, Ubuntu
  globbed('/usr', /^pgsql-\d+$/, 'bin'); // RHEL, Fedora (PGDG)
  globbed('/opt/homebrew/opt', /^(postgresql(@\d+)?|libpq)$/, 'bin'); // Homebrew (Apple silicon)
  globbed('/usr/local/opt', /^(postgresql(@\d+)?|libpq)$/, 'bin'); // Homebrew (Intel)
  return dirs;
}

/** Every installed copy of `program` with its major version (PATH first, then versioned directories). */
export function findCandidates(program: ClientProgram, searchPath = process.env.PATH ?? ''): ClientCandidate[] {
  const seen = new Set<string>();
  const candidates: ClientCandidate[] = [];
  for (const dir of [...searchPath.split(delimiter).filter(Boolean), ...versionedDirectories()]) {
    const path = join(dir, program);
    if (!existsSync(path)) continue;
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    try {
      const major = parseClientMajor(
        execFileSync(path, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }),
      );
      if (major !== null) candidates.push({ path, major });
    } catch {
      // not runnable: skip it
    }
  }
  return candidates;
}

function installHint(serverMajor: number): string {
  return `install the PostgreSQL client tools, version ${serverMajor} or newer (Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq)`;
}

/** The oldest candidate whose major is at least `serverMajor`, or one line saying what to install. */
export function chooseClient(program: ClientProgram, candidates: ClientCandidate[], serverMajor: number): ClientCandidate {
  const usable = candidates.filter((candidate) => candidate.major >= serverMajor).sort((a, b) => a.major - b.major);
  if (usable[0]) return usable[0];
  if (candidates.length === 0) {
    throw new ClientNotFoundError(
      `${program} is not installed (looked in PATH and /usr/lib/postgresql/*/bin): ${installHint(serverMajor)}`,
    );
  }
  const found = candidates.map((candidate) => `${candidate.major} (${candidate.path})`).join(', ');
  throw new ClientNotFoundError(
    `the server is PostgreSQL ${serverMajor} but the only ${program} found is version ${found}, which cannot talk to it: ${installHint(serverMajor)}`,
  );
}
