// Run traces: the OpenTelemetry spans a run's attempts recorded (docs/api/traces.md), as `Run.trace`
// and `runTrace(runId)` (REST: GET /api/v1/runs/{run_id}/trace).
import type { TraceSpan } from '../../../generated/prisma/client.js';
import { builder } from '../../../graphql/builder.js';
import {
  getRunTrace,
  spanAttributes,
  spanEvents,
  spanLinks,
  spansOfTraces,
  type RunTrace,
  type SpanEvent,
  type SpanLink,
} from '../traces.js';
import { listsByKey } from '../../../graphql/modules/request-loaders.js';
import { watchRunTrace, type TraceSpanUpdate } from '../trace-watch.js';
import { RunRef } from '../../runs/graphql/runs.js';

const SPAN_KINDS = ['internal', 'server', 'client', 'producer', 'consumer'] as const;
const STATUS_CODES = ['unset', 'ok', 'error'] as const;
const SpanKindEnum = builder.enumType('TraceSpanKind', { values: SPAN_KINDS, description: "A span's OpenTelemetry kind." });
const StatusCodeEnum = builder.enumType('TraceSpanStatusCode', { values: STATUS_CODES, description: "A span's OpenTelemetry status." });

/** A time in nanoseconds since the epoch as a Date (milliseconds: what DateTime carries). */
const dateOf = (unixNano: bigint | string) => new Date(Number(BigInt(unixNano) / 1_000_000n));

const TraceSpanEventRef = builder.objectRef<SpanEvent>('TraceSpanEvent').implement({
  description: 'Something that happened during a span: a retry, a pause, a cancellation.',
  fields: (t) => ({
    name: t.exposeString('name'),
    time: t.field({ type: 'DateTime', resolve: (e) => dateOf(e.time_unix_nano) }),
    timeUnixNano: t.string({ description: 'nanoseconds since the Unix epoch, in decimal', resolve: (e) => e.time_unix_nano }),
    attributes: t.field({ type: 'JSON', resolve: (e) => e.attributes }),
  }),
});

const TraceSpanLinkRef = builder.objectRef<SpanLink>('TraceSpanLink').implement({
  description: "A span of another trace this one follows from (a resumed or forked run's parent run span).",
  fields: (t) => ({
    traceId: t.string({ resolve: (l) => l.trace_id }),
    spanId: t.string({ resolve: (l) => l.span_id }),
    attributes: t.field({ type: 'JSON', resolve: (l) => l.attributes }),
  }),
});

const TraceSpanStatusRef = builder.objectRef<{ code: string; message: string | null }>('TraceSpanStatus').implement({
  fields: (t) => ({
    code: t.field({ type: StatusCodeEnum, resolve: (s) => s.code as (typeof STATUS_CODES)[number] }),
    message: t.exposeString('message', { nullable: true }),
  }),
});

export const TraceSpanRef = builder.objectRef<TraceSpan>('TraceSpan').implement({
  description: 'One finished span of a run trace.',
  fields: (t) => ({
    traceId: t.exposeString('traceId'),
    spanId: t.exposeString('spanId'),
    parentSpanId: t.exposeString('parentSpanId', { nullable: true }),
    runId: t.exposeString('runId', { description: 'the run whose attempt recorded the span' }),
    agentId: t.exposeString('agentId'),
    attempt: t.exposeInt('attempt'),
    name: t.exposeString('name'),
    kind: t.field({ type: SpanKindEnum, resolve: (s) => s.kind as (typeof SPAN_KINDS)[number] }),
    attributes: t.field({ type: 'JSON', resolve: spanAttributes }),
    events: t.field({ type: [TraceSpanEventRef], resolve: spanEvents }),
    links: t.field({ type: [TraceSpanLinkRef], resolve: spanLinks }),
    status: t.field({ type: TraceSpanStatusRef, resolve: (s) => ({ code: s.statusCode, message: s.statusMessage }) }),
    startTime: t.field({ type: 'DateTime', resolve: (s) => dateOf(s.startTimeUnixNano) }),
    endTime: t.field({ type: 'DateTime', resolve: (s) => dateOf(s.endTimeUnixNano) }),
    startTimeUnixNano: t.string({
      description: 'nanoseconds since the Unix epoch, in decimal',
      resolve: (s) => s.startTimeUnixNano.toString(),
    }),
    endTimeUnixNano: t.string({
      description: 'nanoseconds since the Unix epoch, in decimal',
      resolve: (s) => s.endTimeUnixNano.toString(),
    }),
    durationMs: t.float({ resolve: (s) => Number(s.endTimeUnixNano - s.startTimeUnixNano) / 1e6 }),
  }),
});

const RunTraceRef = builder.objectRef<RunTrace>('RunTrace').implement({
  description:
    "The trace a run belongs to: every span of it, oldest start first (a subagent's child run shares its delegating run's trace).",
  fields: (t) => ({
    traceId: t.exposeString('traceId', { nullable: true, description: 'null before a worker first claimed the run' }),
    runId: t.exposeString('runId'),
    spans: t.field({ type: [TraceSpanRef], resolve: (r) => r.spans }),
  }),
});

// The spans of every run's trace an operation asks for, read in one statement per tick.
const traceSpans = listsByKey(spansOfTraces);

builder.objectFields(RunRef, (t) => ({
  traceId: t.exposeString('traceId', {
    nullable: true,
    description: "the run's OpenTelemetry trace id (32 hex digits); null before a worker first claimed it",
  }),
  trace: t.field({
    type: RunTraceRef,
    description: 'the spans of the run trace (the traces of a list of runs are read together)',
    resolve: async (run, _a, ctx) => ({
      traceId: run.traceId,
      runId: run.id,
      spans: run.traceId ? await traceSpans(ctx).load(run.traceId) : [],
    }),
  }),
}));

builder.queryFields((t) => ({
  runTrace: t.field({
    type: RunTraceRef,
    description: 'The trace of a run: its spans, oldest start first.',
    args: { runId: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => getRunTrace(await ctx.call(), String(a.runId)),
  }),
}));

const TraceSpanUpdateRef = builder.objectRef<TraceSpanUpdate>('TraceSpanUpdate').implement({
  description: 'A span of a followed trace: stored, started, or ended (runTraceSpans).',
  fields: (t) => ({
    span: t.field({ type: TraceSpanRef, resolve: (u) => u.span }),
    inProgress: t.exposeBoolean('inProgress', {
      description: 'true while the span has not ended (its end then reads as its start); the same span comes again when it ends',
    }),
  }),
});

builder.subscriptionFields((t) => ({
  runTraceSpans: t.field({
    type: TraceSpanUpdateRef,
    description:
      'Follows the trace a run belongs to while the run runs: emits every span stored so far, then each span of the trace as it starts (inProgress) and as it ends, and completes once the run is sealed or waiting (at once when it already is). A span may come more than once: keep its latest state by spanId, and never let an in-progress state replace an ended one.',
    args: { runId: t.arg.id({ required: true }) },
    subscribe: async (_r, a, ctx) => watchRunTrace(await ctx.call(), String(a.runId)),
    resolve: (update) => update,
  }),
}));
