// The analysis tools: what the builtin trace analyst (src/features/findings/analyst-config.ts) reads the traces of its
// finding analysis with. Offered only to a run of the workspace's analyst that carries the
// `finding-analysis` label naming an analysis of its workspace; they read that analysis's selected
// traces and nothing else. Both only read stored rows: allowed without review.
import { ANALYSIS_LABEL } from '../../features/findings/analyst-config.js';
import { AppError } from '../../lib/errors.js';
import { analystRunSelection } from '../../features/findings/finding-analyses.js';
import { traceSpansFrom } from '../../features/traces/traces.js';
import { storedLabels } from '../../lib/labels.js';
import { spanAttributes, spanEvents } from '../../features/traces/traces.js';
import type { SpanAttributes } from '../../traces/span-documents.js';
import Type from 'typebox';
import { checkedExecution, toolInputSchema, type RunTool, type ToolSource } from './tool.js';

const LIST_SCHEMA = Type.Object({}, { additionalProperties: false });
const READ_SCHEMA = Type.Object(
  { trace_id: Type.String({ description: 'A trace id from list_selected_traces.' }) },
  { additionalProperties: false },
);

/** The most spans read_trace returns for one trace (the oldest first); longer traces say they were cut. */
export const READ_TRACE_MAX_SPANS = 500;
/** Attribute values longer than this are cut: the analyst needs their gist, not whole payloads. */
const ATTRIBUTE_MAX_CHARS = 500;

function compactAttributes(attributes: SpanAttributes): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(attributes)) {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    out[key] = text.length > ATTRIBUTE_MAX_CHARS ? `${text.slice(0, ATTRIBUTE_MAX_CHARS)}…` : value;
  }
  return out;
}

export const analysisTools: ToolSource = async ({ call, run }) => {
  const analysisId = storedLabels(run.labels, 'runs.labels')[ANALYSIS_LABEL];
  if (!analysisId) return [];
  const selected = await analystRunSelection(call, run, analysisId);
  if (!selected) return [];
  const traceIds = new Set(selected.map((s) => s.trace_id));
  const tool = (t: Omit<RunTool, 'permission' | 'offered' | 'skipReview'>): RunTool => ({
    ...t,
    permission: 'allow',
    offered: true,
    skipReview: true,
  });
  return [
    tool({
      name: 'list_selected_traces',
      description: 'The traces this analysis selected: each root run id and its trace id, newest first.',
      inputSchema: toolInputSchema(LIST_SCHEMA),
      execution: { kind: 'server', execute: async () => ({ traces: selected }) },
    }),
    tool({
      name: 'read_trace',
      description:
        'The spans of one selected trace, oldest first: span id, parent span id, run id, name, status, duration, attributes (long values cut) and event names.',
      inputSchema: toolInputSchema(READ_SCHEMA),
      execution: checkedExecution(READ_SCHEMA, async (args) => {
        const traceId = args.trace_id;
        if (!traceIds.has(traceId)) throw new AppError('not_found', 'trace_id is not one of the traces this analysis selected');
        const spans = await traceSpansFrom(call, run.workspaceId, traceId, READ_TRACE_MAX_SPANS + 1);
        return {
          trace_id: traceId,
          truncated: spans.length > READ_TRACE_MAX_SPANS,
          spans: spans.slice(0, READ_TRACE_MAX_SPANS).map((s) => ({
            span_id: s.spanId,
            parent_span_id: s.parentSpanId,
            run_id: s.runId,
            name: s.name,
            status: s.statusCode,
            ...(s.statusMessage ? { status_message: s.statusMessage } : {}),
            duration_ms: Number((s.endTimeUnixNano - s.startTimeUnixNano) / 1_000_000n),
            attributes: compactAttributes(spanAttributes(s)),
            events: spanEvents(s).map((e) => e.name),
          })),
        };
      }),
    }),
  ];
};
