// A run trace as the waterfall draws it: spans nested by parent (a subagent's spans beneath the call
// that delegated to it), each with its place on the trace's time axis, a short title and the facts
// that matter for its kind (tokens and time to first token of a model request, the permission path
// and outcome of a tool call, the outcome of an attempt), and its events (retries, pauses). Pure
// functions of the spans: the page keeps no other state about them.
import type { TraceSpanFieldsFragment } from '../../../generated/graphql.ts';

export type TraceSpan = TraceSpanFieldsFragment;

/** A span's newest state: `inProgress` while it has not ended (its end then reads as its start). */
export interface SpanState {
  span: TraceSpan;
  inProgress: boolean;
}

/** Keeps the newer state of a span: an ended state is final, an in-progress one never replaces it. */
export function mergeSpan(spans: Map<string, SpanState>, next: SpanState): Map<string, SpanState> {
  const known = spans.get(next.span.spanId);
  if (known && !known.inProgress && next.inProgress) return spans;
  const merged = new Map(spans);
  merged.set(next.span.spanId, next);
  return merged;
}

export type SpanRole = 'attempt' | 'model' | 'review' | 'compaction' | 'tool' | 'other';

export interface SpanMark {
  /** `retry`, `pause`, `cancelled`. */
  kind: string;
  label: string;
  /** Milliseconds from the trace's start. */
  at: number;
}

export interface WaterfallRow {
  span: TraceSpan;
  inProgress: boolean;
  depth: number;
  role: SpanRole;
  title: string;
  /** The facts shown beside the bar (tokens, time to first token, outcome, …). */
  facts: string[];
  /** Milliseconds from the trace's start. */
  start: number;
  duration: number;
  marks: SpanMark[];
  error: boolean;
}

export interface Waterfall {
  rows: WaterfallRow[];
  /** The axis: milliseconds from the first start to the last instant known (an end, an event, a start). */
  total: number;
}

const attr = (span: TraceSpan, name: string): unknown => (span.attributes as Record<string, unknown> | null)?.[name];
const text = (value: unknown) => (value === undefined || value === null ? '' : Array.isArray(value) ? value.join(', ') : String(value));

export function roleOf(span: TraceSpan): SpanRole {
  const operation = attr(span, 'gen_ai.operation.name');
  if (operation === 'invoke_agent') return 'attempt';
  if (operation === 'execute_tool') return 'tool';
  if (operation === 'compact_context') return 'compaction';
  if (operation === 'chat') return attr(span, 'wsa.model.purpose') === 'review' ? 'review' : 'model';
  return 'other';
}

/** A duration for people: 0.25 ms, 4.5 ms, 850 ms, 1.24 s. */
export function formatMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function titleOf(span: TraceSpan, role: SpanRole): string {
  switch (role) {
    case 'attempt':
      return `Attempt ${span.attempt}`;
    case 'model':
      return `Model request ${text(attr(span, 'wsa.model.request'))}`.trim();
    case 'review':
      return 'Reviewer';
    case 'compaction':
      return 'Compaction';
    case 'tool':
      return `Tool ${text(attr(span, 'gen_ai.tool.name'))}`;
    default:
      return span.name;
  }
}

function factsOf(span: TraceSpan, role: SpanRole, inProgress: boolean): string[] {
  const facts: string[] = [];
  const add = (label: string, value: unknown) => {
    if (value !== undefined && value !== null && value !== '') facts.push(`${label} ${text(value)}`);
  };
  if (role === 'attempt') {
    add('outcome', attr(span, 'wsa.run.outcome'));
    add('waiting for', attr(span, 'wsa.run.wait_reason'));
    add('failure', attr(span, 'wsa.run.failure_code'));
  } else if (role === 'model' || role === 'review' || role === 'compaction') {
    add('model', attr(span, 'wsa.model.key'));
    const input = attr(span, 'gen_ai.usage.input_tokens');
    const output = attr(span, 'gen_ai.usage.output_tokens');
    if (input !== undefined || output !== undefined) facts.push(`tokens ${text(input ?? 0)} in / ${text(output ?? 0)} out`);
    const firstToken = attr(span, 'wsa.model.time_to_first_token_ms');
    if (typeof firstToken === 'number') facts.push(`first token ${formatMs(firstToken)}`);
    add('finish', attr(span, 'gen_ai.response.finish_reasons'));
    if (role === 'compaction') {
      const before = attr(span, 'wsa.context.tokens_before');
      const after = attr(span, 'wsa.context.tokens_after');
      if (before !== undefined) facts.push(`context ${text(before)} → ${text(after ?? '?')} tokens`);
    }
  } else if (role === 'tool') {
    add('permission', attr(span, 'wsa.tool.permission'));
    add('outcome', attr(span, 'wsa.tool.outcome'));
    add('denied by', attr(span, 'wsa.tool.denied_by'));
    add('approved by', attr(span, 'wsa.tool.approved_by'));
    add('review', attr(span, 'wsa.review.action'));
  }
  if (span.status.code === 'error' && span.status.message) facts.push(`error: ${span.status.message}`);
  if (inProgress) facts.push('in progress');
  return facts;
}

function markOf(event: TraceSpan['events'][number], at: number): SpanMark {
  const attributes = (event.attributes ?? {}) as Record<string, unknown>;
  if (event.name === 'wsa.retry') return { kind: 'retry', label: `retry (${text(attributes['wsa.retry.reason'])})`, at };
  if (event.name === 'wsa.pause') return { kind: 'pause', label: `pause (${text(attributes['wsa.pause.reason'])})`, at };
  if (event.name === 'wsa.cancelled') return { kind: 'cancelled', label: 'cancelled', at };
  return { kind: 'other', label: event.name, at };
}

const nano = (value: string) => BigInt(value);
const compareNano = (a: string, b: string) => (nano(a) < nano(b) ? -1 : nano(a) > nano(b) ? 1 : 0);

/**
 * The rows of the waterfall: depth first, each parent before its children, siblings by start (then
 * by end, then by id, as the service lists a trace). A span whose parent is not in the trace (a
 * subagent's run when its parent's spans expired) is a root.
 */
export function buildWaterfall(states: Iterable<SpanState>): Waterfall {
  const all = [...states];
  if (all.length === 0) return { rows: [], total: 0 };
  const ids = new Set(all.map((s) => s.span.spanId));
  const children = new Map<string | null, SpanState[]>();
  for (const state of all) {
    const parent = state.span.parentSpanId && ids.has(state.span.parentSpanId) ? state.span.parentSpanId : null;
    const list = children.get(parent);
    if (list) list.push(state);
    else children.set(parent, [state]);
  }
  for (const list of children.values())
    list.sort(
      (a, b) =>
        compareNano(a.span.startTimeUnixNano, b.span.startTimeUnixNano) ||
        compareNano(a.span.endTimeUnixNano, b.span.endTimeUnixNano) ||
        (a.span.spanId < b.span.spanId ? -1 : 1),
    );
  let first = nano(all[0]!.span.startTimeUnixNano);
  let last = first;
  for (const { span } of all) {
    const start = nano(span.startTimeUnixNano);
    const end = nano(span.endTimeUnixNano);
    if (start < first) first = start;
    if (end > last) last = end;
    if (start > last) last = start;
    for (const event of span.events) if (nano(event.timeUnixNano) > last) last = nano(event.timeUnixNano);
  }
  const ms = (value: string) => Number(nano(value) - first) / 1e6;
  const total = Number(last - first) / 1e6;
  const rows: WaterfallRow[] = [];
  const visit = (state: SpanState, depth: number) => {
    const { span, inProgress } = state;
    const role = roleOf(span);
    const start = ms(span.startTimeUnixNano);
    rows.push({
      span,
      inProgress,
      depth,
      role,
      title: titleOf(span, role),
      facts: factsOf(span, role, inProgress),
      start,
      // An open span reaches the last instant known so far.
      duration: inProgress ? Math.max(0, total - start) : ms(span.endTimeUnixNano) - start,
      marks: span.events.map((event) => markOf(event, ms(event.timeUnixNano))),
      error: span.status.code === 'error',
    });
    for (const child of children.get(span.spanId) ?? []) visit(child, depth + 1);
  };
  for (const root of children.get(null) ?? []) visit(root, 0);
  return { rows, total };
}
