// npm run bench:budgets: what a budget costs the runs under it, from outside. One service started as
// users start it (a child process running what `npm start` runs) on a fresh database of the PostgreSQL
// server, with the offline development model and two agents on it: `budgeted`, under a `notify` budget
// of its own whose limit is out of reach (so every model request is admitted by the counter statement
// and every attempt settled, and nothing is ever refused), and `free`, under no budget (the workspace
// has budgets, so this also shows that a run no budget applies to pays nothing). The comparison is
// within one process, so nothing but the budget differs between the columns. Runs are started with
// `Prefer: wait` (POST /api/v1/runs answers when the run is sealed), the two agents interleaved finely
// so the machine's noise falls on both alike: BENCH_CLIENTS clients drive one agent for BENCH_SLICE_MS,
// then the other, BENCH_SLICES times each (the order alternating), for runs/s; then one client starts
// BENCH_PAIRS pairs of runs, one per agent (which goes first alternating), for the latency of a run
// alone and the budget's added part — the median of the pairs' differences. Prints the load average
// at the start and the end beside the figures.
//
// Env: BENCH_DATABASE_URL (an admin URL of the PostgreSQL server; default
// postgresql://postgres@127.0.0.1:5432/postgres), BENCH_SLICES (16 per agent), BENCH_SLICE_MS (500),
// BENCH_CLIENTS (8), BENCH_PAIRS (200).
import { execSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { Rest, addEchoModel } from './blackbox/clients.js';
import { freshServerDatabase, startService } from './blackbox/service.js';
import { percentile } from './blackbox/stats.js';

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const SLICES = number('BENCH_SLICES', 16);
const SLICE_MS = number('BENCH_SLICE_MS', 500);
const CLIENTS = number('BENCH_CLIENTS', 8);
const PAIRS = number('BENCH_PAIRS', 200);

interface Measure {
  label: string;
  agentId: string;
  runs: number;
  elapsedMs: number;
  sliceRates: number[];
  latencies: number[];
}

const input = { content: [{ type: 'text', text: 'hello' }] };

/** One run, started and waited for in the same request; its wall time. */
async function run(rest: Rest, agentId: string): Promise<number> {
  const started = performance.now();
  const answer = await rest.call('POST', '/api/v1/runs', { agent_id: agentId, input }, { prefer: 'wait=60' });
  if (answer.status !== 201 || answer.body.status !== 'completed') throw new Error(`run: ${answer.status} ${JSON.stringify(answer.body)}`);
  return performance.now() - started;
}

async function slice(rest: Rest, measure: Measure) {
  const started = performance.now();
  const until = started + SLICE_MS;
  let runs = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        await run(rest, measure.agentId);
        runs++;
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  measure.runs += runs;
  measure.elapsedMs += elapsedMs;
  measure.sliceRates.push(runs / (elapsedMs / 1000));
}

const row = (cells: (string | number)[]) => console.log(`| ${cells.join(' | ')} |`);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

async function main() {
  const loadAtStart = load();
  const database = await freshServerDatabase(ADMIN_URL, 'budgets');
  if (!database) throw new Error(`no PostgreSQL server at ${ADMIN_URL}`);
  const service = await startService({ databaseUrl: database.url });
  try {
    const rest = new Rest(service.url, service.apiKey);
    await addEchoModel(rest);
    const budgeted = await rest.ok('POST', '/api/v1/agents', { name: 'budgeted', config: { model: 'dev' } });
    const free = await rest.ok('POST', '/api/v1/agents', { name: 'free', config: { model: 'dev' } });
    const budget = await rest.ok('POST', '/api/v1/budgets', {
      name: 'bench',
      scope: { kind: 'agent', id: budgeted.id },
      period: 'month',
      limit: { tokens: Number.MAX_SAFE_INTEGER },
      action: 'notify',
    });
    const measures: Measure[] = [
      { label: 'under a budget', agentId: budgeted.id, runs: 0, elapsedMs: 0, sliceRates: [], latencies: [] },
      { label: 'under none', agentId: free.id, runs: 0, elapsedMs: 0, sliceRates: [], latencies: [] },
    ];
    const [withBudget, without] = measures as [Measure, Measure];
    // Warm-up: connections, prepared statements, the configuration caches and the JIT of the service.
    for (let i = 0; i < 2; i++) for (const measure of measures) await slice(rest, measure);
    for (const measure of measures) Object.assign(measure, { runs: 0, elapsedMs: 0, sliceRates: [], latencies: [] });
    for (let s = 0; s < SLICES; s++) for (const measure of s % 2 === 0 ? measures : [without, withBudget]) await slice(rest, measure);
    const differences: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const order = i % 2 === 0 ? [withBudget, without] : [without, withBudget];
      const ms = new Map<Measure, number>();
      for (const measure of order) {
        const latency = await run(rest, measure.agentId);
        measure.latencies.push(latency);
        ms.set(measure, latency);
      }
      differences.push(ms.get(withBudget)! - ms.get(without)!);
    }
    // Proof that the budget counted every run under it (a request each: the development model's).
    const counted = await rest.ok('GET', `/api/v1/budgets/${budget.id}`);

    const commit = execSync('git rev-parse --short HEAD').toString().trim();
    console.log(
      `\nBudget cost per run — ${new Date().toISOString().slice(0, 10)}, commit ${commit}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), load average ${loadAtStart} at the start, ${load()} at the end`,
    );
    console.log(
      `POST /api/v1/runs with Prefer: wait (development model, one request a run): ${CLIENTS} clients, ${SLICES} slices of ${SLICE_MS} ms per agent, alternating; then ${PAIRS} sequential pairs\n`,
    );
    row(['agent', 'runs/s', 'slices (min–max runs/s)', 'run alone p50 ms', 'p90 ms']);
    row(['---', '---', '---', '---', '---']);
    const rate = (m: Measure) => m.runs / (m.elapsedMs / 1000);
    for (const m of measures)
      row([
        m.label,
        rate(m).toFixed(1),
        `${Math.min(...m.sliceRates).toFixed(1)}–${Math.max(...m.sliceRates).toFixed(1)}`,
        percentile(m.latencies, 50).toFixed(2),
        percentile(m.latencies, 90).toFixed(2),
      ]);
    console.log(
      `\nruns/s under a budget ÷ under none: ${(rate(withBudget) / rate(without)).toFixed(3)}; added latency (median of pair differences): ${percentile(differences, 50).toFixed(2)} ms`,
    );
    console.log(`the budget counted ${counted.spent.tokens} tokens, in flight now ${counted.in_flight}`);
  } finally {
    await service.stop();
    await database.drop();
  }
}

await main();
