// One level of the sweep: N conversations started at once, each a run of the workload's agent watched by a
// subscriber from its creation, resumed with the client tool's answer when it waits for it, until it
// completes. Measured around it from outside: the service's CPU and memory (/proc), the bench's own CPU
// and the loopback process's, the database's counters, and the service's operator metrics.
import type { Rest, Subscribers } from '../blackbox/clients.js';
import type { Memory } from '../blackbox/proc.js';
import type { Service } from '../blackbox/service.js';
import { percentile } from '../blackbox/stats.js';
import type { DatabaseCounters, DbCounters } from './database.js';
import { walBytes } from './database.js';
import type { Loopback } from './loopback.js';
import { levelMetrics, scrape, type LevelMetrics } from './metrics.js';
import { drawPlan, planInput, plannedStreamingMs, type Plan, type PlanKnobs, type Random } from './plan.js';
import { judgeLevel, maxStreamingAtOnce, paceRatio, type Held } from './saturation.js';
import { sinceEpoch } from './stamps.js';
import { watchRun, type Received, type Transport } from './watch.js';

export interface LevelContext {
  service: Service;
  metricsToken: string;
  rest: Rest;
  subscribers: Subscribers;
  transport: Transport;
  loopback: Loopback;
  counters: DatabaseCounters;
  agentId: string;
  epoch: number;
  knobs: PlanKnobs;
  random: Random;
  settleMs: number;
  timeoutMs: number;
  windowMs: number;
  paceTolerance: number;
  limits: { p99DelayMs: number; share: number };
}

export interface LevelResult {
  n: number;
  wallSeconds: number;
  modelRuns: number;
  tokens: number;
  plannedTokens: number;
  p50DelayMs: number;
  p99DelayMs: number;
  maxDelayMs: number;
  /** From the POST of a conversation's first run to its first model request, p50 / p99 ms (the service's start of a run). */
  startMs: { p50: number; p99: number };
  streamingAtOnce: number;
  atPace: number;
  medianPace: number;
  errors: string[];
  held: Held;
  serverCpuMs: { node: number; postgres: number };
  /** Time the service's processes waited for a core (run queue), ms. */
  runQueueWaitMs: number;
  benchCpuMs: number;
  loopbackCpuMs: number;
  memoryPerRunMb: { node: number; postgres: number };
  db: { rows: number; bytes: number; wal: number };
  metrics: LevelMetrics;
}

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
let keys = 0;

interface Conversation extends Received {
  plan: Plan;
  /** When its first run was posted, ms since the epoch. */
  postedAt?: number;
  runs: number;
  errors: string[];
  done: boolean;
}

/** One conversation: the run, and its successors after each client-tool answer. */
async function converse(ctx: LevelContext, conversation: Conversation): Promise<void> {
  try {
    conversation.postedAt = sinceEpoch(ctx.epoch);
    let run = await ctx.rest.ok('POST', '/api/v1/runs', { agent_id: ctx.agentId, input: text(planInput(conversation.plan)) });
    for (;;) {
      conversation.runs += 1;
      await watchRun(ctx.subscribers, ctx.transport, run.id, ctx.epoch, conversation);
      const state = await ctx.rest.ok('GET', `/api/v1/runs/${run.id}`);
      if (state.status === 'completed') break;
      const calls: { tool_call_id: string }[] = state.pending?.calls ?? [];
      if (state.status !== 'waiting' || calls.length === 0) {
        conversation.errors.push(`run ${state.status}: ${JSON.stringify(state.failure ?? state.wait_reason ?? null).slice(0, 200)}`);
        break;
      }
      // The bench is the client: it answers its tool as an application would, through the public API.
      run = await ctx.rest.ok(
        'POST',
        `/api/v1/runs/${run.id}/resume`,
        { calls: Object.fromEntries(calls.map((call) => [call.tool_call_id, { status: 'returned', value: 'yes, go on' }])) },
        { 'idempotency-key': `workload-${process.pid}-${++keys}` },
      );
    }
  } catch (error) {
    conversation.errors.push((error as Error).message.slice(0, 300));
  } finally {
    conversation.done = true;
  }
}

function peakMemory(service: Service) {
  let peak = service.processes.memory();
  const timer = setInterval(() => {
    const now = service.processes.memory();
    if (now.node.pssMb > peak.node.pssMb) peak = { ...peak, node: now.node };
    if (now.postgres.pssMb > peak.postgres.pssMb) peak = { ...peak, postgres: now.postgres };
  }, 1000);
  return () => (clearInterval(timer), peak);
}

export async function runLevel(ctx: LevelContext, n: number, log: (step: string) => void): Promise<LevelResult> {
  const plans = Array.from({ length: n }, (_, index) => drawPlan(`n${n}r${index}`, ctx.knobs, ctx.random));
  const conversations: Conversation[] = plans.map((plan) => ({
    plan,
    runs: 0,
    errors: [],
    done: false,
    receipts: [],
    delays: [],
    gaps: 0,
  }));
  const dbBefore: DbCounters = await ctx.counters.read(ctx.settleMs);
  const idle: { node: Memory; postgres: Memory } = ctx.service.processes.memory();
  const metricsStart = await scrape(ctx.service.url, ctx.metricsToken);
  const cpuBefore = ctx.service.processes.cpu();
  const waitBefore = ctx.service.processes.runQueueWaitMs();
  const benchBefore = process.cpuUsage();
  const loopbackBefore = ctx.loopback.cpuMs();
  const stopPeak = peakMemory(ctx.service);
  const started = performance.now();
  const progress = setInterval(() => {
    const done = conversations.filter((c) => c.done).length;
    const tokens = conversations.reduce((sum, c) => sum + c.delays.length, 0);
    log(`N=${n}: ${done}/${n} done, ${tokens} tokens, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }, 15_000);
  let timedOut = false;
  await Promise.race([
    Promise.all(conversations.map((conversation) => converse(ctx, conversation))),
    new Promise<void>((resolve) => setTimeout(() => ((timedOut = true), resolve()), ctx.timeoutMs).unref()),
  ]);
  clearInterval(progress);
  const wallSeconds = (performance.now() - started) / 1000;
  const benchAfter = process.cpuUsage(benchBefore);
  const cpuAfter = ctx.service.processes.cpu();
  const runQueueWaitMs = ctx.service.processes.runQueueWaitMs() - waitBefore;
  const loopbackCpuMs = ctx.loopback.cpuMs() - loopbackBefore;
  const metricsEnd = await scrape(ctx.service.url, ctx.metricsToken);
  const peak = stopPeak();
  const dbAfter = await ctx.counters.read(ctx.settleMs);
  const { firstRequests } = await ctx.loopback.stats();
  const starts = conversations.flatMap((c) =>
    c.postedAt !== undefined && firstRequests[c.plan.id] !== undefined ? [firstRequests[c.plan.id]! - c.postedAt] : [],
  );

  const errors = conversations.flatMap((c) => c.errors);
  if (timedOut) errors.push(`${conversations.filter((c) => !c.done).length} conversations unfinished after ${ctx.timeoutMs / 1000} s`);
  for (const c of conversations) {
    const planned = c.plan.turns.reduce((sum, turn) => sum + turn.tokens, 0);
    if (c.done && c.errors.length === 0 && c.delays.length !== planned)
      errors.push(`${c.plan.id}: ${c.delays.length} of ${planned} tokens reached the subscriber`);
    if (c.gaps) errors.push(`${c.plan.id}: ${c.gaps} deltas past the text read so far`);
  }
  const delays = conversations.flatMap((c) => c.delays);
  const paces = conversations.map((c) => paceRatio(c.receipts, plannedStreamingMs(c.plan)));
  const atPace = paces.filter((ratio) => ratio <= ctx.paceTolerance).length;
  const streamingAtOnce = maxStreamingAtOnce(
    conversations.map((c) => c.receipts),
    ctx.windowMs,
  );
  const p99DelayMs = percentile(delays, 99);
  return {
    n,
    wallSeconds,
    modelRuns: conversations.reduce((sum, c) => sum + c.runs, 0),
    tokens: delays.length,
    plannedTokens: plans.reduce((sum, plan) => sum + plan.turns.reduce((total, turn) => total + turn.tokens, 0), 0),
    p50DelayMs: percentile(delays, 50),
    p99DelayMs,
    maxDelayMs: delays.reduce((max, value) => Math.max(max, value), 0),
    startMs: { p50: percentile(starts, 50), p99: percentile(starts, 99) },
    streamingAtOnce,
    atPace,
    medianPace: percentile(
      paces.filter((ratio) => !Number.isNaN(ratio)),
      50,
    ),
    errors,
    held: judgeLevel({ runs: n, p99DelayMs, errors: errors.length, streamingAtOnce, atPace, limits: ctx.limits }),
    serverCpuMs: { node: cpuAfter.nodeMs - cpuBefore.nodeMs, postgres: cpuAfter.postgresMs - cpuBefore.postgresMs },
    runQueueWaitMs,
    benchCpuMs: (benchAfter.user + benchAfter.system) / 1000,
    loopbackCpuMs,
    memoryPerRunMb: { node: (peak.node.pssMb - idle.node.pssMb) / n, postgres: (peak.postgres.pssMb - idle.postgres.pssMb) / n },
    db: { rows: dbAfter.rows - dbBefore.rows, bytes: dbAfter.bytes - dbBefore.bytes, wal: walBytes(dbBefore.walLsn, dbAfter.walLsn) },
    metrics: levelMetrics(metricsStart, metricsEnd),
  };
}
