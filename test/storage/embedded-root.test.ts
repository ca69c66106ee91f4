// The embedded PostgreSQL where new users first meet it: as root (containers, fresh machines), in a
// checkout only root can enter (mode 0700, like /root or a mktemp -d directory). PostgreSQL refuses
// root and runs as user `postgres`, which cannot traverse such a directory: `npm start` and the test
// command's database setup must work anyway, without loosening the directory. Where the embedded
// database cannot work, `npm start` stops with one line saying what to do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';

const repo = process.cwd();

/** The environment of a fresh shell: nothing from this test run (database URLs, vitest's variables). */
function freshEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(VITEST|TEST_|DATABASE_URL$|DATA_DIR$|NODE_OPTIONS$|PORT$|TMPDIR$)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (in its own process group, killed with it on timeout). */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function serviceFails(env: Record<string, string>): Promise<Finished> {
  return run(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: repo,
    env: freshEnv({ PORT: '0', ...env }),
    timeoutMs: 90_000,
  });
}

/** stderr is one line: what is wrong and what to do; no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  return lines[0]!;
}

describe('npm start when the embedded database cannot work', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wsa-embedded-fail-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a DATA_DIR that cannot be created: one line naming it, exit code 1', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const result = await serviceFails({ DATA_DIR: join(file, 'data') });
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toContain(`cannot use DATA_DIR ${join(file, 'data')}`);
  });

  it('a data directory made by another PostgreSQL major: refused in one line saying how to proceed', { tags: ['slow'] }, async () => {
    const dataDir = join(dir, 'newer');
    mkdirSync(join(dataDir, 'postgres'), { recursive: true });
    writeFileSync(join(dataDir, 'postgres', 'PG_VERSION'), '18\n');
    const result = await serviceFails({ DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `error: ${join(dataDir, 'postgres')} holds a PostgreSQL 18 database, but this service embeds PostgreSQL 15, which cannot open it: set DATA_DIR to a new directory (or move ${join(dataDir, 'postgres')} aside) and start again; to keep the data, dump it with a PostgreSQL 18 server and pg_dump, then load it with npm run db -- restore FILE`,
    );
  });
});

describe("the test command's database setup when the embedded database cannot work", { tags: ['slow'] }, () => {
  it('stops with one line and exit code 1', async () => {
    const result = await run(join(repo, 'node_modules', '.bin', 'vitest'), ['run', 'test/unit/pg-clients.test.ts'], {
      cwd: repo,
      env: freshEnv({ TMPDIR: '/dev/null/not-a-directory', NO_COLOR: '1', FORCE_COLOR: '0' }),
      timeoutMs: 120_000,
    });
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      "error: the test database could not be started: ENOTDIR: not a directory, mkdtemp '/dev/null/not-a-directory/wsa-test-pg-XXXXXX'",
    );
    expect(result.stdout).not.toMatch(/^\s+at /m);
  }, 150_000);
});

/** The command lines (argv) of the live processes in process group `group` (npm start's, started detached). */
function processGroupCommands(group: number): string[][] {
  const commands: string[][] = [];
  for (const name of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp …": the process group is the third field after comm.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== group) continue;
      commands.push(
        readFileSync(`/proc/${name}/cmdline`, 'utf8')
          .split('\0')
          .filter((arg) => arg !== ''),
      );
    } catch {
      // exited meanwhile
    }
  }
  return commands;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0 && process.platform === 'linux';

describe.runIf(asRoot)('as root, a fresh clone in a directory only root can enter (0700)', () => {
  let home: string;
  let clone: string;
  let service: ChildProcess | null = null;

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'wsa-root-home-')); // mode 0700, like /root
    clone = join(home, 'app');
    execFileSync('git', ['clone', '--quiet', repo, clone]);
    // What `npm ci` would install, without the download: hard links to this checkout's files.
    execFileSync('cp', ['-al', join(repo, 'node_modules'), join(clone, 'node_modules')]);
    execFileSync('cp', ['-r', join(repo, 'src', 'generated'), join(clone, 'src', 'generated')]);
  }, 120_000);

  afterAll(async () => {
    try {
      if (service && service.exitCode === null && service.signalCode === null) {
        const exited = new Promise((resolve) => service!.once('exit', resolve));
        process.kill(-service.pid!, 'SIGKILL');
        await exited;
      }
      // A PostgreSQL left running by a failed test (it has its own process group) goes too.
      const pidFile = join(clone, '.data', 'postgres', 'postmaster.pid');
      if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGKILL');
    } catch {
      // already gone
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('npm start builds dist/, runs it and serves /healthz and /readyz, keeping the directories private', async () => {
    expect(statSync(home).mode & 0o777).toBe(0o700);
    const child = spawn('npm', ['start'], {
      cwd: clone,
      env: freshEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    service = child;
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const listening = await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
        return output.split('\n').find((line) => line.includes('workspace agent service listening'));
      },
      (line) => line !== undefined,
      'the service to listen',
      180_000,
      100,
    );
    const url = (JSON.parse(listening!) as { url: string }).url;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(await ready.json()).toMatchObject({ status: 'ready', database: 'embedded', pending_migrations: 0 });
    expect(output).not.toContain('EACCES');
    // It runs the compiled JavaScript that its prestart built into dist/ (a fresh clone has none): no
    // TypeScript loader in the service's process.
    expect(output).toMatch(/service built in [\d.]+ s: \d+ modules → dist\//);
    const commands = processGroupCommands(child.pid!);
    expect(commands).toContainEqual([expect.stringMatching(/node$/), 'dist/src/server.js']);
    expect(commands.flat().some((arg) => /tsx/.test(arg))).toBe(false);

    // Nothing above the data was opened up: the home, the checkout and DATA_DIR stay root-only;
    // PostgreSQL's own directory belongs to postgres, mode 0700.
    const postgresUid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(join(clone, '.data')).mode & 0o777).toBe(0o700);
    expect(statSync(join(clone, '.data')).uid).toBe(0);
    expect(statSync(join(clone, '.data', 'postgres')).uid).toBe(postgresUid);
    expect(statSync(join(clone, '.data', 'postgres')).mode & 0o777).toBe(0o700);

    process.kill(-child.pid!, 'SIGTERM');
    await exited;
    // npm may exit (closing the pipe) before the service logs its shutdown, so the proof is what the
    // shutdown does at its end: PostgreSQL, in its own process group and not signalled, stops.
    await waitFor(
      async () => existsSync(join(clone, '.data', 'postgres', 'postmaster.pid')),
      (present) => !present,
      'PostgreSQL to stop',
      60_000,
      100,
    );
  }, 240_000);

  it("the test command's database setup starts the embedded PostgreSQL there too", { tags: ['slow'], timeout: 240_000 }, async () => {
    // TMPDIR inside the private directory: the test database's data directory is unreachable as well.
    const privateTmp = join(home, 'tmp');
    mkdirSync(privateTmp, { mode: 0o700 });
    const result = await run(join(clone, 'node_modules', '.bin', 'vitest'), ['run', 'test/unit/pg-clients.test.ts'], {
      cwd: clone,
      env: freshEnv({ TMPDIR: privateTmp, NO_COLOR: '1', FORCE_COLOR: '0' }),
      timeoutMs: 180_000,
    });
    const output = result.stdout + result.stderr;
    expect(output).not.toContain('EACCES');
    expect(output).toMatch(/Tests\s+\d+ passed/);
    expect(output).not.toMatch(/failed/);
  });
});
