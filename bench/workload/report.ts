// The sweep's table: one column per level of one mode, one row per figure.
import { markdownTable } from '../blackbox/results-file.js';
import type { LevelResult } from './level.js';

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const ms = (value: number) => (!Number.isFinite(value) ? 'n/a' : value < 10 ? value.toFixed(2) : value.toFixed(0));
const perK = (value: number, tokens: number) => (tokens > 0 ? (value / tokens) * 1000 : NaN);
const kb = (bytes: number) => bytes / 1024;

const ROWS: [string, (r: LevelResult) => string][] = [
  ['held (≥ 90 % at once and at pace, p99 ≤ limit, no errors)', (r) => (r.held.held ? 'yes' : `no: ${r.held.reasons.join('; ')}`)],
  ['token delay p50 / p99 / max ms', (r) => `${ms(r.p50DelayMs)} / ${ms(r.p99DelayMs)} / ${ms(r.maxDelayMs)}`],
  ['POST → first model request p50 / p99 ms', (r) => `${ms(r.startMs.p50)} / ${ms(r.startMs.p99)}`],
  ['runs streaming at once (max) of N', (r) => `${r.streamingAtOnce} of ${r.n}`],
  ["runs at the model's pace; median streaming time ÷ model's", (r) => `${r.atPace} of ${r.n}; ${fixed(r.medianPace, 2)}×`],
  ['tokens received of planned; model runs (with successors)', (r) => `${r.tokens} of ${r.plannedTokens}; ${r.modelRuns}`],
  ['wall time s', (r) => fixed(r.wallSeconds, 1)],
  [
    'server CPU ms per 1,000 tokens (node + PostgreSQL)',
    (r) =>
      `${ms(perK(r.serverCpuMs.node + r.serverCpuMs.postgres, r.tokens))} (${ms(perK(r.serverCpuMs.node, r.tokens))} + ${ms(perK(r.serverCpuMs.postgres, r.tokens))})`,
  ],
  ['server CPU, cores busy on average', (r) => fixed((r.serverCpuMs.node + r.serverCpuMs.postgres) / 1000 / r.wallSeconds, 2)],
  [
    'service run-queue wait ÷ its CPU time (≫ 1: the machine is oversubscribed)',
    (r) => fixed(r.runQueueWaitMs / (r.serverCpuMs.node + r.serverCpuMs.postgres), 2),
  ],
  [
    'node / PostgreSQL MB per live run (PSS, peak − idle)',
    (r) => `${fixed(r.memoryPerRunMb.node, 2)} / ${fixed(r.memoryPerRunMb.postgres, 2)}`,
  ],
  ['rows written per run / per 1,000 tokens', (r) => `${fixed(r.db.rows / r.n)} / ${fixed(perK(r.db.rows, r.tokens))}`],
  ['database growth KB per run / per 1,000 tokens', (r) => `${fixed(kb(r.db.bytes) / r.n)} / ${fixed(perK(kb(r.db.bytes), r.tokens))}`],
  ['WAL KB per run / per 1,000 tokens', (r) => `${fixed(kb(r.db.wal) / r.n)} / ${fixed(perK(kb(r.db.wal), r.tokens))}`],
  [
    'pool wait mean / max ms (connections taken)',
    (r) => `${ms(r.metrics.poolWaitMeanMs)} / ${ms(r.metrics.poolWaitMaxMs)} (${r.metrics.poolAcquires})`,
  ],
  [
    'event-loop lag p50 / p99 / max ms',
    (r) => `${ms(r.metrics.eventLoopP50Ms)} / ${ms(r.metrics.eventLoopP99Ms)} / ${ms(r.metrics.eventLoopMaxMs)}`,
  ],
  [
    'bench clients CPU ms per 1,000 tokens (cores)',
    (r) => `${ms(perK(r.benchCpuMs, r.tokens))} (${fixed(r.benchCpuMs / 1000 / r.wallSeconds, 2)})`,
  ],
  [
    'loopback model + MCP CPU ms per 1,000 tokens (cores)',
    (r) => `${ms(perK(r.loopbackCpuMs, r.tokens))} (${fixed(r.loopbackCpuMs / 1000 / r.wallSeconds, 2)})`,
  ],
  ['errors', (r) => (r.errors.length ? `${r.errors.length}: ${r.errors[0]}` : '0')],
];

/** One mode's table, a column per level, and the largest level it held. */
export function modeTable(label: string, levels: LevelResult[]): string {
  const header = [label, ...levels.map((level) => `N=${level.n}`)];
  const rows = ROWS.map(([name, cell]) => [name, ...levels.map(cell)]);
  const held = levels.filter((level) => level.held.held).map((level) => level.n);
  return `${markdownTable(header, rows)}\n\nlargest N held (${label}): ${held.length ? Math.max(...held) : 'none'}`;
}
