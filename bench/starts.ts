// npm run bench:starts: what starting many runs at once costs, from outside. The service is started as
// users start it (a child process on its embedded PostgreSQL), the model is the workload bench's
// loopback process, and the agent is the workload bench's (an openai_compatible model, an MCP connection
// and the http_request plugin; BENCH_STARTS_TOOLS narrows it). Each wave POSTs N runs at once; the model
// holds every run's first token for BENCH_STARTS_TTFT_MS (3 s), so what a wave measures is the starts
// alone, not streaming: from the POSTs to every run's first model request. Reported per wave:
// - the POST answers' p50 and max, and the first model requests' p50, p99 and max (ms since the POSTs);
// - node's and PostgreSQL's CPU per run over the same span, read from /proc;
// - the `tools/list` requests the MCP server answered, and the statements PostgreSQL executed per run
//   (pg_stat_statements, nested ones included: the webhook checks inside the run's statement count).
// The first wave (10 runs) warms the service up and is left out of the table.
//
// Env: BENCH_STARTS_N (300), BENCH_STARTS_WAVES (2), BENCH_STARTS_TOOLS (mcp,plugin; `none`, or any of
// mcp, plugin, client), BENCH_STARTS_TTFT_MS (3000).
import pg from 'pg';
import { Rest } from './blackbox/clients.js';
import { startService } from './blackbox/service.js';
import { percentile } from './blackbox/stats.js';
import { AGENT_TOOLS, setupLoopbackAgent, type AgentTool } from './workload/agent.js';
import { startLoopback } from './workload/loopback.js';
import { drawPlan, planInput, seededRandom, type PlanKnobs } from './workload/plan.js';

const num = (name: string, fallback: number) => Number(process.env[name]?.trim() || fallback);
const N = num('BENCH_STARTS_N', 300);
const WAVES = num('BENCH_STARTS_WAVES', 2);
const TTFT_MS = num('BENCH_STARTS_TTFT_MS', 3000);
const TOOLS = (process.env.BENCH_STARTS_TOOLS?.trim() || 'mcp,plugin')
  .split(',')
  .map((tool) => tool.trim())
  .filter((tool): tool is AgentTool => (AGENT_TOOLS as string[]).includes(tool));
const EPOCH = Math.floor(performance.timeOrigin + performance.now());
const KNOBS: PlanKnobs = {
  ttftMs: { min: TTFT_MS, max: TTFT_MS },
  tokensPerSecond: { min: 100, max: 100 },
  answerTokens: { min: 5, max: 5 },
  turns: { min: 1, max: 1 },
  clientToolShare: 0,
  largeResultShare: 0,
  largeResultKb: { min: 1, max: 1 },
  smallResultBytes: 10,
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const loopback = await startLoopback(EPOCH);
const service = await startService({
  databaseUrl: null,
  env: {
    RUN_WORKERS: String(Math.min(1000, N + 10)),
    EMBEDDED_PG_SETTINGS: 'shared_preload_libraries=pg_stat_statements pg_stat_statements.track=all',
  },
}).catch(async (error: unknown) => {
  await loopback.close();
  throw error;
});
const db = new pg.Client({ connectionString: service.databaseUrl });
try {
  await db.connect();
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const rest = new Rest(service.url, service.apiKey);
  const agentId = await setupLoopbackAgent(rest, loopback, 'starts', TOOLS);
  const random = seededRandom(1);

  const wave = async (label: string, n: number) => {
    const plans = Array.from({ length: n }, (_, index) => drawPlan(`${label}-${index}`, KNOBS, random));
    await db.query('SELECT pg_stat_statements_reset()');
    const listingsBefore = (await loopback.stats()).toolListings;
    const cpuBefore = service.processes.cpu();
    const started = performance.now();
    const answered: number[] = [];
    await Promise.all(
      plans.map(async (plan) => {
        await rest.ok('POST', '/api/v1/runs', { agent_id: agentId, input: { content: [{ type: 'text', text: planInput(plan) }] } });
        answered.push(performance.now() - started);
      }),
    );
    let stats = await loopback.stats();
    while (!plans.every((plan) => stats.firstRequests[plan.id] !== undefined)) {
      await sleep(20);
      stats = await loopback.stats();
    }
    const cpuAfter = service.processes.cpu();
    const statements = Number(
      (
        await db.query(
          `SELECT coalesce(sum(calls), 0)::float8 AS calls FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'`,
        )
      ).rows[0].calls,
    );
    const postedAt = performance.timeOrigin + started - EPOCH;
    const firsts = plans.map((plan) => stats.firstRequests[plan.id]! - postedAt).sort((a, b) => a - b);
    answered.sort((a, b) => a - b);
    // The runs end after their first token: wait for them before the next wave.
    while ((await rest.ok('GET', '/api/v1/runs?limit=1&status=accepted,running')).items.length) await sleep(200);
    return {
      wave: label,
      runs: n,
      'POST answered p50 / max ms': `${percentile(answered, 50).toFixed(0)} / ${answered.at(-1)!.toFixed(0)}`,
      'first model request p50 / p99 / max ms': `${percentile(firsts, 50).toFixed(0)} / ${percentile(firsts, 99).toFixed(0)} / ${firsts.at(-1)!.toFixed(0)}`,
      'node CPU ms per run': ((cpuAfter.nodeMs - cpuBefore.nodeMs) / n).toFixed(1),
      'PostgreSQL CPU ms per run': ((cpuAfter.postgresMs - cpuBefore.postgresMs) / n).toFixed(1),
      'tools/list answered': stats.toolListings - listingsBefore,
      'statements per run': (statements / n).toFixed(1),
    };
  };

  await wave('warm-up', 10);
  const rows = [];
  for (let index = 1; index <= WAVES; index += 1) rows.push(await wave(String(index), N));
  console.log(`bench:starts, ${N} runs per wave, agent tools: ${TOOLS.join(', ') || 'none'}, first token held ${TTFT_MS} ms`);
  console.table(rows);
} finally {
  await db.end().catch(() => undefined);
  await service.stop();
  await loopback.close();
}
process.exit(0);
