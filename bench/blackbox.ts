// npm run bench: the black-box runs benchmark. Starts the service as users do (a child process running
// what `npm start` runs) on its embedded PostgreSQL, then on a fresh database of a PostgreSQL server,
// and drives it only through public surfaces (REST over HTTP, graphql-ws, SSE) with the offline
// development model and a loopback OpenAI-compatible model server. Beside it, on the same database,
// the storage floor (bench/blackbox/floor.ts). Prints one table per pass and the targets as ratios
// to the floor. Before the passes, the start-up of the service as `npm start` runs it (compiled) and as
// it ran through tsx (bench/blackbox/startup.ts). The tables go to stdout and to bench/results/runs.md,
// headed by the commit, date, Node version, machine and load average, and the README's quote of that
// file is rewritten (bench/blackbox/results-file.ts). The in-process profiling bench is
// `npm run bench:inprocess`.
//
// Env: BENCH_PASSES (embedded,server), BENCH_DATABASE_URL (an admin URL of the PostgreSQL server; a
// fresh database is created and dropped on it; default postgresql://postgres@127.0.0.1:5432/postgres),
// BENCH_SEQUENTIAL (100), BENCH_WARMUP (300), BENCH_CONCURRENCY (10,50,200), BENCH_RUNS_PER_LEVEL
// (4 × concurrency, at least 200), BENCH_ROUND_TRIPS (30), BENCH_FANOUT (1000), BENCH_CHUNKS (20),
// BENCH_CONNECTIONS (graphql-ws connections, 20), BENCH_RUN_WORKERS (the service's RUN_WORKERS, 110: the
// fan-out holds 100 runs mid-stream at once), BENCH_STARTS (measured starts of each kind, 3; 0: none).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Rest, Subscribers, addEchoModel, runItemsOverSse } from './blackbox/clients.js';
import { measureFloor, type FloorResult } from './blackbox/floor.js';
import { LOOPBACK_API_KEY, startLoopbackModel, type LoopbackModel } from './blackbox/loopback-model.js';
import type { Memory } from './blackbox/proc.js';
import { freshServerDatabase, startService, type Service } from './blackbox/service.js';
import { percentile } from './blackbox/stats.js';
import { measureStartup, type StartupResult } from './blackbox/startup.js';
import { README_FILE, RUNS_RESULTS, machineAtStart, markdownTable, resultsHeader, withQuotedResults } from './blackbox/results-file.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PASSES = (process.env.BENCH_PASSES ?? 'embedded,server').split(',').map((pass) => pass.trim());
const SEQUENTIAL = env('BENCH_SEQUENTIAL', 100);
const WARMUP = env('BENCH_WARMUP', 300);
const LEVELS = (process.env.BENCH_CONCURRENCY ?? '10,50,200').split(',').map(Number);
const ROUND_TRIPS = env('BENCH_ROUND_TRIPS', 30);
const FANOUT = env('BENCH_FANOUT', 1000);
const CHUNKS = env('BENCH_CHUNKS', 20);
const CONNECTIONS = env('BENCH_CONNECTIONS', 20);
const STARTS = env('BENCH_STARTS', 3);
const runsPerLevel = (concurrency: number) => env('BENCH_RUNS_PER_LEVEL', Math.max(200, 4 * concurrency));

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

interface Context {
  service: Service;
  rest: Rest;
  subscribers: Subscribers;
  loopback: LoopbackModel;
  echoAgent: string;
  toolAgent: string;
  loopAgent: string;
}

interface Quantiles {
  p50: number;
  p95: number;
  p99: number;
  n: number;
}
const quantiles = (values: number[]): Quantiles => ({
  p50: percentile(values, 50),
  p95: percentile(values, 95),
  p99: percentile(values, 99),
  n: values.length,
});

async function setup(service: Service, loopback: LoopbackModel): Promise<Context> {
  const rest = new Rest(service.url, service.apiKey);
  await addEchoModel(rest);
  const loopProvider = await rest.ok('POST', '/api/v1/model-providers', {
    type: 'openai_compatible',
    name: 'bench loopback',
    config: { base_url: loopback.url },
    credential: { api_key: LOOPBACK_API_KEY },
  });
  await rest.ok('POST', '/api/v1/models', { key: 'loop', provider_id: loopProvider.id, provider_model: 'loop' });
  const agent = (name: string, config: Record<string, unknown>) => rest.ok('POST', '/api/v1/agents', { name, config });
  const echoAgent = (await agent('echo', { model: 'dev' })).id;
  const toolAgent = (
    await agent('client tool', {
      model: 'dev',
      client_tools: [{ name: 'pick' }],
      model_settings: { script: [[{ tool_call: { id: 'p1', name: 'pick' } }], [{ text: 'picked' }]], after_script: 'echo' },
    })
  ).id;
  const loopAgent = (await agent('loopback', { model: 'loop' })).id;
  return {
    service,
    rest,
    subscribers: new Subscribers(service.url, service.apiKey, CONNECTIONS),
    loopback,
    echoAgent,
    toolAgent,
    loopAgent,
  };
}

/** A new run observed by a runItems subscription opened right after the POST. */
async function watchedRun(ctx: Context, agentId = ctx.echoAgent) {
  const started = performance.now();
  const run = await ctx.rest.ok('POST', '/api/v1/runs', { agent_id: agentId, input: text('hi') });
  const subscribed = performance.now();
  let firstItem = NaN;
  await ctx.subscribers.runItems(run.id, () => {
    if (Number.isNaN(firstItem)) firstItem = performance.now();
  });
  const sealed = performance.now();
  return { run, total: sealed - started, postToFirstItem: firstItem - started, subscribeToFirstItem: firstItem - subscribed };
}

async function phase<T>(ctx: Context, work: () => Promise<T>): Promise<{ result: T; cpuMs: number; nodeCpuMs: number; seconds: number }> {
  const before = ctx.service.processes.cpu();
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const after = ctx.service.processes.cpu();
  const nodeCpuMs = after.nodeMs - before.nodeMs;
  return { result, cpuMs: nodeCpuMs + after.postgresMs - before.postgresMs, nodeCpuMs, seconds };
}

async function atConcurrency(ctx: Context, concurrency: number, runs: number) {
  let remaining = runs;
  const times: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (remaining-- > 0) times.push((await watchedRun(ctx)).total);
    }),
  );
  return { runsPerSecond: runs / ((performance.now() - started) / 1000), p50: percentile(times, 50), p95: percentile(times, 95) };
}

/** POST /api/v1/runs with `Prefer: wait=30`; null when the service does not apply the preference. */
async function httpWaitRuns(ctx: Context, count: number): Promise<number[] | null> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await ctx.rest.call('POST', '/api/v1/runs', { agent_id: ctx.echoAgent, input: text('hi') }, { prefer: 'wait=30' });
    const elapsed = performance.now() - started;
    if (response.status >= 300) throw new Error(`POST /api/v1/runs with Prefer: wait: ${response.status} ${JSON.stringify(response.body)}`);
    if (!response.headers.get('preference-applied')?.includes('wait')) return null;
    if (!['completed', 'failed', 'cancelled', 'waiting'].includes(response.body.status))
      throw new Error(`Prefer: wait answered a ${response.body.status} run`);
    times.push(elapsed);
  }
  return times;
}

let keys = 0;
/** Resume, fork and inbox deliveries take an Idempotency-Key, as a client retrying safely sends. */
const key = () => ({ 'idempotency-key': `bench-${process.pid}-${++keys}` });

async function roundTrips(ctx: Context) {
  const resume: number[] = [];
  const fork: number[] = [];
  const inbox: number[] = [];
  const thread = await ctx.rest.ok('POST', '/api/v1/threads', {});
  for (let i = 0; i < ROUND_TRIPS; i++) {
    // resume: a run waiting on a client tool, resumed with its result; sealed successor observed by subscription
    const waiting = await watchedRun(ctx, ctx.toolAgent);
    let started = performance.now();
    const successor = await ctx.rest.ok(
      'POST',
      `/api/v1/runs/${waiting.run.id}/resume`,
      { calls: { p1: { status: 'returned', value: 'blue' } } },
      key(),
    );
    await ctx.subscribers.runItems(successor.id);
    resume.push(performance.now() - started);
    // fork: a completed run's history continued in a new thread
    started = performance.now();
    const forked = await ctx.rest.ok(
      'POST',
      `/api/v1/runs/${successor.id}/fork`,
      { agent_id: ctx.echoAgent, payload: text('and now?') },
      key(),
    );
    await ctx.subscribers.runItems(forked.run.id);
    fork.push(performance.now() - started);
    // inbox queue delivery to an idle thread: starts a run at once
    started = performance.now();
    const delivered = await ctx.rest.ok(
      'POST',
      `/api/v1/threads/${thread.id}/inbox`,
      { agent_id: ctx.echoAgent, payload: text('next') },
      key(),
    );
    await ctx.subscribers.runItems(delivered.run.id);
    inbox.push(performance.now() - started);
  }
  return { resume: quantiles(resume), fork: quantiles(fork), inbox: quantiles(inbox) };
}

/**
 * Chunk → subscriber latency: `subscribers` runItems subscribers spread evenly over `runs` runs on the
 * loopback model. The bench writes one chunk to every held model stream, then waits until every
 * subscriber has seen it before the next (no queueing between chunks): latency = seen − written.
 */
async function fanOut(ctx: Context, runs: number, subscribers: number): Promise<Quantiles> {
  const created = await Promise.all(
    Array.from({ length: runs }, () => ctx.rest.ok('POST', '/api/v1/runs', { agent_id: ctx.loopAgent, input: text('stream') })),
  );
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000).unref());
  if ((await Promise.race([ctx.loopback.held(runs), timeout])) === 'timeout') {
    const run = await ctx.rest.ok('GET', `/api/v1/runs/${created[0]!.id}`);
    throw new Error(`the loopback model did not get ${runs} requests in 30 s; a run: ${JSON.stringify(run)}`);
  }
  const seen = new Array<number>(subscribers).fill(0);
  const latencies: number[] = [];
  let sentAt = 0;
  let waiting: { count: number; resolve: () => void } | null = null;
  let atCount = 0; // subscribers that have seen the current chunk
  const done = Array.from({ length: subscribers }, (_, index) =>
    ctx.subscribers.runItems(created[index % runs]!.id, (item) => {
      if (item.kind !== 'text_message') return;
      const count = (String(item.content?.text ?? '').match(/#/g) ?? []).length;
      if (count <= seen[index]!) return;
      seen[index] = count;
      if (waiting && count >= waiting.count) {
        if (count > 1) latencies.push(performance.now() - sentAt); // chunk 1 only proves the subscriber listens
        if (++atCount === subscribers) waiting.resolve();
      }
    }),
  );
  const chunk = (count: number) =>
    new Promise<void>((resolve, reject) => {
      atCount = seen.filter((value) => value >= count).length;
      const timer = setTimeout(() => reject(new Error(`chunk ${count}: ${atCount}/${subscribers} subscribers saw it in 30 s`)), 30_000);
      waiting = {
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      sentAt = performance.now();
      ctx.loopback.send('#');
      if (atCount === subscribers) waiting.resolve();
    });
  // The first chunk is sent until every subscriber shows it: a subscription has no "listening" signal.
  for (let k = 1; k <= CHUNKS + 1; k++) await chunk(k);
  ctx.loopback.finish();
  await Promise.all(done);
  return quantiles(latencies);
}

interface PassResult {
  label: string;
  idle: { node: Memory; postgres: Memory };
  loaded: { node: Memory; postgres: Memory };
  subscription: Quantiles;
  sse: Quantiles;
  httpWait: Quantiles | null;
  postToFirstItem: Quantiles;
  subscribeToFirstItem: Quantiles;
  levels: { concurrency: number; runsPerSecond: number; p50: number; p95: number; cpuPerRun: number }[];
  cpuPerRun: number;
  nodeCpuPerRun: number;
  trips: Awaited<ReturnType<typeof roundTrips>>;
  fanOutOne: Quantiles;
  fanOutSpread: Quantiles;
  floor: FloorResult;
  /** The bench process's own CPU over the pass (its clients, the loopback model and the floor all run in it), and the pass's wall time. */
  clients: { cpuSeconds: number; wallSeconds: number };
}

function peakMemory(ctx: Context) {
  let peak = ctx.service.processes.memory();
  const timer = setInterval(() => {
    const now = ctx.service.processes.memory();
    if (now.node.pssMb + now.postgres.pssMb > peak.node.pssMb + peak.postgres.pssMb) peak = now;
  }, 250);
  return () => (clearInterval(timer), peak);
}

async function measurePass(label: string, databaseUrl: string | null): Promise<PassResult> {
  const cpuAtStart = process.cpuUsage();
  const wallAtStart = performance.now();
  const loopback = await startLoopbackModel();
  // 100 runs held mid-stream at once for the fan-out need 100 worker slots (the default is 8).
  const service = await startService({ databaseUrl, env: { RUN_WORKERS: process.env.BENCH_RUN_WORKERS ?? '110' } });
  const ctx = await setup(service, loopback);
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idle = service.processes.memory();
    log(label, 'warm-up');
    await atConcurrency(ctx, 10, WARMUP);
    log(label, 'sequential');
    const sequential = await phase(ctx, async () => {
      const runs = [];
      for (let i = 0; i < SEQUENTIAL; i++) runs.push(await watchedRun(ctx));
      return runs;
    });
    const httpWait = await httpWaitRuns(ctx, SEQUENTIAL);
    const sse: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      const started = performance.now();
      const run = await ctx.rest.ok('POST', '/api/v1/runs', { agent_id: ctx.echoAgent, input: text('hi') });
      await runItemsOverSse(service.url, service.apiKey, run.id);
      sse.push(performance.now() - started);
    }
    const stopPeak = peakMemory(ctx);
    const levels = [];
    for (const concurrency of LEVELS) {
      log(label, `concurrency ${concurrency}`);
      const runs = runsPerLevel(concurrency);
      const measured = await phase(ctx, () => atConcurrency(ctx, concurrency, runs));
      levels.push({ concurrency, ...measured.result, cpuPerRun: measured.cpuMs / runs });
    }
    const loaded = stopPeak();
    log(label, 'resume, fork, inbox');
    const trips = await roundTrips(ctx);
    log(label, 'fan-out');
    const fanOutOne = await fanOut(ctx, 1, FANOUT);
    const fanOutSpread = await fanOut(ctx, Math.min(100, FANOUT), FANOUT);
    log(label, 'storage floor');
    const floor = await measureFloor(service.databaseUrl, { sequential: SEQUENTIAL * 2, concurrency: 50, runs: 1000 });
    const cpu = process.cpuUsage(cpuAtStart);
    const clients = { cpuSeconds: (cpu.user + cpu.system) / 1e6, wallSeconds: (performance.now() - wallAtStart) / 1000 };
    return {
      clients,
      label,
      idle,
      loaded,
      subscription: quantiles(sequential.result.map((r) => r.total)),
      sse: quantiles(sse),
      httpWait: httpWait && quantiles(httpWait),
      postToFirstItem: quantiles(sequential.result.map((r) => r.postToFirstItem)),
      subscribeToFirstItem: quantiles(sequential.result.map((r) => r.subscribeToFirstItem)),
      levels,
      cpuPerRun: sequential.cpuMs / SEQUENTIAL,
      nodeCpuPerRun: sequential.nodeCpuMs / SEQUENTIAL,
      trips,
      fanOutOne,
      fanOutSpread,
      floor,
    };
  } finally {
    await ctx.subscribers.close();
    await service.stop();
    await loopback.close();
  }
}

function log(label: string, step: string) {
  process.stderr.write(`[${label}] ${step}\n`);
}

const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : value < 10 ? value.toFixed(2) : value.toFixed(1));
const mem = (m: Memory) => `${m.pssMb.toFixed(0)} (${m.rssMb.toFixed(0)})`;

function report(results: PassResult[]): string[] {
  const rows: [string, ...string[]][] = [];
  const row = (name: string, cell: (r: PassResult) => string) => rows.push([name, ...results.map(cell)]);
  row('create→sealed, runItems subscription (graphql-ws) p50 / p95 ms', (r) => `${ms(r.subscription.p50)} / ${ms(r.subscription.p95)}`);
  row('create→sealed, HTTP wait (Prefer: wait=30) p50 / p95 ms', (r) =>
    r.httpWait ? `${ms(r.httpWait.p50)} / ${ms(r.httpWait.p95)}` : 'n/a',
  );
  row('create→sealed, runItems over SSE p50 / p95 ms', (r) => `${ms(r.sse.p50)} / ${ms(r.sse.p95)}`);
  for (const [index, concurrency] of LEVELS.entries())
    row(
      `c=${concurrency} with a watcher per run: runs/s (p50 ms)`,
      (r) => `${r.levels[index]!.runsPerSecond.toFixed(0)} (${ms(r.levels[index]!.p50)})`,
    );
  row(
    'POST → first item at a subscriber opened after the POST p50 / p95 ms',
    (r) => `${ms(r.postToFirstItem.p50)} / ${ms(r.postToFirstItem.p95)}`,
  );
  row('  of which subscribe → first item p50 / p95 ms', (r) => `${ms(r.subscribeToFirstItem.p50)} / ${ms(r.subscribeToFirstItem.p95)}`);
  row(`chunk → ${FANOUT} subscribers of one run p50 / p99 ms`, (r) => `${ms(r.fanOutOne.p50)} / ${ms(r.fanOutOne.p99)}`);
  row(
    `chunk → ${FANOUT} subscribers over ${Math.min(100, FANOUT)} runs p50 / p99 ms`,
    (r) => `${ms(r.fanOutSpread.p50)} / ${ms(r.fanOutSpread.p99)}`,
  );
  row('resume → successor sealed p50 / p95 ms', (r) => `${ms(r.trips.resume.p50)} / ${ms(r.trips.resume.p95)}`);
  row('fork → forked run sealed p50 / p95 ms', (r) => `${ms(r.trips.fork.p50)} / ${ms(r.trips.fork.p95)}`);
  row('inbox (queue, idle thread) → run sealed p50 / p95 ms', (r) => `${ms(r.trips.inbox.p50)} / ${ms(r.trips.inbox.p95)}`);
  row('server CPU ms per watched run, sequential (node part)', (r) => `${ms(r.cpuPerRun)} (${ms(r.nodeCpuPerRun)})`);
  for (const [index, concurrency] of LEVELS.entries())
    row(`server CPU ms per run at c=${concurrency}`, (r) => ms(r.levels[index]!.cpuPerRun));
  row('node MB idle, PSS (RSS)', (r) => mem(r.idle.node));
  row('PostgreSQL MB idle, PSS (RSS)', (r) => mem(r.idle.postgres));
  row('node MB loaded (peak), PSS (RSS)', (r) => mem(r.loaded.node));
  row('PostgreSQL MB loaded (peak), PSS (RSS)', (r) => mem(r.loaded.postgres));
  row('storage floor: 5 statements p50 / p95 ms', (r) => `${ms(r.floor.p50)} / ${ms(r.floor.p95)}`);
  row('storage floor: runs/s at c=50', (r) => r.floor.runsPerSecond.toFixed(0));
  const cores = machine.cores;
  row(
    `bench clients' CPU s over the pass / its wall s (share of ${cores} cores)`,
    (r) =>
      `${r.clients.cpuSeconds.toFixed(1)} / ${r.clients.wallSeconds.toFixed(0)} (${((100 * r.clients.cpuSeconds) / (r.clients.wallSeconds * cores)).toFixed(0)}%)`,
  );
  const tables = [markdownTable(['', ...results.map((r) => r.label)], rows)];

  const c50 = LEVELS.indexOf(50);
  const targets: [string, (r: PassResult) => [number, number, string]][] = [
    ['create→sealed p50 (subscription) ≤ 4× floor p50', (r) => [r.subscription.p50 / r.floor.p50, 4, '×']],
    ...(c50 >= 0
      ? ([['runs/s at c=50 ≥ ¼ of floor runs/s', (r) => [r.floor.runsPerSecond / r.levels[c50]!.runsPerSecond, 4, '× below floor']]] as [
          string,
          (r: PassResult) => [number, number, string],
        ][])
      : []),
    ['server CPU per watched run ≤ 6 ms', (r) => [r.cpuPerRun, 6, ' ms']],
    ['first item to a late subscriber ≤ 5 ms after subscribing', (r) => [r.subscribeToFirstItem.p50, 5, ' ms']],
    ['resume round trip ≤ 2× a new run', (r) => [r.trips.resume.p50 / r.subscription.p50, 2, '×']],
    ['fork round trip ≤ 2× a new run', (r) => [r.trips.fork.p50 / r.subscription.p50, 2, '×']],
    ['inbox round trip ≤ 2× a new run', (r) => [r.trips.inbox.p50 / r.subscription.p50, 2, '×']],
    [`fan-out to ${FANOUT} subscribers (one run) p99 ≤ 100 ms`, (r) => [r.fanOutOne.p99, 100, ' ms']],
    ['whole tree idle ≤ 400 MB (PSS)', (r) => [r.idle.node.pssMb + r.idle.postgres.pssMb, 400, ' MB']],
  ];
  tables.push(
    markdownTable(
      ['target', ...results.map((r) => r.label)],
      targets.map(([name, measure]) => [
        name,
        ...results.map((r) => {
          const [value, limit, unit] = measure(r);
          return `${value.toFixed(value < 10 ? 2 : 0)}${unit} ${value <= limit ? 'met' : 'NOT met'}`;
        }),
      ]),
    ),
  );
  return tables;
}

/** Start-up, compiled (`npm start`) against tsx, medians of alternated restarts on one embedded database. */
function startupTable(startup: StartupResult): string {
  const { compiled, tsx } = startup;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  return markdownTable(
    [`start-up (restart on the embedded database; median of ${compiled.starts})`, 'compiled (npm start)', 'tsx', 'compiled / tsx'],
    [
      ['spawn → ready (/readyz) ms', ms(compiled.readyMs), ms(tsx.readyMs), ratio(compiled.readyMs, tsx.readyMs)],
      ['node CPU until ready ms', ms(compiled.nodeCpuMs), ms(tsx.nodeCpuMs), ratio(compiled.nodeCpuMs, tsx.nodeCpuMs)],
      ['node MB at ready, PSS (RSS)', mem(compiled.memory), mem(tsx.memory), ratio(compiled.memory.pssMb, tsx.memory.pssMb)],
    ],
  );
}

const machine = machineAtStart();
const startup = STARTS > 0 ? await measureStartup(STARTS, (step) => log('start-up', step)) : null;
const results: PassResult[] = [];
if (PASSES.includes('embedded')) results.push(await measurePass('embedded PostgreSQL', null));
if (PASSES.includes('server')) {
  const database = await freshServerDatabase(process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  if (database) {
    try {
      results.push(await measurePass('PostgreSQL server', database.url));
    } finally {
      await database.drop();
    }
  }
}
const sizes =
  `${SEQUENTIAL} sequential runs per row, ${LEVELS.map((c) => `${runsPerLevel(c)} runs at c=${c}`).join(', ')}, ` +
  `${ROUND_TRIPS} round trips each, ${CHUNKS} chunks per fan-out, ${FANOUT} fan-out subscribers; the service runs ` +
  `what \`npm start\` runs. Latencies, runs/s and server CPU are measured by the bench's clients, outside the service's ` +
  `processes; server CPU from /proc/<pid>/stat, memory PSS (RSS) from /proc/<pid>/smaps_rollup. The clients share the ` +
  `machine with the service (and with whatever else ran: see the load average).`;
const document = [resultsHeader(machine), sizes, ...(startup ? [startupTable(startup)] : []), ...report(results)].join('\n\n') + '\n';
console.log(`\n${document}`);
mkdirSync(dirname(RUNS_RESULTS.path), { recursive: true });
writeFileSync(RUNS_RESULTS.path, document);
writeFileSync(README_FILE, withQuotedResults(readFileSync(README_FILE, 'utf8'), document));
process.stderr.write(`written to bench/results/runs.md and quoted in README.md\n`);
process.exit(0);
