// Reading run traces, and their retention. A run's spans are written by the engine (stored with the
// statement that ends each attempt, see src/traces/span-store.ts); here they are read back — the
// whole trace a run belongs to, in start order, in one query — and deleted when they expire.
import type { Run, TraceSpan } from '../../generated/prisma/client.js';
import type { Db } from '../../db.js';
import type { CallContext } from '../../services/call-context.js';
import { getRun } from '../runs/runs.js';

// GraphQL reads a span's documents through the services (it may not reach the storage layer).
export { spanAttributes, spanEvents, spanLinks, type SpanEvent, type SpanLink } from '../../traces/span-documents.js';

/** A run's trace: its id (null before a worker first claimed the run) and every span of it in the workspace. */
export interface RunTrace {
  traceId: string | null;
  runId: string;
  spans: TraceSpan[];
}

/**
 * Spans in start order. Spans that start on the same clock tick (a run span and its first model
 * request often do) put a parent before its children, then go by span id, so a trace always reads
 * the same way: span ids are random and say nothing about order.
 */
export function inStartOrder(spans: TraceSpan[]): TraceSpan[] {
  const parentOf = new Map(spans.map((span) => [span.spanId, span.parentSpanId]));
  const depthOf = (span: TraceSpan) => {
    let depth = 0;
    for (let parent = span.parentSpanId; parent && depth < spans.length; parent = parentOf.get(parent) ?? null) depth += 1;
    return depth;
  };
  const depth = new Map(spans.map((span) => [span.spanId, depthOf(span)]));
  return spans.sort(
    (a, b) =>
      (a.startTimeUnixNano < b.startTimeUnixNano ? -1 : a.startTimeUnixNano > b.startTimeUnixNano ? 1 : 0) ||
      depth.get(a.spanId)! - depth.get(b.spanId)! ||
      // Of two siblings begun at the same instant, the one that ended first is listed first.
      (a.endTimeUnixNano < b.endTimeUnixNano ? -1 : a.endTimeUnixNano > b.endTimeUnixNano ? 1 : 0) ||
      (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0),
  );
}

/**
 * The spans of the trace `run` belongs to, oldest start first (ties: parents first, then by span id): its own attempts,
 * and — the trace being the delegating run's — the spans of subagent child runs beneath its calls.
 * One query, on the trace id (the primary key's first column).
 */
export async function traceOf(call: CallContext, run: Pick<Run, 'id' | 'traceId' | 'workspaceId'>): Promise<RunTrace> {
  if (!run.traceId) return { traceId: null, runId: run.id, spans: [] };
  const spans = await call.db.traceSpan.findMany({
    where: { traceId: run.traceId, workspaceId: run.workspaceId },
  });
  return { traceId: run.traceId, runId: run.id, spans: inStartOrder(spans) };
}

/**
 * The spans of several traces of the caller's workspace in one query (a list of runs asking for
 * their traces), by trace id, each in start order (as traceOf orders them).
 */
export async function spansOfTraces(call: CallContext, traceIds: readonly string[]): Promise<Map<string, TraceSpan[]>> {
  const spans = await call.db.traceSpan.findMany({
    where: { traceId: { in: [...new Set(traceIds)] }, workspaceId: call.actor.workspaceId },
  });
  const byTrace = new Map<string, TraceSpan[]>();
  for (const span of spans) {
    const list = byTrace.get(span.traceId);
    if (list) list.push(span);
    else byTrace.set(span.traceId, [span]);
  }
  for (const list of byTrace.values()) inStartOrder(list);
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

/** Up to `limit` spans of one trace of the workspace, oldest first (the analyst's `read_trace`). */
export function traceSpansFrom(call: CallContext, workspaceId: string, traceId: string, limit: number): Promise<TraceSpan[]> {
  return call.db.traceSpan.findMany({
    where: { workspaceId, traceId },
    orderBy: [{ startTimeUnixNano: 'asc' }, { endTimeUnixNano: 'asc' }, { spanId: 'asc' }],
    take: limit,
  });
}
