// The span processor that stores a run's finished spans in the database (`trace_spans`). Nothing is
// written per span: finished spans wait in memory, by run, until the attempt ends — then the worker
// takes them as one INSERT (`drain`) that joins the statement sealing the run or handing it back, or
// writes them in one statement of their own (`flush`, when the attempt is retried). The hot path
// pays no round trip for its trace.
import type { Context } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Prisma } from '../generated/prisma/client.js';
import type { Db } from '../db.js';
import type { Logger } from '../lib/logger.js';
import { ATTR, SPAN_KIND_NAMES, STATUS_NAMES } from './names.js';
import type { SpanAttributes, SpanEvent, SpanLink } from './span-documents.js';

/** One span as `trace_spans` stores it (the JSON record the INSERT reads, and what live followers are sent). */
export interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  workspace_id: string;
  run_id: string;
  agent_id: string;
  attempt: number;
  name: string;
  kind: string;
  attributes: SpanAttributes;
  events: SpanEvent[];
  links: SpanLink[];
  status_code: string;
  status_message: string | null;
  start_time: string;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
}

/** Nanoseconds since the epoch, as a decimal string (beyond a double's exact range). */
export const unixNano = (time: [number, number]) => (BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])).toString();

/** A span as its row; null for a span that belongs to no run (it is neither stored nor followed). */
export function rowOf(span: ReadableSpan): SpanRow | null {
  const {
    [ATTR.runId]: runId,
    [ATTR.workspaceId]: workspaceId,
    [ATTR.agentId]: agentId,
    [ATTR.attempt]: attempt,
    ...attributes
  } = span.attributes;
  if (typeof runId !== 'string' || typeof workspaceId !== 'string') return null;
  const context = span.spanContext();
  return {
    trace_id: context.traceId,
    span_id: context.spanId,
    parent_span_id: span.parentSpanContext?.spanId ?? null,
    workspace_id: workspaceId,
    run_id: runId,
    agent_id: typeof agentId === 'string' ? agentId : '',
    attempt: typeof attempt === 'number' ? attempt : 0,
    name: span.name,
    kind: SPAN_KIND_NAMES[span.kind] ?? 'internal',
    attributes,
    events: span.events.map((event) => ({
      name: event.name,
      time_unix_nano: unixNano(event.time),
      attributes: event.attributes ?? {},
    })),
    links: span.links.map((link) => ({
      trace_id: link.context.traceId,
      span_id: link.context.spanId,
      attributes: link.attributes ?? {},
    })),
    status_code: STATUS_NAMES[span.status.code] ?? 'unset',
    status_message: span.status.message ?? null,
    start_time: new Date(hrTimeToMilliseconds(span.startTime)).toISOString(),
    start_time_unix_nano: unixNano(span.startTime),
    end_time_unix_nano: unixNano(span.endTime),
  };
}

/** The INSERT of stored spans from one JSON parameter (one statement, however many spans). */
function insertSpans(rows: SpanRow[]): Prisma.Sql {
  return Prisma.sql`INSERT INTO trace_spans (trace_id, span_id, parent_span_id, workspace_id, run_id, agent_id, attempt, name, kind,
      attributes, events, links, status_code, status_message, start_time, start_time_unix_nano, end_time_unix_nano)
    SELECT s.trace_id, s.span_id, s.parent_span_id, s.workspace_id, s.run_id, s.agent_id, s.attempt, s.name, s.kind,
      s.attributes, s.events, s.links, s.status_code, s.status_message, s.start_time, s.start_time_unix_nano, s.end_time_unix_nano
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS s(trace_id text, span_id text, parent_span_id text, workspace_id text,
      run_id text, agent_id text, attempt int, name text, kind text, attributes jsonb, events jsonb, links jsonb, status_code text,
      status_message text, start_time timestamptz, start_time_unix_nano bigint, end_time_unix_nano bigint)
    ON CONFLICT (trace_id, span_id) DO NOTHING`;
}

export class DatabaseSpanProcessor implements SpanProcessor {
  /** Finished spans of the attempts running in this process, by run id. */
  private readonly pending = new Map<string, SpanRow[]>();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    /** Told when an attempt's spans leave this processor for the database (live-spans.ts lets go of them then). */
    private readonly onStored: (runId: string) => void = () => undefined,
  ) {}

  /** An attempt of `runId` starts: its spans are kept until the attempt ends. */
  open(runId: string) {
    if (!this.pending.has(runId)) this.pending.set(runId, []);
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    const row = rowOf(span);
    if (!row) return;
    const rows = this.pending.get(row.run_id);
    if (rows) rows.push(row);
    else {
      // A span that ended after its attempt was stored (an abort race): written on its own.
      void this.write([row]);
    }
  }

  /** The attempt's spans as one INSERT for the statement that ends the attempt; null when there are none. */
  drain(runId: string): Prisma.Sql | null {
    const rows = this.pending.get(runId);
    this.pending.delete(runId);
    this.onStored(runId);
    return rows?.length ? insertSpans(rows) : null;
  }

  /** Writes the attempt's spans now, in one statement (an attempt that ends without a seal: a retry). */
  async flush(runId: string): Promise<void> {
    const rows = this.pending.get(runId);
    this.pending.delete(runId);
    if (rows?.length) await this.write(rows);
    this.onStored(runId);
  }

  private async write(rows: SpanRow[]) {
    try {
      await this.db.$executeRaw(insertSpans(rows));
    } catch (error) {
      // A trace is a record of the run, never a reason for the run to fail.
      this.logger.warn({ err: error, runId: rows[0]?.run_id }, 'storing trace spans failed');
    }
  }

  /** On shutdown, what is still held is written (attempts that ended without being stored). */
  async forceFlush(): Promise<void> {
    const runs = [...this.pending.keys()];
    await Promise.all(runs.map((runId) => this.flush(runId)));
  }

  shutdown(): Promise<void> {
    return this.forceFlush();
  }
}
