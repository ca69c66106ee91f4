// npm run bench:rate-limit: what counting a request against the rate limit costs it, from outside.
// Two services started as users start them (child processes running what `npm start` runs), each on
// a fresh database of the PostgreSQL server with RUN_WORKERS=0: one keeps its counters in PostgreSQL,
// the other in Redis (REDIS_URL). Both have a limit too high to refuse anything
// (RATE_LIMIT_PER_KEY=1000000000/60s), and each has two keys: its bootstrap key, whose requests are
// counted, and a key given its own limit 0 by the operator CLI, whose requests are not. The
// comparison is within one process, so nothing but the counting differs between the two columns
// (the same process, connections, caches and database). The load is GET /api/v1/workspace (an
// authenticated REST read: the cheapest counted request, so the counter's share is the largest), and
// the two keys are interleaved finely, so the machine's noise falls on both alike: BENCH_CLIENTS
// keep-alive clients drive one key for BENCH_SLICE_MS, then the other, BENCH_SLICES times each (the
// order alternating), for requests/s; then one client sends BENCH_PAIRS pairs of requests, one with
// each key (which goes first alternating), for the latency a request alone sees and its added part —
// the median of the pairs' differences. Prints both per service and key, with the ratios of the
// counted key to the uncounted one.
//
// Env: BENCH_DATABASE_URL (an admin URL of the PostgreSQL server; default
// postgresql://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL (redis://127.0.0.1:6379; the Redis
// service is left out when it is not reachable), BENCH_SLICES (48 per key), BENCH_SLICE_MS (250),
// BENCH_CLIENTS (8), BENCH_PAIRS (1000), BENCH_COUNTED (`bootstrap`: the bootstrap key is the counted
// one, the CLI's key has its own limit 0; `cli`: the other way round).
import { execFileSync, execSync } from 'node:child_process';
import { cpus } from 'node:os';
import { Redis } from 'ioredis';
import { freshServerDatabase, startService, type Service } from './blackbox/service.js';
import { percentile } from './blackbox/stats.js';

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SLICES = number('BENCH_SLICES', 48);
const SLICE_MS = number('BENCH_SLICE_MS', 250);
const CLIENTS = number('BENCH_CLIENTS', 8);
const PAIRS = number('BENCH_PAIRS', 1000);
const COUNTED = process.env.BENCH_COUNTED === 'cli' ? 'cli' : 'bootstrap';
/** Counted but never refused: the bench measures the counting, not the refusals. */
const NEVER_REFUSED = '1000000000/60s';

interface Measure {
  store: 'postgres' | 'redis';
  counted: boolean;
  url: string;
  token: string;
  requests: number;
  elapsedMs: number;
  /** Requests/s of each slice: their spread shows how noisy the machine was. */
  sliceRates: number[];
  concurrentLatencies: number[];
  sequentialLatencies: number[];
}

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function get(url: string, token: string): Promise<{ ms: number; rateLimit: string | null }> {
  const started = performance.now();
  const response = await fetch(`${url}/api/v1/workspace`, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET /api/v1/workspace answered ${response.status}`);
  return { ms: performance.now() - started, rateLimit: response.headers.get('ratelimit') };
}

/** BENCH_CLIENTS clients, each sending its next request when its last is answered, for SLICE_MS. */
async function concurrentSlice(measure: Measure) {
  const started = performance.now();
  const until = started + SLICE_MS;
  let requests = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        measure.concurrentLatencies.push((await get(measure.url, measure.token)).ms);
        requests++;
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  measure.requests += requests;
  measure.elapsedMs += elapsedMs;
  measure.sliceRates.push(requests / (elapsedMs / 1000));
}

/** One client, PAIRS pairs of requests (one per key, the first alternating); answers each pair's difference, counted − uncounted. */
async function sequentialPairs(counted: Measure, uncounted: Measure): Promise<number[]> {
  const differences: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const order = i % 2 === 0 ? [counted, uncounted] : [uncounted, counted];
    const ms = new Map<Measure, number>();
    for (const measure of order) {
      const { ms: latency } = await get(measure.url, measure.token);
      measure.sequentialLatencies.push(latency);
      ms.set(measure, latency);
    }
    differences.push(ms.get(counted)! - ms.get(uncounted)!);
  }
  return differences;
}

/** A key of the service's workspace with its own limit, made by the operator CLI as an operator would. */
function cliKey(service: Service, workspaceId: string, rateLimit: string): string {
  const output = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli.ts',
      'api-keys',
      'create',
      '--workspace',
      workspaceId,
      '--permissions',
      'read,write,admin,run',
      '--rate-limit',
      rateLimit,
      '--json',
    ],
    // The CLI opens the database only; it encrypts nothing here, so any SECRET_KEY does.
    { env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: service.databaseUrl, SECRET_KEY: 'bench-cli', LOG_LEVEL: 'silent' } },
  );
  return (JSON.parse(output.toString()) as { api_key: string }).api_key;
}

const fresh = (store: Measure['store'], counted: boolean, url: string, token: string): Measure => ({
  store,
  counted,
  url,
  token,
  requests: 0,
  elapsedMs: 0,
  sliceRates: [],
  concurrentLatencies: [],
  sequentialLatencies: [],
});

async function startStore(store: Measure['store']) {
  const database = await freshServerDatabase(ADMIN_URL, store);
  if (!database) throw new Error(`no PostgreSQL server at ${ADMIN_URL}`);
  // Which key is counted: by default the bootstrap key (the service's limit) and not the CLI's key
  // (its own limit 0); BENCH_COUNTED=cli the other way round, a check that the key itself plays no part.
  const cliCounted = COUNTED === 'cli';
  const env: Record<string, string> = { RUN_WORKERS: '0', RATE_LIMIT_PER_KEY: cliCounted ? '0' : NEVER_REFUSED };
  if (store === 'redis') env.REDIS_URL = REDIS_URL;
  const service = await startService({ databaseUrl: database.url, env });
  const workspace = (await (
    await fetch(`${service.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${service.apiKey}` } })
  ).json()) as { id: string };
  const other = cliKey(service, workspace.id, cliCounted ? NEVER_REFUSED : '0');
  const [countedToken, uncountedToken] = cliCounted ? [other, service.apiKey] : [service.apiKey, other];
  const measures = [fresh(store, true, service.url, countedToken), fresh(store, false, service.url, uncountedToken)];
  // Proof that each key is counted (or not) as it should: the headers of one answer.
  for (const measure of measures) {
    const { rateLimit } = await get(measure.url, measure.token);
    if ((rateLimit !== null) !== measure.counted) throw new Error(`${store}, counted ${measure.counted}: RateLimit ${rateLimit}`);
  }
  return { service, drop: database.drop, measures };
}

const row = (cells: (string | number)[]) => console.log(`| ${cells.join(' | ')} |`);
const fixed = (value: number, digits = 2) => value.toFixed(digits);
// The bootstrap key of a bench service is `wsk_bench…` (bench/blackbox/service.ts); the CLI's are not.

async function main() {
  const stores: Measure['store'][] = ['postgres', ...((await redisReachable()) ? (['redis'] as const) : [])];
  if (stores.length < 2) console.error(`Redis not reachable at ${REDIS_URL}: no Redis rows`);
  const started: Awaited<ReturnType<typeof startStore>>[] = [];
  try {
    for (const store of stores) started.push(await startStore(store));
    const added = new Map<Measure['store'], number[]>();
    for (const { measures } of started) {
      const [counted, uncounted] = measures as [Measure, Measure];
      // Warm-up: connections, prepared statements, the credential cache and the JIT of the service.
      for (let i = 0; i < 4; i++) for (const measure of measures) await concurrentSlice(measure);
      await sequentialPairs(counted, uncounted);
      for (const measure of measures) Object.assign(measure, fresh(measure.store, measure.counted, measure.url, measure.token));
      for (let slice = 0; slice < SLICES; slice++) {
        for (const measure of slice % 2 === 0 ? [counted, uncounted] : [uncounted, counted]) await concurrentSlice(measure);
      }
      added.set(counted.store, await sequentialPairs(counted, uncounted));
      console.error(`${counted.store} done`);
    }
    const commit = execSync('git rev-parse --short HEAD').toString().trim();
    console.log(
      `\nRate-limit cost per request — ${new Date().toISOString().slice(0, 10)}, commit ${commit}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()})`,
    );
    console.log(
      `GET /api/v1/workspace: ${CLIENTS} clients, ${SLICES} slices of ${SLICE_MS} ms per key, alternating; then ${PAIRS} sequential pairs (one request per key)\n`,
    );
    const rate = (measure: Measure) => measure.requests / (measure.elapsedMs / 1000);
    row([
      'counters',
      'key',
      'requests/s',
      'ratio',
      'slices min–max req/s',
      'p50 ms',
      'p95 ms',
      'sequential p50 ms',
      'sequential p95 ms',
      'added ms (median of pairs)',
    ]);
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']);
    for (const {
      measures: [counted, uncounted],
    } of started) {
      for (const measure of [uncounted!, counted!]) {
        row([
          measure.store,
          `${measure.counted ? 'counted' : 'not counted'} (${measure.token.startsWith('wsk_bench') ? 'bootstrap' : 'CLI'} key)`,
          fixed(rate(measure), 0),
          fixed(rate(measure) / rate(uncounted!)),
          `${fixed(Math.min(...measure.sliceRates), 0)}–${fixed(Math.max(...measure.sliceRates), 0)}`,
          fixed(percentile(measure.concurrentLatencies, 50)),
          fixed(percentile(measure.concurrentLatencies, 95)),
          fixed(percentile(measure.sequentialLatencies, 50), 3),
          fixed(percentile(measure.sequentialLatencies, 95), 3),
          measure.counted ? fixed(percentile(added.get(measure.store)!, 50), 3) : '—',
        ]);
      }
    }
  } finally {
    for (const entry of started) {
      await entry.service.stop().catch(() => undefined);
      await entry.drop().catch(() => undefined);
    }
  }
}

await main();
