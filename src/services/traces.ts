// Reading run traces, and their retention. A run's spans are written by the engine (stored with the
// statement that ends each attempt, see src/traces/span-store.ts); here they are read back — the
// whole trace a run belongs to, in start order, in one query — and deleted when they expire.
import type { Run, TraceSpan } from '../generated/prisma/client.js';
import type { Db } from '../db.js';
import type { CallContext } from './call-context.js';
import { getRun } from './runs.js';

/** A run's trace: its id (null before a worker first claimed the run) and every span of it in the workspace. */
export interface RunTrace {
  traceId: string | null;
  runId: string;
  spans: TraceSpan[];
}

/**
 * The spans of the trace `run` belongs to, oldest start first (ties by span id): its own attempts,
 * and — the trace being the delegating run's — the spans of subagent child runs beneath its calls.
 * One query, on the trace id (the primary key's first column).
 */
export async function traceOf(call: CallContext, run: Pick<Run, 'id' | 'traceId' | 'workspaceId'>): Promise<RunTrace> {
  if (!run.traceId) return { traceId: null, runId: run.id, spans: [] };
  const spans = await call.db.traceSpan.findMany({
    where: { traceId: run.traceId, workspaceId: run.workspaceId },
    orderBy: [{ startTimeUnixNano: 'asc' }, { spanId: 'asc' }],
  });
  return { traceId: run.traceId, runId: run.id, spans };
}

/**
 * The spans of several traces of the caller's workspace in one query (a list of runs asking for
 * their traces), by trace id, each in start order.
 */
export async function spansOfTraces(call: CallContext, traceIds: readonly string[]): Promise<Map<string, TraceSpan[]>> {
  const spans = await call.db.traceSpan.findMany({
    where: { traceId: { in: [...new Set(traceIds)] }, workspaceId: call.actor.workspaceId },
    orderBy: [{ startTimeUnixNano: 'asc' }, { spanId: 'asc' }],
  });
  const byTrace = new Map<string, TraceSpan[]>();
  for (const span of spans) {
    const list = byTrace.get(span.traceId);
    if (list) list.push(span);
    else byTrace.set(span.traceId, [span]);
  }
  return byTrace;
}

/** The trace of a run of the caller's workspace (`read`); a run elsewhere is not found. */
export async function getRunTrace(call: CallContext, runId: string): Promise<RunTrace> {
  const run = await getRun(call, runId);
  return traceOf(call, run);
}

/**
 * Deletes spans that started more than `retentionDays` ago, at most `batch` at a time (a long
 * backlog is cleared over several passes without one long lock). Returns how many went.
 */
export async function deleteExpiredSpans(db: Db, retentionDays: number, batch = 5_000): Promise<number> {
  return db.$executeRaw`
    DELETE FROM trace_spans WHERE (trace_id, span_id) IN (
      SELECT trace_id, span_id FROM trace_spans
      WHERE start_time < now() - make_interval(days => ${retentionDays}::int)
      LIMIT ${batch}::int
    )`;
}
