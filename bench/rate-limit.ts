// npm run bench:rate-limit: what counting a request against the rate limit costs it, from outside.
// Two services started as users start them (child processes running what `npm start` runs), each on
// a fresh database of the PostgreSQL server with RUN_WORKERS=0: one keeps its counters in PostgreSQL,
// the other in Redis (REDIS_URL). Both have a limit too high to refuse anything
// (RATE_LIMIT_PER_KEY=1000000000/60s), and each has two keys: its bootstrap key, whose requests are
// counted, and a key given its own limit 0 by the operator CLI, whose requests are not. The
// comparison is within one process, so nothing but the counting differs between the two columns
// (the same process, connections, caches and database). Each round drives one service and one key
// with GET /api/v1/workspace (an authenticated REST read: the cheapest counted request, so the
// counter's share is the largest) from BENCH_CLIENTS keep-alive clients for BENCH_ROUND_MS, then one
// client for the sequential latency; keys and services take turns round by round, in a rotated
// order, so the machine's noise falls on all alike. Prints requests/s and latency per service and
// key, and the ratios of the counted key to the uncounted one.
//
// Env: BENCH_DATABASE_URL (an admin URL of the PostgreSQL server; default
// postgresql://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL (redis://127.0.0.1:6379; the Redis
// service is left out when it is not reachable), BENCH_ROUNDS (12 per service and key),
// BENCH_ROUND_MS (1000), BENCH_CLIENTS (8), BENCH_SEQUENTIAL (100 requests per round).
import { execFileSync, execSync } from 'node:child_process';
import { cpus } from 'node:os';
import { Redis } from 'ioredis';
import { freshServerDatabase, startService, type Service } from './blackbox/service.js';
import { percentile } from './blackbox/stats.js';

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROUNDS = number('BENCH_ROUNDS', 12);
const ROUND_MS = number('BENCH_ROUND_MS', 1000);
const CLIENTS = number('BENCH_CLIENTS', 8);
const SEQUENTIAL = number('BENCH_SEQUENTIAL', 100);
/** Counted but never refused: the bench measures the counting, not the refusals. */
const NEVER_REFUSED = '1000000000/60s';

interface Measure {
  store: 'postgres' | 'redis';
  counted: boolean;
  url: string;
  token: string;
  requests: number;
  elapsedMs: number;
  /** Requests/s of each measured round: their spread shows how noisy the machine was. */
  roundRates: number[];
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

/** BENCH_CLIENTS clients, each sending its next request when its last is answered, for ROUND_MS. */
async function concurrentRound(measure: Measure) {
  const started = performance.now();
  const until = started + ROUND_MS;
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
  measure.roundRates.push(requests / (elapsedMs / 1000));
}

async function sequentialRound(measure: Measure) {
  for (let i = 0; i < SEQUENTIAL; i++) measure.sequentialLatencies.push((await get(measure.url, measure.token)).ms);
}

/** A key of the service's workspace with its own limit 0, made by the operator CLI as an operator would. */
function uncountedKey(service: Service, workspaceId: string): string {
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
      'read',
      '--rate-limit',
      '0',
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
  roundRates: [],
  concurrentLatencies: [],
  sequentialLatencies: [],
});

async function startStore(store: Measure['store']) {
  const database = await freshServerDatabase(ADMIN_URL, store);
  if (!database) throw new Error(`no PostgreSQL server at ${ADMIN_URL}`);
  const env: Record<string, string> = { RUN_WORKERS: '0', RATE_LIMIT_PER_KEY: NEVER_REFUSED };
  if (store === 'redis') env.REDIS_URL = REDIS_URL;
  const service = await startService({ databaseUrl: database.url, env });
  const workspace = (await (
    await fetch(`${service.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${service.apiKey}` } })
  ).json()) as { id: string };
  const measures = [fresh(store, true, service.url, service.apiKey), fresh(store, false, service.url, uncountedKey(service, workspace.id))];
  // Proof that each key is counted (or not) as it should: the headers of one answer.
  for (const measure of measures) {
    const { rateLimit } = await get(measure.url, measure.token);
    if ((rateLimit !== null) !== measure.counted) throw new Error(`${store}, counted ${measure.counted}: RateLimit ${rateLimit}`);
  }
  return { service, drop: database.drop, measures };
}

const row = (cells: (string | number)[]) => console.log(`| ${cells.join(' | ')} |`);
const fixed = (value: number, digits = 2) => value.toFixed(digits);

async function main() {
  const stores: Measure['store'][] = ['postgres', ...((await redisReachable()) ? (['redis'] as const) : [])];
  if (stores.length < 2) console.error(`Redis not reachable at ${REDIS_URL}: no Redis rows`);
  const started: Awaited<ReturnType<typeof startStore>>[] = [];
  try {
    for (const store of stores) started.push(await startStore(store));
    const measures = started.flatMap((entry) => entry.measures);
    // Warm-up: connections, prepared statements, the credential cache and the JIT of each service.
    for (const measure of measures) {
      await concurrentRound(measure);
      await sequentialRound(measure);
      Object.assign(measure, fresh(measure.store, measure.counted, measure.url, measure.token));
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved, and the order rotated each round: no service or key always goes first or last.
      for (let i = 0; i < measures.length; i++) {
        const measure = measures[(round + i) % measures.length]!;
        await concurrentRound(measure);
        await sequentialRound(measure);
      }
      console.error(`round ${round + 1}/${ROUNDS} done`);
    }
    const commit = execSync('git rev-parse --short HEAD').toString().trim();
    console.log(
      `\nRate-limit cost per request — ${new Date().toISOString().slice(0, 10)}, commit ${commit}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()})`,
    );
    console.log(
      `GET /api/v1/workspace, ${ROUNDS} interleaved rounds per key: ${CLIENTS} clients for ${ROUND_MS} ms, then ${SEQUENTIAL} sequential requests\n`,
    );
    const rate = (measure: Measure) => measure.requests / (measure.elapsedMs / 1000);
    row([
      'counters',
      'key',
      'requests/s',
      'ratio',
      'rounds min–max req/s',
      'p50 ms',
      'p95 ms',
      'sequential p50 ms',
      'sequential p95 ms',
      'added p50 ms',
    ]);
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']);
    for (const {
      measures: [counted, uncounted],
    } of started) {
      for (const measure of [uncounted!, counted!]) {
        row([
          measure.store,
          measure.counted ? 'counted' : 'own limit 0',
          fixed(rate(measure), 0),
          fixed(rate(measure) / rate(uncounted!)),
          `${fixed(Math.min(...measure.roundRates), 0)}–${fixed(Math.max(...measure.roundRates), 0)}`,
          fixed(percentile(measure.concurrentLatencies, 50)),
          fixed(percentile(measure.concurrentLatencies, 95)),
          fixed(percentile(measure.sequentialLatencies, 50), 3),
          fixed(percentile(measure.sequentialLatencies, 95), 3),
          fixed(percentile(measure.sequentialLatencies, 50) - percentile(uncounted!.sequentialLatencies, 50), 3),
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
