// The run trace waterfall's model (console/src/sections/runs/trace-model.ts): spans nested by parent
// in start order (a subagent's run beneath the delegating call), places on the time axis in
// milliseconds from nanosecond strings, the facts each kind shows, and the merge rule for live
// states (an ended span is never taken back to in progress). Pure logic, no browser.
import { describe, expect, it } from 'vitest';
import { buildWaterfall, formatMs, mergeSpan, type SpanState, type TraceSpan } from '../../console/src/sections/runs/trace-model.ts';

const T0 = 1_700_000_000_000_000_000n;
const at = (ms: number) => (T0 + BigInt(Math.round(ms * 1e6))).toString();

function span(
  id: string,
  parent: string | null,
  startMs: number,
  endMs: number,
  attributes: Record<string, unknown>,
  extra: Partial<TraceSpan> = {},
): TraceSpan {
  return {
    traceId: 't1',
    spanId: id,
    parentSpanId: parent,
    runId: 'run_a',
    attempt: 1,
    name: id,
    kind: 'internal',
    attributes,
    events: [],
    links: [],
    status: { code: 'unset', message: null },
    startTimeUnixNano: at(startMs),
    endTimeUnixNano: at(endMs),
    durationMs: endMs - startMs,
    ...extra,
  } as TraceSpan;
}
const ended = (s: TraceSpan): SpanState => ({ span: s, inProgress: false });

describe('the trace waterfall model', () => {
  it('nests spans by parent, siblings in start order, a subagent run beneath its delegating call', () => {
    const spans = [
      span('tool', 'attempt', 30, 90, {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'delegate_to_helper',
        'wsa.tool.permission': 'allow',
        'wsa.tool.outcome': 'ok',
      }),
      span('child', 'tool', 40, 85, { 'gen_ai.operation.name': 'invoke_agent' }, { runId: 'run_child' }),
      span('attempt', null, 0, 100, { 'gen_ai.operation.name': 'invoke_agent', 'wsa.run.outcome': 'completed' }),
      span('chat1', 'attempt', 0.001, 20, {
        'gen_ai.operation.name': 'chat',
        'wsa.model.request': 1,
        'wsa.model.key': 'dev',
        'gen_ai.usage.input_tokens': 11,
        'gen_ai.usage.output_tokens': 7,
        'wsa.model.time_to_first_token_ms': 4.5,
      }),
      span('chat2', 'attempt', 91, 99, { 'gen_ai.operation.name': 'chat', 'wsa.model.request': 2 }),
      span('childchat', 'child', 41, 80, { 'gen_ai.operation.name': 'chat', 'wsa.model.request': 1 }, { runId: 'run_child' }),
    ];
    const { rows, total } = buildWaterfall(spans.map(ended));
    expect(rows.map((r) => [r.span.spanId, r.depth])).toEqual([
      ['attempt', 0],
      ['chat1', 1],
      ['tool', 1],
      ['child', 2],
      ['childchat', 3],
      ['chat2', 1],
    ]);
    expect(total).toBe(100);
    const chat1 = rows[1]!;
    expect(chat1).toMatchObject({ role: 'model', title: 'Model request 1', start: 0.001 });
    expect(chat1.facts).toEqual(['model dev', 'tokens 11 in / 7 out', 'first token 4.5 ms']);
    expect(rows[2]).toMatchObject({
      role: 'tool',
      title: 'Tool delegate_to_helper',
      facts: ['permission allow', 'outcome ok'],
      duration: 60,
    });
  });

  it('makes a span whose parent is not in the trace a root, and marks retries and pauses where they happened', () => {
    const retried = span('a1', null, 10, 20, { 'gen_ai.operation.name': 'invoke_agent', 'wsa.run.outcome': 'retry' }, {
      status: { code: 'error', message: 'overloaded' },
      events: [{ name: 'wsa.retry', timeUnixNano: at(19), attributes: { 'wsa.retry.reason': 'transient_error' } }],
    } as Partial<TraceSpan>);
    const orphan = span('o', 'expired_parent', 5, 8, { 'gen_ai.operation.name': 'chat', 'wsa.model.purpose': 'review' });
    const { rows } = buildWaterfall([ended(retried), ended(orphan)]);
    expect(rows.map((r) => [r.span.spanId, r.depth, r.role])).toEqual([
      ['o', 0, 'review'],
      ['a1', 0, 'attempt'],
    ]);
    expect(rows[1]).toMatchObject({
      error: true,
      facts: ['outcome retry', 'error: overloaded'],
      marks: [{ kind: 'retry', label: 'retry (transient_error)', at: 14 }],
    });
  });

  it('draws an open span to the last instant known, and never lets an in-progress state replace an ended one', () => {
    const open = span('a', null, 0, 0, { 'gen_ai.operation.name': 'invoke_agent' });
    const chat = span('c', 'a', 2, 7, { 'gen_ai.operation.name': 'chat' });
    let states = new Map<string, SpanState>();
    states = mergeSpan(states, { span: open, inProgress: true });
    states = mergeSpan(states, ended(chat));
    const live = buildWaterfall(states.values());
    expect(live.rows[0]).toMatchObject({ inProgress: true, start: 0, duration: 7 });
    expect(live.rows[0]!.facts).toContain('in progress');
    const closed = span('a', null, 0, 12, { 'gen_ai.operation.name': 'invoke_agent', 'wsa.run.outcome': 'completed' });
    states = mergeSpan(states, ended(closed));
    const stale = mergeSpan(states, { span: open, inProgress: true });
    expect(stale).toBe(states);
    expect(buildWaterfall(stale.values()).rows[0]).toMatchObject({ inProgress: false, duration: 12 });
  });

  it('formats durations for people', () => {
    expect([formatMs(0.25), formatMs(4.54), formatMs(850.4), formatMs(1240), formatMs(61_000)]).toEqual([
      '0.25 ms',
      '4.5 ms',
      '850 ms',
      '1.24 s',
      '61.0 s',
    ]);
  });
});
