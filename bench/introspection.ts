// npm run bench:introspection: whether callers repeating full introspection can starve the service.
// Two services started as users start them (child processes running what `npm start` runs), each
// on a fresh database of the PostgreSQL server with RUN_WORKERS=0: one with
// GRAPHQL_INTROSPECTION_CACHE=false (the baseline: every introspection executed), one with the cache
// (the default). A load generator in another process (this file, run again with BENCH_ROLE=load)
// keeps BENCH_CALLERS keep-alive callers each sending the standard IntrospectionQuery back to back,
// authenticated; meanwhile this process reads GET /healthz once every BENCH_PROBE_MS and keeps the
// latencies. The two services are measured in interleaved rounds (BENCH_ROUNDS each, the order
// alternating), so the machine's noise falls on both alike. Prints per service the /healthz
// latencies (p50, p99, max) under load, the introspections/s the callers got, and the ratios of the
// cached service to the baseline, with the load average at start and end.
//
// Env: BENCH_DATABASE_URL (an admin URL of the PostgreSQL server; default
// postgresql://postgres@127.0.0.1:5432/postgres), BENCH_CALLERS (32), BENCH_ROUNDS (4 per service),
// BENCH_ROUND_MS (4000), BENCH_PROBE_MS (20).
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { getIntrospectionQuery } from 'graphql';
import { freshServerDatabase, startService, type Service } from './blackbox/service.js';
import { percentile } from './blackbox/stats.js';

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const CALLERS = number('BENCH_CALLERS', 32);
const ROUNDS = number('BENCH_ROUNDS', 4);
const ROUND_MS = number('BENCH_ROUND_MS', 4000);
const PROBE_MS = number('BENCH_PROBE_MS', 20);

/** The load generator (its own process): CALLERS callers introspecting until told to stop; reports how many answered. */
async function loadRole() {
  const url = process.env.BENCH_URL!;
  const token = process.env.BENCH_TOKEN!;
  const body = JSON.stringify({ query: getIntrospectionQuery() });
  let stop = false;
  let answered = 0;
  let failed = 0;
  process.on('message', (message) => {
    if (message === 'stop') stop = true;
  });
  const caller = async () => {
    while (!stop) {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      const text = await response.text();
      if (response.ok && text.includes('"__schema"')) answered++;
      else failed++;
    }
  };
  process.send!('started');
  await Promise.all(Array.from({ length: CALLERS }, caller));
  process.send!({ answered, failed });
}

interface Round {
  healthz: number[];
  answered: number;
  failed: number;
  elapsedMs: number;
}

/** One round: the load generator started, /healthz probed every PROBE_MS for ROUND_MS, then stopped. */
async function round(service: Service): Promise<Round> {
  const load = fork(new URL(import.meta.url).pathname, [], {
    env: { ...process.env, BENCH_ROLE: 'load', BENCH_URL: service.url, BENCH_TOKEN: service.apiKey },
    execArgv: ['--import', 'tsx'],
  });
  await new Promise<void>((resolve) => load.once('message', () => resolve()));
  const healthz: number[] = [];
  const started = performance.now();
  while (performance.now() - started < ROUND_MS) {
    const t0 = performance.now();
    const response = await fetch(`${service.url}/healthz`);
    await response.arrayBuffer();
    healthz.push(performance.now() - t0);
    const wait = PROBE_MS - (performance.now() - t0);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const result = new Promise<{ answered: number; failed: number }>((resolve) =>
    load.on('message', (message) => typeof message === 'object' && resolve(message as never)),
  );
  load.send('stop');
  const counts = await result;
  const elapsedMs = performance.now() - started;
  load.kill();
  return { healthz, ...counts, elapsedMs };
}

async function main() {
  const loadAtStart = loadavg()[0]!;
  const services: { name: string; service: Service; drop: () => Promise<void>; rounds: Round[] }[] = [];
  for (const [name, cache] of [
    ['baseline (no cache)', 'false'],
    ['cached', 'true'],
  ] as const) {
    const database = await freshServerDatabase(ADMIN_URL, cache === 'true' ? 'cached' : 'uncached');
    if (!database) throw new Error(`no PostgreSQL server at ${ADMIN_URL}`);
    const service = await startService({ databaseUrl: database.url, env: { RUN_WORKERS: '0', GRAPHQL_INTROSPECTION_CACHE: cache } });
    services.push({ name, service, drop: database.drop, rounds: [] });
  }
  try {
    for (let index = 0; index < ROUNDS; index++) {
      const order = index % 2 === 0 ? services : [...services].reverse();
      for (const entry of order) entry.rounds.push(await round(entry.service));
    }
  } finally {
    for (const entry of services) {
      await entry.service.stop();
      await entry.drop();
    }
  }
  const loadAtEnd = loadavg()[0]!;
  const rows = services.map(({ name, rounds }) => {
    const latencies = rounds.flatMap((r) => r.healthz);
    const answered = rounds.reduce((sum, r) => sum + r.answered, 0);
    const failed = rounds.reduce((sum, r) => sum + r.failed, 0);
    const seconds = rounds.reduce((sum, r) => sum + r.elapsedMs, 0) / 1000;
    return {
      name,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: Math.max(...latencies),
      probes: latencies.length,
      rate: answered / seconds,
      failed,
    };
  });
  const fmt = (value: number) => value.toFixed(1).padStart(8);
  console.log(
    `\n${CALLERS} callers repeating full introspection; /healthz probed every ${PROBE_MS} ms; ${ROUNDS} interleaved rounds of ${ROUND_MS} ms per service`,
  );
  console.log(`load average (1 min): ${loadAtStart.toFixed(2)} at start, ${loadAtEnd.toFixed(2)} at end\n`);
  console.log('| service | /healthz p50 ms | /healthz p99 ms | /healthz max ms | probes | introspections/s | failed |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const row of rows)
    console.log(`| ${row.name} | ${fmt(row.p50)} | ${fmt(row.p99)} | ${fmt(row.max)} | ${row.probes} | ${fmt(row.rate)} | ${row.failed} |`);
  const [base, cached] = rows as [(typeof rows)[0], (typeof rows)[0]];
  console.log(
    `| cached / baseline | ${fmt(cached.p50 / base.p50)} | ${fmt(cached.p99 / base.p99)} | ${fmt(cached.max / base.max)} | | ${fmt(cached.rate / base.rate)} | |`,
  );
}

if (process.env.BENCH_ROLE === 'load') await loadRole();
else await main();
