// Starts the service as users do — a child process running what `npm start` runs (the compiled
// JavaScript in dist/, built first if the sources changed) — on its embedded PostgreSQL under a
// temporary DATA_DIR, or on a fresh database of a PostgreSQL server. The start-up benchmark can also
// start it the way `npm start` did before there was a build (TypeScript through the tsx loader), to
// compare the two.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort } from './net.js';
import { ServiceProcesses, readStat } from './proc.js';
// @ts-expect-error a plain ES module script without types
import { buildService } from '../../scripts/build.mjs';

/** How the service's code is loaded: `compiled` is what `npm start` runs, `tsx` what `npm run dev` loads. */
export type Runtime = 'compiled' | 'tsx';

/** The node arguments of a service or worker process, as the npm scripts give them. */
function entryArgs(runtime: Runtime, program: 'server' | 'worker'): string[] {
  return runtime === 'compiled' ? [`dist/src/${program}.js`] : ['--import', 'tsx', `src/${program}.ts`];
}

export interface Service {
  url: string;
  apiKey: string;
  /** Its SECRET_KEY (on a server database; for a restart on the same database). */
  secretKey: string;
  /** The service's own database (for the storage floor, measured on the same database). */
  databaseUrl: string;
  processes: ServiceProcesses;
  /** From spawning the process to its first ready /readyz answer: wall time, and the node process's own CPU. */
  startup: { readyMs: number; nodeCpuMs: number };
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** A database URL on a PostgreSQL server (the service's DATABASE_URL), or null for the embedded one. */
  databaseUrl: string | null;
  env?: Record<string, string>;
  /**
   * Worker processes (`npm run worker`) beside the service, on the same database and environment (a
   * server database only: they share its SECRET_KEY); the service itself then usually runs with
   * RUN_WORKERS=0 and both with REDIS_URL. Their CPU and memory count as the service's.
   */
  workers?: { count: number; env?: Record<string, string> };
  /**
   * A restart on a server database an earlier start bootstrapped: its API key and SECRET_KEY (the
   * bootstrap key is made on an empty database only, and sealed secrets need the same SECRET_KEY).
   */
  restart?: { apiKey: string; secretKey: string };
  /** `compiled` (the default) runs what `npm start` runs. */
  runtime?: Runtime;
  /** A DATA_DIR to reuse (kept at stop), for restarts; by default a new temporary one, removed at stop. */
  dataDir?: string;
  /** How often /readyz is asked while the service starts (100 ms); the start-up bench asks more often. */
  readyPollMs?: number;
}

/**
 * Extra node flags for the service's process, from BENCH_SERVICE_NODE_FLAGS (space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the service under a benchmark's load: the profile is
 * written when the service exits on the bench's SIGTERM.
 */
function serviceNodeFlags(): string[] {
  return (process.env.BENCH_SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
}

async function waitReady(url: string, child: ChildProcess, output: () => string, pollMs: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited at start:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`the service did not become ready:\n${output()}`);
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** The postmaster's pid: the parent of one of our own backends. */
async function postmasterPid(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const backend = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    const stat = readFileSync(`/proc/${backend}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } finally {
    await client.end();
  }
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const runtime = options.runtime ?? 'compiled';
  if (runtime === 'compiled') await buildService({ quiet: true }); // what `npm start`'s prestart does
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'wsa-blackbox-'));
  const port = await freePort();
  const apiKey = options.restart?.apiKey ?? `wsk_bench${randomBytes(16).toString('hex')}`;
  const secretKey = options.restart?.secretKey ?? randomBytes(32).toString('base64');
  // `npm start` runs `node dist/src/server.js`; npm's own process is left out of the tree.
  const serviceEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    BOOTSTRAP_API_KEY: apiKey,
    ALLOW_PLAIN_HTTP_ENDPOINTS: '127.0.0.1',
    // The benchmark's agents run on the offline development model, on a server database too.
    ALLOW_DEVELOPMENT_MODELS: 'true',
    // The benchmarks drive one key far past RATE_LIMIT_PER_KEY's default; bench/rate-limit.ts sets its own.
    RATE_LIMIT_PER_KEY: '0',
    // The benchmarks' model, MCP and tool servers listen on loopback, which the outbound policy refuses
    // on a server database unless allowed (docs/operations.md, "Outbound requests").
    OUTBOUND_ALLOW_PRIVATE: '127.0.0.1,::1,localhost',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl, SECRET_KEY: secretKey } : {}),
    ...options.env,
  };
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...serviceNodeFlags(), ...entryArgs(runtime, 'server')], {
    env: serviceEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(url, child, () => output, options.readyPollMs ?? 100);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const startup = { readyMs: performance.now() - spawnedAt, nodeCpuMs: readStat(child.pid!)?.cpuMs ?? NaN };
  const databaseUrl = options.databaseUrl ?? embeddedUrl(dataDir);
  const postmaster = await postmasterPid(databaseUrl);
  const sharedDatabase = options.databaseUrl ? new URL(options.databaseUrl).pathname.slice(1) : null;
  const processes = new ServiceProcesses(child.pid!, postmaster, sharedDatabase);
  const workers: { child: ChildProcess; exited: Promise<void> }[] = [];
  try {
    for (let i = 0; i < (options.workers?.count ?? 0); i++) {
      if (!options.databaseUrl) throw new Error('worker processes need a PostgreSQL server database');
      const worker = await startWorker(runtime, { ...serviceEnv, ...options.workers?.env });
      workers.push(worker);
      processes.addNodeProcess(worker.child.pid!);
    }
  } catch (error) {
    for (const worker of workers) worker.child.kill('SIGKILL');
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    apiKey,
    secretKey,
    databaseUrl,
    processes,
    startup,
    async stop() {
      for (const worker of workers) worker.child.kill('SIGTERM');
      await Promise.all(workers.map((worker) => worker.exited));
      child.kill('SIGTERM'); // the service stops its workers, then the embedded PostgreSQL
      await exited;
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `npm run worker` as a child process; ready when it logs that its run workers started. */
async function startWorker(runtime: Runtime, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawn(process.execPath, entryArgs(runtime, 'worker'), {
    env: { ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the worker did not start in 120 s:\n${output}`)), 120_000);
    const seen = (chunk: Buffer) => {
      output = (output + chunk).slice(-20_000);
      if (output.includes('run worker started')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`the worker exited (${code}) at start:\n${output}`))));
  });
  // Keep draining its output (an unread pipe would stall the worker once full).
  child.stdout!.resume();
  child.stderr!.resume();
  return { child, exited };
}

/** The embedded database's URL, as `npm run db` finds it: the password file and postmaster.pid under DATA_DIR. */
/** The embedded database as the service reaches it: through its Unix-domain socket when it has one, else TCP. */
function embeddedUrl(dataDir: string): string {
  const password = readFileSync(join(dataDir, 'postgres-password'), 'utf8').trim();
  const port = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3]);
  const socketDir = join(dataDir, 'socket');
  return existsSync(join(socketDir, `.s.PGSQL.${port}`))
    ? `postgresql://postgres:${encodeURIComponent(password)}@localhost:${port}/workspace?host=${encodeURIComponent(socketDir)}`
    : `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/workspace`;
}

/** A fresh database on the PostgreSQL server of `adminUrl` (`suffix` tells several of one bench apart); `drop()` removes it. */
export async function freshServerDatabase(adminUrl: string, suffix = ''): Promise<{ url: string; drop(): Promise<void> } | null> {
  const name = `wsa_blackbox_${process.pid}${suffix ? `_${suffix}` : ''}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    console.error(`no PostgreSQL server pass: ${(error as Error).message}`);
    return null;
  } finally {
    await admin.end().catch(() => undefined);
  }
  const parsed = new URL(adminUrl);
  parsed.pathname = `/${name}`;
  return {
    url: parsed.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
