// npm run bench:rate-limit: what counting requests against the rate limit costs each request, from
// outside. Three services started as users start them (child processes running what `npm start`
// runs), each on a fresh database of the PostgreSQL server and with RUN_WORKERS=0: the limit off
// (RATE_LIMIT_PER_KEY=0), counted in PostgreSQL, and counted in Redis (REDIS_URL) — both with a limit
// too high to refuse anything, so every request is counted and served. Each round drives one of them
// with GET /api/v1/workspace (an authenticated REST read: the cheapest counted request, so the
// counter's share is the largest) from BENCH_CLIENTS keep-alive clients for BENCH_ROUND_MS, then one
// client for the sequential latency; the services take turns round by round (off, postgres, redis,
// off, …) so the machine's noise falls on all three alike. Prints requests/s and latency per service
// and the ratios to the service without the limit.
//
// Env: BENCH_DATABASE_URL (an admin URL of the PostgreSQL server; default
// postgresql://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL (redis://127.0.0.1:6379; the Redis
// row is left out when it is not reachable), BENCH_ROUNDS (12 per service), BENCH_ROUND_MS (1000),
// BENCH_CLIENTS (8), BENCH_SEQUENTIAL (100 requests per round).
import { execSync } from 'node:child_process';
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

interface Variant {
  name: 'off' | 'postgres' | 'redis';
  service: Service;
  drop(): Promise<void>;
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

async function get(service: Service): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${service.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${service.apiKey}` } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET /api/v1/workspace answered ${response.status}`);
  return performance.now() - started;
}

/** BENCH_CLIENTS clients, each sending its next request when its last is answered, for ROUND_MS. */
async function concurrentRound(variant: Variant) {
  const started = performance.now();
  const until = started + ROUND_MS;
  let requests = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        variant.concurrentLatencies.push(await get(variant.service));
        requests++;
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  variant.requests += requests;
  variant.elapsedMs += elapsedMs;
  variant.roundRates.push(requests / (elapsedMs / 1000));
}

async function sequentialRound(variant: Variant) {
  for (let i = 0; i < SEQUENTIAL; i++) variant.sequentialLatencies.push(await get(variant.service));
}

async function startVariant(name: Variant['name']): Promise<Variant> {
  const database = await freshServerDatabase(ADMIN_URL, name);
  if (!database) throw new Error(`no PostgreSQL server at ${ADMIN_URL}`);
  const env: Record<string, string> = { RUN_WORKERS: '0', RATE_LIMIT_PER_KEY: name === 'off' ? '0' : NEVER_REFUSED };
  if (name === 'redis') env.REDIS_URL = REDIS_URL;
  const service = await startService({ databaseUrl: database.url, env });
  // Proof that the variant counts (or not) as it should: the headers of one answer.
  const probe = await fetch(`${service.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${service.apiKey}` } });
  await probe.arrayBuffer();
  if ((probe.headers.get('ratelimit') !== null) !== (name !== 'off'))
    throw new Error(`${name}: RateLimit header ${probe.headers.get('ratelimit')}`);
  return {
    name,
    service,
    drop: database.drop,
    requests: 0,
    elapsedMs: 0,
    roundRates: [],
    concurrentLatencies: [],
    sequentialLatencies: [],
  };
}

function row(cells: (string | number)[]) {
  console.log(`| ${cells.join(' | ')} |`);
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

async function main() {
  const names: Variant['name'][] = ['off', 'postgres', ...((await redisReachable()) ? (['redis'] as const) : [])];
  if (names.length < 3) console.error(`Redis not reachable at ${REDIS_URL}: no Redis row`);
  const variants: Variant[] = [];
  try {
    for (const name of names) variants.push(await startVariant(name));
    // Warm-up: connections, prepared statements, the credential cache and the JIT of each service.
    for (const variant of variants) {
      await concurrentRound(variant);
      await sequentialRound(variant);
      Object.assign(variant, { requests: 0, elapsedMs: 0, roundRates: [], concurrentLatencies: [], sequentialLatencies: [] });
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved, and the order rotated each round: no variant always goes first or last.
      for (let i = 0; i < variants.length; i++) {
        const variant = variants[(round + i) % variants.length]!;
        await concurrentRound(variant);
        await sequentialRound(variant);
      }
      console.error(`round ${round + 1}/${ROUNDS} done`);
    }
    const commit = execSync('git rev-parse --short HEAD').toString().trim();
    console.log(
      `\nRate-limit cost per request — ${new Date().toISOString().slice(0, 10)}, commit ${commit}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()})`,
    );
    console.log(
      `GET /api/v1/workspace, ${ROUNDS} interleaved rounds per service: ${CLIENTS} clients for ${ROUND_MS} ms, then ${SEQUENTIAL} sequential requests\n`,
    );
    const base = variants[0]!;
    const rate = (variant: Variant) => variant.requests / (variant.elapsedMs / 1000);
    row([
      'counters',
      'requests/s',
      'ratio',
      'rounds min–max req/s',
      'p50 ms',
      'p95 ms',
      'sequential p50 ms',
      'sequential p95 ms',
      'added p50 ms',
    ]);
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']);
    for (const variant of variants) {
      row([
        variant.name,
        fixed(rate(variant), 0),
        fixed(rate(variant) / rate(base)),
        `${fixed(Math.min(...variant.roundRates), 0)}–${fixed(Math.max(...variant.roundRates), 0)}`,
        fixed(percentile(variant.concurrentLatencies, 50)),
        fixed(percentile(variant.concurrentLatencies, 95)),
        fixed(percentile(variant.sequentialLatencies, 50), 3),
        fixed(percentile(variant.sequentialLatencies, 95), 3),
        fixed(percentile(variant.sequentialLatencies, 50) - percentile(base.sequentialLatencies, 50), 3),
      ]);
    }
  } finally {
    for (const variant of variants) {
      await variant.service.stop().catch(() => undefined);
      await variant.drop().catch(() => undefined);
    }
  }
}

await main();
