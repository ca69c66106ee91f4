// The model-free detectors over hand-made spans and runs: one finding per problem (source key) with
// every run that shows it as evidence; presets choose the detectors; latency against the agent's
// own median only with enough history and a real excess.
import { describe, expect, it } from 'vitest';
import type { TraceSpan } from '../../src/generated/prisma/client.js';
import { DETECTORS, PRESETS, runDetectors, type Detector, type DetectorRun } from '../../src/features/findings/finding-detectors.js';

const all = new Set<Detector>(DETECTORS);

function span(runId: string, spanId: string, attributes: Record<string, unknown>, extra: Partial<TraceSpan> = {}): TraceSpan {
  return {
    traceId: `trace-${runId}`,
    spanId,
    parentSpanId: null,
    workspaceId: 'wsp',
    runId,
    agentId: 'agt',
    attempt: 1,
    name: String(attributes['gen_ai.operation.name']),
    kind: 'internal',
    attributes,
    events: [],
    links: [],
    statusCode: 'unset',
    statusMessage: null,
    startTime: new Date(0),
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    ...extra,
  } as TraceSpan;
}

function run(id: string, extra: Partial<DetectorRun> = {}): DetectorRun {
  return {
    id,
    traceId: `trace-${id}`,
    agentRevisionId: 'rev',
    status: 'completed',
    failure: null,
    attempts: 1,
    startedAt: new Date(0),
    sealedAt: new Date(1_000),
    ...extra,
  };
}

describe('runDetectors', () => {
  it('a usage limit and an output spec failure: one finding each, on the failed run span', () => {
    const runs = [
      run('r1', { status: 'failed', failure: { code: 'usage_limit_exceeded', message: 'limit' } }),
      run('r2', { status: 'failed', failure: { code: 'output_invalid', message: 'bad' } }),
    ];
    const spans = [
      span('r1', 's1', { 'gen_ai.operation.name': 'invoke_agent' }, { statusCode: 'error' }),
      span('r1', 's2', { 'gen_ai.operation.name': 'chat' }),
      span('r2', 's3', { 'gen_ai.operation.name': 'invoke_agent' }, { statusCode: 'error' }),
    ];
    const drafts = runDetectors({ runs, spans, calls: [], latency: null }, all);
    expect(drafts.map((d) => [d.sourceKey, d.evidence])).toEqual([
      ['usage_limit:requests', [{ run_id: 'r1', trace_id: 'trace-r1', span_ids: ['s1', 's2'] }]],
      ['output_spec_failure', [{ run_id: 'r2', trace_id: 'trace-r2', span_ids: ['s3'] }]],
    ]);
  });

  it('the same failure in two runs is one finding citing both; other codes are run_failed', () => {
    const runs = ['a', 'b'].map((id) => run(id, { status: 'failed', failure: { code: 'worker_lost', message: 'the worker was lost' } }));
    const spans = runs.map((r) => span(r.id, `s-${r.id}`, { 'gen_ai.operation.name': 'invoke_agent' }, { statusCode: 'error' }));
    const [draft, ...rest] = runDetectors({ runs, spans, calls: [], latency: null }, all);
    expect(rest).toEqual([]);
    expect(draft).toMatchObject({ sourceKey: 'run_failed:worker_lost', severity: 'critical', sourceRunId: 'b' });
    expect(draft!.evidence.map((e) => e.run_id)).toEqual(['a', 'b']);
  });

  it('a model error on every attempt: retries exhausted', () => {
    const drafts = runDetectors(
      {
        runs: [run('r', { status: 'failed', attempts: 3, failure: { code: 'model_error', message: 'the model failed' } })],
        spans: [],
        calls: [],
        latency: null,
      },
      all,
    );
    expect(drafts.map((d) => d.sourceKey)).toEqual(['retries_exhausted:model_error']);
  });

  it('latency: only with enough history, more than 3x the median and at least a second more', () => {
    const slow = run('slow', { sealedAt: new Date(10_000) });
    const input = (count: number, medianMs: number) => ({ runs: [slow], spans: [], calls: [], latency: { medianMs, count } });
    expect(runDetectors(input(10, 1_000), all).map((d) => d.sourceKey)).toEqual(['latency_outlier']);
    expect(runDetectors(input(4, 1_000), all)).toEqual([]);
    expect(runDetectors(input(10, 4_000), all)).toEqual([]);
    expect(runDetectors({ ...input(10, 1), runs: [run('fast', { sealedAt: new Date(900) })] }, all)).toEqual([]);
    expect(runDetectors(input(10, 1_000), new Set(PRESETS.execution))).toEqual([]);
  });

  it('loops: identical calls counted per run; different arguments are not a loop', () => {
    const calls = [1, 2, 3].map((n) => ({ runId: 'r', toolCallId: `c${n}`, toolName: 'search', arguments: { q: 'same', page: 1 } }));
    const spans = calls.map((c) =>
      span('r', `s-${c.toolCallId}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.id': c.toolCallId }),
    );
    const [loop] = runDetectors({ runs: [run('r')], spans, calls, latency: null }, all);
    expect(loop).toMatchObject({ sourceKey: 'tool_loop:search', evidence: [{ run_id: 'r', span_ids: ['s-c1', 's-c2', 's-c3'] }] });
    const varied = calls.map((c, i) => ({ ...c, arguments: { q: 'same', page: i } }));
    expect(runDetectors({ runs: [run('r')], spans, calls: varied, latency: null }, all)).toEqual([]);
  });
});
