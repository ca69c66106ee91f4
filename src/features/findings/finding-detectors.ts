// Model-free detectors: rules over the stored spans and run rows of the traces an analysis selected.
// Each returns finding drafts with evidence (run, trace, spans) and a `source_key` that names the
// problem rather than the occurrence (e.g. `tool_error:http_request`), so the same problem found
// again by a later analysis updates its finding instead of adding one. Pure functions: the analysis
// loads everything they read in a constant number of statements (finding-analyses.ts).
// Span names and attributes: docs/api/traces.md; the detectors and presets: docs/api/findings.md.
import type { Prisma, TraceSpan } from '../../generated/prisma/client.js';
import { readFailure } from '../runs/run-members.js';
import { digestOf } from '../../lib/canonical-json.js';
import type { Severity } from '../../lib/finding-severities.js';
import { ATTR, EVENT } from '../../traces/names.js';
import { spanAttributes, spanEvents } from '../../traces/span-documents.js';
import type { Evidence } from './finding-documents.js';

export type { Evidence } from './finding-documents.js';

export const DETECTORS = [
  'run_failed',
  'retries_exhausted',
  'usage_limit',
  'output_spec_failure',
  'tool_error',
  'tool_loop',
  'denied_action',
  'latency_outlier',
] as const;
export type Detector = (typeof DETECTORS)[number];

/** What each preset runs. `all` is every detector. */
export const PRESETS: Record<string, readonly Detector[]> = {
  execution: ['run_failed', 'retries_exhausted', 'usage_limit', 'output_spec_failure', 'tool_error', 'tool_loop', 'denied_action'],
  performance: ['latency_outlier'],
  all: DETECTORS,
};
export const DEFAULT_PRESETS = ['execution'];

/** The fewest identical calls (same tool, same arguments) in one run that count as a loop. */
export const LOOP_THRESHOLD = 3;
/** Latency: a run is an outlier when it took more than this many times the agent's median… */
export const LATENCY_FACTOR = 3;
/** …and at least this much longer (so that fast agents' jitter is no finding)… */
export const LATENCY_MIN_EXCESS_MS = 1_000;
/** …measured against at least this many earlier runs of the agent. */
export const LATENCY_MIN_HISTORY = 5;
/** At most this many evidence entries (runs) per finding; the newest are kept. */
export const MAX_EVIDENCE = 20;

export interface FindingDraft {
  detector: Detector | 'analysis_agent';
  sourceKey: string;
  category: string;
  severity: Severity;
  title: string;
  explanation: string;
  suggestion: string;
  limitations: string;
  evidence: Evidence[];
  sourceRunId: string;
  agentRevisionId: string | null;
}

/** A selected run as the detectors read it. */
export interface DetectorRun {
  id: string;
  traceId: string;
  agentRevisionId: string;
  status: string;
  failure: Prisma.JsonValue;
  attempts: number;
  startedAt: Date | null;
  sealedAt: Date | null;
}

/** A server tool call as its `tool_call` run item recorded it. */
export interface DetectorCall {
  runId: string;
  toolCallId: string;
  toolName: string;
  arguments: unknown;
}

export interface DetectorInput {
  runs: DetectorRun[];
  spans: TraceSpan[];
  calls: DetectorCall[];
  /** The agent's median run duration over its earlier runs, and how many runs it is taken over. */
  latency: { medianMs: number; count: number } | null;
}

const attrs = spanAttributes;
const operation = (span: TraceSpan) => attrs(span)[ATTR.operationName];
const failureCode = (run: DetectorRun) => readFailure(run.failure)?.code ?? 'unknown';
const failureMessage = (run: DetectorRun) => readFailure(run.failure)?.message ?? '';
const events = spanEvents;

/** Groups drafts of one problem (one source key) into one draft whose evidence lists every run. */
class Collector {
  private readonly byKey = new Map<string, FindingDraft>();
  /** Runs come oldest first: the newest occurrence names the finding's source run and revision. */
  add(draft: Omit<FindingDraft, 'evidence'> & { evidence: Evidence }) {
    const existing = this.byKey.get(draft.sourceKey);
    if (!existing) {
      this.byKey.set(draft.sourceKey, { ...draft, evidence: [draft.evidence] });
      return;
    }
    const same = existing.evidence.find((e) => e.run_id === draft.evidence.run_id);
    if (same) same.span_ids = [...new Set([...same.span_ids, ...draft.evidence.span_ids])];
    else existing.evidence.push(draft.evidence);
    existing.sourceRunId = draft.sourceRunId;
    existing.agentRevisionId = draft.agentRevisionId;
  }
  drafts(): FindingDraft[] {
    return [...this.byKey.values()].map((d) => ({ ...d, evidence: d.evidence.slice(-MAX_EVIDENCE) }));
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function runDetectors(input: DetectorInput, enabled: ReadonlySet<Detector>): FindingDraft[] {
  const out = new Collector();
  const spansByRun = new Map<string, TraceSpan[]>();
  for (const span of input.spans) spansByRun.set(span.runId, [...(spansByRun.get(span.runId) ?? []), span]);
  const runIds = new Set(input.runs.map((r) => r.id));

  for (const run of input.runs) {
    const spans = spansByRun.get(run.id) ?? [];
    const runSpans = spans.filter((s) => operation(s) === 'invoke_agent');
    const errorRunSpans = runSpans.filter((s) => s.statusCode === 'error').map((s) => s.spanId);
    const lastRunSpan = runSpans.at(-1)?.spanId;
    const base = { sourceRunId: run.id, agentRevisionId: run.agentRevisionId };
    const evidence = (spanIds: string[]): Evidence => ({ run_id: run.id, trace_id: run.traceId, span_ids: [...new Set(spanIds)] });

    if (run.status === 'failed') {
      const code = failureCode(run);
      const message = failureMessage(run);
      const retrySpans = runSpans.filter((s) => events(s).some((e) => e.name === EVENT.retry)).map((s) => s.spanId);
      const failedSpans = errorRunSpans.length ? errorRunSpans : lastRunSpan ? [lastRunSpan] : [];
      if (code === 'usage_limit_exceeded' && enabled.has('usage_limit')) {
        const requests = spans.filter((s) => operation(s) === 'chat').map((s) => s.spanId);
        out.add({
          ...base,
          detector: 'usage_limit',
          sourceKey: 'usage_limit:requests',
          category: 'usage_limit',
          severity: 'medium',
          title: 'Runs stop at the usage limit',
          explanation: `The run used up its allowance of model requests (options.max_usage) before it finished. ${message}`.trim(),
          suggestion: 'Raise options.max_usage.requests for this kind of task, or instruct the agent to reach an answer in fewer steps.',
          limitations: 'Counts only runs that failed with usage_limit_exceeded; it cannot tell whether more requests would have helped.',
          evidence: evidence([...failedSpans, ...requests]),
        });
      } else if (code === 'output_invalid' && enabled.has('output_spec_failure')) {
        out.add({
          ...base,
          detector: 'output_spec_failure',
          sourceKey: 'output_spec_failure',
          category: 'output_spec',
          severity: 'high',
          title: 'Answers do not match the output spec',
          explanation: `The agent's final answer did not match its output_spec after every output retry. ${message}`.trim(),
          suggestion: 'Make the instructions state the expected output shape, simplify the output_spec, or allow more retries.output.',
          limitations: 'The problem of the last retry is shown; earlier retries may have failed differently.',
          evidence: evidence([...failedSpans, ...retrySpans]),
        });
      } else if ((code === 'tool_error' || (code === 'model_error' && run.attempts > 1)) && enabled.has('retries_exhausted')) {
        const errorTools = spans.filter((s) => operation(s) === 'execute_tool' && s.statusCode === 'error').map((s) => s.spanId);
        out.add({
          ...base,
          detector: 'retries_exhausted',
          sourceKey: `retries_exhausted:${code}`,
          category: 'retries_exhausted',
          severity: 'high',
          title: code === 'tool_error' ? 'Tool-call retries run out' : 'Model requests fail on every attempt',
          explanation:
            code === 'tool_error'
              ? `Tool calls kept failing (unknown tools, invalid arguments or failed executions) until retries.tools ran out. ${message}`.trim()
              : `Every attempt of the run failed on a model error (${plural(run.attempts, 'attempt')}). ${message}`.trim(),
          suggestion:
            code === 'tool_error'
              ? "Check the failing tools' configuration and describe their arguments more precisely in the instructions."
              : "Check the model provider's status, credentials and limits.",
          limitations: 'Transient outages look the same as lasting problems from traces alone.',
          evidence: evidence([...failedSpans, ...retrySpans, ...errorTools]),
        });
      } else if (enabled.has('run_failed') && !['usage_limit_exceeded', 'output_invalid', 'tool_error'].includes(code)) {
        out.add({
          ...base,
          detector: 'run_failed',
          sourceKey: `run_failed:${code}`,
          category: 'execution_failure',
          severity: code === 'worker_lost' || code === 'internal' ? 'critical' : 'high',
          title: `Runs fail with ${code}`,
          explanation: `The run failed with the code ${code}. ${message}`.trim(),
          suggestion: 'Read the failed span for the error; fix the configuration or the provider it names.',
          limitations: 'The failure code and message are what the engine recorded; the cause may lie outside the service.',
          evidence: evidence(failedSpans),
        });
      }
    }

    const toolSpans = spans.filter((s) => operation(s) === 'execute_tool');
    for (const span of toolSpans) {
      const a = attrs(span);
      const tool = String(a[ATTR.toolName] ?? 'unknown');
      if (a[ATTR.toolOutcome] === 'error' && span.statusMessage !== 'aborted' && enabled.has('tool_error')) {
        out.add({
          ...base,
          detector: 'tool_error',
          sourceKey: `tool_error:${tool}`,
          category: 'tool_error',
          severity: 'medium',
          title: `Calls of ${tool} fail`,
          explanation: `A call of the tool ${tool} ended in an error: ${span.statusMessage ?? 'no message'}`,
          suggestion: `Check the configuration of ${tool} and the arguments the agent passes; the span's status message has the error.`,
          limitations: 'Errors the model recovered from are counted too.',
          evidence: evidence([span.spanId]),
        });
      }
      if (a[ATTR.toolOutcome] === 'denied' && enabled.has('denied_action')) {
        const by = String(a[ATTR.toolDeniedBy] ?? 'user');
        out.add({
          ...base,
          detector: 'denied_action',
          sourceKey: `denied_action:${tool}:${by}`,
          category: 'denied_action',
          severity: by === 'reviewer' ? 'high' : 'medium',
          title: `Calls of ${tool} are denied (${by})`,
          explanation: `The agent called ${tool} and the call was refused by the ${by === 'configuration' ? "tool's deny permission" : by}.`,
          suggestion:
            by === 'configuration'
              ? `Remove ${tool} from the agent's tools, or tell the agent not to use it.`
              : `Review why the agent wanted ${tool}; adjust its instructions or the tool's permission so it asks for what will be approved.`,
          limitations: 'A refusal may be right: the finding says the agent asked for something refused, not that the refusal was wrong.',
          evidence: evidence([span.spanId]),
        });
      }
    }

    if (run.status !== 'completed' || !enabled.has('latency_outlier') || !input.latency) continue;
    if (input.latency.count < LATENCY_MIN_HISTORY || !run.startedAt || !run.sealedAt) continue;
    const took = run.sealedAt.getTime() - run.startedAt.getTime();
    const median = input.latency.medianMs;
    if (took > LATENCY_FACTOR * median && took - median >= LATENCY_MIN_EXCESS_MS) {
      out.add({
        ...base,
        detector: 'latency_outlier',
        sourceKey: 'latency_outlier',
        category: 'latency',
        severity: 'low',
        title: 'Runs take much longer than usual',
        explanation: `The run took ${took} ms; the agent's median over its last ${plural(input.latency.count, 'run')} is ${Math.round(median)} ms.`,
        suggestion: 'Compare the slow spans (model requests, tool calls) with those of a usual run of the agent.',
        limitations: `Measured from the run's start to its seal against the agent's own history; waits for tools count too.`,
        evidence: evidence(lastRunSpan ? [lastRunSpan] : []),
      });
    }
  }

  if (enabled.has('tool_loop')) detectLoops(input, runIds, out);
  return out.drafts();
}

/** A loop: the same tool with the same arguments called LOOP_THRESHOLD times or more in one run. */
function detectLoops(input: DetectorInput, runIds: Set<string>, out: Collector) {
  const groups = new Map<string, DetectorCall[]>();
  for (const call of input.calls) {
    if (!runIds.has(call.runId)) continue;
    const key = `${call.runId}\n${call.toolName}\n${digestOf(call.arguments ?? null)}`;
    groups.set(key, [...(groups.get(key) ?? []), call]);
  }
  const spanOfCall = new Map<string, string>();
  for (const span of input.spans) {
    const id = attrs(span)[ATTR.toolCallId];
    if (operation(span) === 'execute_tool' && typeof id === 'string') spanOfCall.set(`${span.runId}\n${id}`, span.spanId);
  }
  const runs = new Map(input.runs.map((r) => [r.id, r]));
  for (const calls of groups.values()) {
    if (calls.length < LOOP_THRESHOLD) continue;
    const run = runs.get(calls[0]!.runId)!;
    const tool = calls[0]!.toolName;
    out.add({
      detector: 'tool_loop',
      sourceKey: `tool_loop:${tool}`,
      category: 'tool_loop',
      severity: 'high',
      title: `The agent repeats identical calls of ${tool}`,
      explanation: `In one run the agent called ${tool} ${calls.length} times with the same arguments.`,
      suggestion: `Tell the agent what to do with the result of ${tool} (or when to stop); check that the tool's result answers what it asks.`,
      limitations: 'Identical calls can be legitimate polling; arguments are compared exactly.',
      sourceRunId: run.id,
      agentRevisionId: run.agentRevisionId,
      evidence: {
        run_id: run.id,
        trace_id: run.traceId,
        span_ids: calls.map((c) => spanOfCall.get(`${c.runId}\n${c.toolCallId}`)).filter((s): s is string => !!s),
      },
    });
  }
}
