// Spans as they happen, for live followers of a trace (the console's waterfall of a running run).
// The database keeps an attempt's spans only when the attempt ends (span-store.ts), so a follower
// that read the stored trace would see nothing of the attempt in progress. This processor hands each
// span to a listener when it starts (still open: its end is its start) and again when it ends; the
// service publishes them on its event bus (through Redis with REDIS_URL), by trace id. Nothing is
// written and nothing waits: a publish is one call per span start and end.
//
// A follower that arrives in the middle of an attempt missed the starts and ends before it: the
// processor keeps the spans of the attempts running in this process (open or ended, until the worker
// has written them — a retried attempt's — or taken them into the statement that seals the run) and
// sends them again when asked (`replay`). A follower asks, then reads the stored trace: a span is in
// one or the other (a sealed attempt's are sent again as stored once the seal is heard).
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { rowOf, type SpanRow } from './span-store.js';

/** A span of a run as it starts (`open`) or ends. */
export interface LiveSpan {
  open: boolean;
  span: SpanRow;
}

export type LiveSpanListener = (event: LiveSpan) => void;

/** An open span has no end yet: it is sent ending where it starts. */
const openRow = (row: SpanRow): SpanRow => ({ ...row, end_time_unix_nano: row.start_time_unix_nano });

export class LiveSpanProcessor implements SpanProcessor {
  /** The spans of attempts running in this process: trace id → span id → the span and its run. */
  private readonly current = new Map<string, Map<string, { runId: string; span: ReadableSpan }>>();
  /**
   * The same spans by run (run id → [trace id, span id]): `stored` removes one run's spans without
   * walking every live run's, which made each attempt's end cost as much as the runs streaming beside it.
   */
  private readonly byRun = new Map<string, [traceId: string, spanId: string][]>();

  constructor(private readonly listener: LiveSpanListener) {}

  onStart(span: Span, _parentContext: Context): void {
    const row = rowOf(span);
    if (!row) return;
    let spans = this.current.get(row.trace_id);
    if (!spans) this.current.set(row.trace_id, (spans = new Map()));
    spans.set(row.span_id, { runId: row.run_id, span });
    const ofRun = this.byRun.get(row.run_id);
    if (ofRun) ofRun.push([row.trace_id, row.span_id]);
    else this.byRun.set(row.run_id, [[row.trace_id, row.span_id]]);
    this.send({ open: true, span: openRow(row) });
  }

  onEnd(span: ReadableSpan): void {
    const row = rowOf(span);
    if (!row) return;
    this.send({ open: false, span: row });
  }

  /** The attempt's spans of `runId` are stored (or part of the sealing statement): a follower reads them from there. */
  stored(runId: string): void {
    const ofRun = this.byRun.get(runId);
    if (!ofRun) return;
    this.byRun.delete(runId);
    for (const [traceId, spanId] of ofRun) {
      const spans = this.current.get(traceId);
      if (!spans) continue;
      spans.delete(spanId);
      if (spans.size === 0) this.current.delete(traceId);
    }
  }

  /** Sends again every span of `traceId` that an attempt running here holds (a follower just arrived). */
  replay(traceId: string): void {
    for (const { span } of this.current.get(traceId)?.values() ?? []) {
      const row = rowOf(span);
      if (row) this.send(span.ended ? { open: false, span: row } : { open: true, span: openRow(row) });
    }
  }

  private send(event: LiveSpan) {
    try {
      this.listener(event);
    } catch {
      // Following a trace is a courtesy to watchers: it never disturbs the run that records it.
    }
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    this.current.clear();
    this.byRun.clear();
    return Promise.resolve();
  }
}
