// npm run bench:run-overhead: the service's CPU per watched run, and runs/s at c=50 with a watcher per
// run, measured from outside exactly as `npm run bench` measures them (bench/blackbox.ts) but without
// its other phases, so that interleaved before/after pairs of a change fit in minutes. Also the
// service's idle CPU over the same wall time as the sequential runs, which tells how much of "per
// run" is not the runs' at all (timers, housekeeping, the database's own background processes).
// Prints one JSON line per pass (the tree it runs in is the one measured: run it from two checkouts
// alternately for an A/B).
//
// Then the parts of a watched run, each alone: runs nobody watches, the REST read of a run, and
// `GET /healthz` (an answer that does no work).
//
// Env: BENCH_PASSES (embedded,server), BENCH_DATABASE_URL (as npm run bench), BENCH_SEQUENTIAL (300),
// BENCH_WARMUP (200), BENCH_RUNS_PER_LEVEL (400 at c=50), BENCH_PARTS (1; 0 skips the parts),
// BENCH_SERVICE_NODE_FLAGS (as npm run bench), BENCH_SERVICE_ENV (extra service environment,
// space-separated NAME=value pairs: `BENCH_SERVICE_ENV=EMBEDDED_PG_BATCH_SCHEDULING=false` for the
// embedded database under the ordinary scheduling policy).
import pg from 'pg';
import { Rest, Subscribers, addEchoAgent, addEchoModel } from './blackbox/clients.js';
import { freshServerDatabase, startService, type Service } from './blackbox/service.js';
import { percentile } from './blackbox/stats.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PASSES = (process.env.BENCH_PASSES ?? 'embedded,server').split(',').map((pass) => pass.trim());
const SEQUENTIAL = env('BENCH_SEQUENTIAL', 300);
const WARMUP = env('BENCH_WARMUP', 200);
const RUNS_AT_50 = env('BENCH_RUNS_PER_LEVEL', 400);
const PARTS = env('BENCH_PARTS', 1) !== 0;
const extraEnv = Object.fromEntries(
  (process.env.BENCH_SERVICE_ENV ?? '')
    .split(' ')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

async function watchedRun(rest: Rest, subscribers: Subscribers, agentId: string): Promise<number> {
  const started = performance.now();
  const run = await rest.ok('POST', '/api/v1/runs', { agent_id: agentId, input: text('hi') });
  await subscribers.runItems(run.id);
  return performance.now() - started;
}

/** Sessions (connections) PostgreSQL has opened on the service's database so far (pg_stat_database). */
async function sessions(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT sessions FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0].sessions);
  } finally {
    await client.end();
  }
}

async function cpuOver<T>(service: Service, work: () => Promise<T>) {
  const sessionsBefore = await sessions(service.databaseUrl);
  const before = service.processes.cpu();
  const started = performance.now();
  const result = await work();
  const wallMs = performance.now() - started;
  const after = service.processes.cpu();
  // The session that counts is itself one.
  const connections = (await sessions(service.databaseUrl)) - sessionsBefore - 1;
  return { result, wallMs, connections, nodeMs: after.nodeMs - before.nodeMs, postgresMs: after.postgresMs - before.postgresMs };
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'waiting']);

/** Node and PostgreSQL CPU ms per unit of each part of a watched run, `count` units each. */
async function measureParts(service: Service, rest: Rest, agentId: string, count: number) {
  const unwatched = await cpuOver(service, async () => {
    let last = '';
    for (let i = 0; i < count; i++) last = (await rest.ok('POST', '/api/v1/runs', { agent_id: agentId, input: text('hi') })).id;
    // Runs are claimed in order: the last sealed, all are (a few polls, counted in the part).
    while (!TERMINAL.has((await rest.ok('GET', `/api/v1/runs/${last}`)).status)) await new Promise((resolve) => setTimeout(resolve, 50));
    return last;
  });
  const read = await cpuOver(service, async () => {
    for (let i = 0; i < count; i++) await rest.ok('GET', `/api/v1/runs/${unwatched.result}`);
  });
  const nothing = await cpuOver(service, async () => {
    for (let i = 0; i < count; i++) await rest.ok('GET', '/healthz');
  });
  const per = (part: { nodeMs: number; postgresMs: number }) => ({
    node: Number((part.nodeMs / count).toFixed(3)),
    postgres: Number((part.postgresMs / count).toFixed(3)),
  });
  return { unwatchedRun: per(unwatched), restRead: per(read), healthz: per(nothing) };
}

async function measure(label: string, databaseUrl: string | null) {
  const service = await startService({ databaseUrl, env: { RUN_WORKERS: '110', ...extraEnv } });
  const rest = new Rest(service.url, service.apiKey);
  const subscribers = new Subscribers(service.url, service.apiKey, 20);
  try {
    await addEchoModel(rest);
    const agentId = await addEchoAgent(rest);
    const idleMemory = service.processes.memory().node;
    let remaining = WARMUP;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (remaining-- > 0) await watchedRun(rest, subscribers, agentId);
      }),
    );
    const sequential = await cpuOver(service, async () => {
      const times: number[] = [];
      for (let i = 0; i < SEQUENTIAL; i++) times.push(await watchedRun(rest, subscribers, agentId));
      return times;
    });
    // The same wall time with nothing asked of the service.
    const idle = await cpuOver(service, () => new Promise((resolve) => setTimeout(resolve, sequential.wallMs)));
    remaining = RUNS_AT_50;
    const times: number[] = [];
    const c50 = await cpuOver(service, () =>
      Promise.all(
        Array.from({ length: 50 }, async () => {
          while (remaining-- > 0) times.push(await watchedRun(rest, subscribers, agentId));
        }),
      ),
    );
    // The parts of a watched run, each measured alone (BENCH_PARTS=0 skips them): runs nobody
    // watches (created, executed, sealed: the create's request and the engine), the REST read of a
    // run, and an answer that does no work (the HTTP stack and the client's own round trip).
    const parts = PARTS ? await measureParts(service, rest, agentId, sequential.result.length) : null;
    const loadedMemory = service.processes.memory().node;
    const perRun = (ms: number, runs: number) => Number((ms / runs).toFixed(3));
    return {
      label,
      load: (await import('node:os')).loadavg().map((value) => Number(value.toFixed(2))),
      sequential: {
        cpuPerRun: perRun(sequential.nodeMs + sequential.postgresMs, SEQUENTIAL),
        nodePerRun: perRun(sequential.nodeMs, SEQUENTIAL),
        p50: Number(percentile(sequential.result, 50).toFixed(2)),
        idleNodePerRun: perRun(idle.nodeMs, SEQUENTIAL),
        idlePostgresPerRun: perRun(idle.postgresMs, SEQUENTIAL),
        connections: sequential.connections,
      },
      c50: {
        runsPerSecond: Number((RUNS_AT_50 / (c50.wallMs / 1000)).toFixed(1)),
        p50: Number(percentile(times, 50).toFixed(1)),
        cpuPerRun: perRun(c50.nodeMs + c50.postgresMs, RUNS_AT_50),
        nodePerRun: perRun(c50.nodeMs, RUNS_AT_50),
        connections: c50.connections,
      },
      ...(parts ? { parts } : {}),
      nodePssMb: { idle: Math.round(idleMemory.pssMb), afterLoad: Math.round(loadedMemory.pssMb) },
    };
  } finally {
    await subscribers.close();
    await service.stop();
  }
}

if (PASSES.includes('embedded')) console.log(JSON.stringify(await measure('embedded', null)));
if (PASSES.includes('server')) {
  const database = await freshServerDatabase(process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres', 'ro');
  if (database) {
    try {
      console.log(JSON.stringify(await measure('server', database.url)));
    } finally {
      await database.drop();
    }
  }
}
process.exit(0);
