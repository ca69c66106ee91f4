// npm run bench:workload: the real-workload benchmark, black-box like `npm run bench` — the service
// started as users start it (a child process; on its embedded PostgreSQL, on a PostgreSQL server, or as
// an API instance and a worker process over PostgreSQL and Redis), real HTTP and graphql-ws clients, CPU
// and memory read from /proc from outside. The model is a loopback process streaming realistic runs
// (time to first token, 30–100 tokens/s, answers of hundreds of tokens, several turns with MCP, plugin
// and client tool calls, some large results), each token stamped with its emission time. N conversations
// start at once, each watched by a subscriber; N grows until the p99 token delay passes the limit or
// errors appear. See docs/benchmarks.md ("Workload benchmark") for the columns and the knobs.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { README_FILE, WORKLOAD_RESULTS, machineAtStart, resultsHeader, withQuotedResults } from './blackbox/results-file.js';
import { Rest, Subscribers } from './blackbox/clients.js';
import { freshServerDatabase, startService, type Service } from './blackbox/service.js';
import { setupLoopbackAgent } from './workload/agent.js';
import { DatabaseCounters } from './workload/database.js';
import { runLevel, type LevelContext, type LevelResult } from './workload/level.js';
import { startLoopback, type Loopback } from './workload/loopback.js';
import { parseRange, seededRandom, type PlanKnobs } from './workload/plan.js';
import { modeTable } from './workload/report.js';
import { chooseTransport } from './workload/watch.js';

const env = (name: string, fallback: string) => process.env[name]?.trim() || fallback;
const num = (name: string, fallback: number) => Number(env(name, String(fallback)));
const LEVELS = env('BENCH_LEVELS', '10,100,500,1000,2000').split(',').map(Number);
const MODES = env('BENCH_MODES', 'embedded,server,workers')
  .split(',')
  .map((mode) => mode.trim());
const ADMIN_URL = env('BENCH_DATABASE_URL', 'postgresql://postgres@127.0.0.1:5432/postgres');
const REDIS_URL = env('BENCH_REDIS_URL', 'redis://127.0.0.1:6379');
const KNOBS: PlanKnobs = {
  ttftMs: parseRange(env('BENCH_TTFT_MS', '300-800')),
  tokensPerSecond: parseRange(env('BENCH_TOKENS_PER_SECOND', '30-100')),
  answerTokens: parseRange(env('BENCH_ANSWER_TOKENS', '200-800')),
  turns: parseRange(env('BENCH_TURNS', '3-10')),
  clientToolShare: num('BENCH_CLIENT_TOOL_SHARE', 0.2),
  largeResultShare: num('BENCH_LARGE_RESULT_SHARE', 0.1),
  largeResultKb: parseRange(env('BENCH_LARGE_RESULT_KB', '50-200')),
  smallResultBytes: num('BENCH_SMALL_RESULT_BYTES', 400),
};
const CONNECTIONS = num('BENCH_CONNECTIONS', 20);
const P99_LIMIT_MS = num('BENCH_P99_LIMIT_MS', 100);
const SHARE = num('BENCH_HELD_SHARE', 0.9);
const WINDOW_MS = num('BENCH_STREAM_WINDOW_MS', 2000);
const PACE_TOLERANCE = num('BENCH_PACE_TOLERANCE', 1.25);
const SETTLE_MS = num('BENCH_STATS_SETTLE_MS', 11_000);
const TIMEOUT_MS = num('BENCH_LEVEL_TIMEOUT_S', 900) * 1000;
const FORCE_SNAPSHOTS = /^(1|true|yes)$/i.test(env('BENCH_SNAPSHOTS', 'false'));
const SWEEP_ALL = /^(1|true|yes)$/i.test(env('BENCH_SWEEP_ALL', 'false'));
const SEED = num('BENCH_SEED', 1);
// Off for A/B pairs and quick looks, which must not rewrite the committed figures.
const WRITE_RESULTS = !/^(0|false|no)$/i.test(env('BENCH_WRITE_RESULTS', 'true'));
// Every conversation of the largest level is live at once: the service needs a worker slot for each,
// up to the 1,000 slots RUN_WORKERS allows (above that, runs queue for a slot: their wait counts as delay).
const RUN_WORKERS = env('BENCH_RUN_WORKERS', String(Math.min(1000, Math.max(...LEVELS) + 10)));
const EPOCH = Math.floor(performance.timeOrigin + performance.now());

const log = (label: string) => (step: string) => process.stderr.write(`[${label}] ${step}\n`);

async function sweep(label: string, service: Service, loopback: Loopback, metricsToken: string): Promise<LevelResult[]> {
  const rest = new Rest(service.url, service.apiKey);
  const subscribers = new Subscribers(service.url, service.apiKey, CONNECTIONS);
  const counters = await DatabaseCounters.open(service.databaseUrl);
  const results: LevelResult[] = [];
  try {
    const transport = await chooseTransport(rest, FORCE_SNAPSHOTS);
    log(label)(`subscribers receive ${transport === 'deltas' ? 'deltas (runItemEvents)' : 'item snapshots (runItems)'}`);
    const ctx: LevelContext = {
      service,
      metricsToken,
      rest,
      subscribers,
      transport,
      loopback,
      counters,
      agentId: await setupLoopbackAgent(rest, loopback, 'workload'),
      epoch: EPOCH,
      knobs: KNOBS,
      random: seededRandom(SEED),
      settleMs: SETTLE_MS,
      timeoutMs: TIMEOUT_MS,
      windowMs: WINDOW_MS,
      paceTolerance: PACE_TOLERANCE,
      limits: { p99DelayMs: P99_LIMIT_MS, share: SHARE },
    };
    // A warm-up the table leaves out: the service's first runs load code, open the MCP client and plan
    // their statements, which would otherwise land in the first level's delays.
    log(label)('warm-up');
    const warmKnobs: PlanKnobs = {
      ...KNOBS,
      turns: { min: 3, max: 3 },
      answerTokens: { min: 20, max: 20 },
      clientToolShare: 1,
      largeResultShare: 1,
    };
    await runLevel({ ...ctx, knobs: warmKnobs, settleMs: 0 }, 4, log(label));
    for (const n of LEVELS) {
      log(label)(`N=${n}`);
      const result = await runLevel(ctx, n, log(label));
      results.push(result);
      log(label)(
        `N=${n}: p99 ${result.p99DelayMs.toFixed(0)} ms, ${result.errors.length} errors, ${result.held.held ? 'held' : 'not held'}`,
      );
      // The sweep stops where streaming falls behind or fails (BENCH_SWEEP_ALL runs every level anyway).
      if (!SWEEP_ALL && (result.p99DelayMs > P99_LIMIT_MS || result.errors.length > 0)) break;
    }
    tables.push(modeTable(`${label}, ${transport}`, results));
    console.log(`\n${tables.at(-1)}`);
  } finally {
    await subscribers.close();
    await counters.close();
  }
  return results;
}

async function mode(name: string): Promise<void> {
  const label = { embedded: 'embedded PostgreSQL', server: 'PostgreSQL server', workers: 'API + worker, PostgreSQL + Redis' }[name];
  if (!label) throw new Error(`unknown mode ${name}: embedded, server or workers`);
  const metricsToken = randomBytes(24).toString('hex');
  const database = name === 'embedded' ? null : await freshServerDatabase(ADMIN_URL);
  if (name !== 'embedded' && !database) return;
  const loopback = await startLoopback(EPOCH);
  const serviceEnv = { RUN_WORKERS, METRICS_TOKEN: metricsToken };
  // A service that fails to start must not leave the loopback model running behind the bench.
  const service = await startService({
    databaseUrl: database?.url ?? null,
    env: name === 'workers' ? { ...serviceEnv, RUN_WORKERS: '0', REDIS_URL } : serviceEnv,
    ...(name === 'workers' ? { workers: { count: 1, env: { RUN_WORKERS, REDIS_URL } } } : {}),
  }).catch(async (error: unknown) => {
    await loopback.close();
    await database?.drop();
    throw error;
  });
  try {
    await sweep(label, service, loopback, metricsToken);
    const stats = await loopback.stats();
    if (stats.unplanned) console.log(`the model answered ${stats.unplanned} requests past their run's plan (retries?)`);
  } finally {
    await service.stop();
    await loopback.close();
    await database?.drop();
  }
}

const machine = machineAtStart();
const span = (range: { min: number; max: number }) => (range.min === range.max ? `${range.min}` : `${range.min}–${range.max}`);
const settings =
  `Levels ${LEVELS.join(', ')} (a level runs N conversations at once, each watched by a subscriber from its creation); turns ${span(KNOBS.turns)}, answers ${span(KNOBS.answerTokens)} tokens, ` +
  `${span(KNOBS.tokensPerSecond)} tokens/s, first token after ${span(KNOBS.ttftMs)} ms, ` +
  `client tool in ${KNOBS.clientToolShare * 100} % of runs, large results (${span(KNOBS.largeResultKb)} KB) in ${KNOBS.largeResultShare * 100} % of server tool calls, ` +
  `the tool server lists its tools in ${env('BENCH_MCP_LIST_MS', '0')} ms; ${CONNECTIONS} graphql-ws connections; a level is held when its p99 token delay is at most ${P99_LIMIT_MS} ms, ` +
  `nothing failed and at least ${SHARE * 100} % of its runs streamed at once (within ${WINDOW_MS} ms) and within ${PACE_TOLERANCE}× the model's pace. ` +
  `The service runs what \`npm start\` runs; its CPU and memory are read from /proc, the figures by the bench's clients outside its processes; ` +
  `the clients and the loopback model share the machine with it (their CPU rows say how much they took).`;
console.log(settings);
const tables: string[] = [];
for (const name of MODES) await mode(name);
if (WRITE_RESULTS && tables.length) {
  const document = [resultsHeader(machine, WORKLOAD_RESULTS.command), settings, ...tables].join('\n\n') + '\n';
  mkdirSync(dirname(WORKLOAD_RESULTS.path), { recursive: true });
  writeFileSync(WORKLOAD_RESULTS.path, document);
  writeFileSync(README_FILE, withQuotedResults(readFileSync(README_FILE, 'utf8'), document, WORKLOAD_RESULTS));
  process.stderr.write('written to bench/results/workload.md and quoted in README.md\n');
}
process.exit(0);
