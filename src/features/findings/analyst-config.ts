// The analysis agent: a builtin agent that reads the traces a finding analysis selected (through
// the analysis tools, src/engine/tools/analysis-tools.ts) and reports findings as structured output.
// Its definition ships with the service; a finding analysis creates the workspace's analyst on first
// use when the workspace has a usable model (src/features/findings/analysis-agent.ts).
import { SEVERITIES } from '../../lib/finding-severities.js';

export const ANALYST_PRESET = 'analyst';
/** The run label that ties an analysis run to its finding analysis (and offers it the analysis tools). */
export const ANALYSIS_LABEL = 'finding-analysis';

/** Bump `version` when the definition changes; workspaces get a new revision on their next analysis. */
export const ANALYST_DEFINITION = {
  version: 1,
  name: 'Trace analyst',
  description: 'Built in: reads the traces a finding analysis selected and reports problems of the agent that ran them.',
  instructions: [
    'You are the trace analyst of this workspace. A finding analysis selected traces of one agent’s runs;',
    'find problems in how that agent worked: wrong or wasted tool calls, misunderstood instructions,',
    'failures and their causes, slow or repeated steps, unsafe actions.',
    '',
    'Call list_selected_traces first, then read_trace for each trace you examine. Report only what the',
    'spans show. Every finding cites evidence: the run id, the trace id and the span ids that show it,',
    'exactly as read_trace gave them. Give each finding a short stable source_key naming the problem',
    '(lowercase words joined by _ or :), so the same problem found again has the same key.',
    'When you find nothing, answer an empty findings list.',
  ].join('\n'),
  output_spec: {
    name: 'analysis_findings',
    description: 'The problems found in the selected traces.',
    resources: {},
    schema: {
      type: 'object',
      properties: {
        findings: {
          type: 'array',
          maxItems: 50,
          items: {
            type: 'object',
            properties: {
              title: { type: 'string' },
              explanation: { type: 'string' },
              suggestion: { type: 'string' },
              limitations: { type: 'string' },
              category: { type: 'string' },
              severity: { type: 'string', enum: [...SEVERITIES] },
              evidence: {
                type: 'object',
                properties: {
                  run_id: { type: 'string' },
                  trace_id: { type: 'string' },
                  span_ids: { type: 'array', items: { type: 'string' } },
                },
                required: ['run_id', 'trace_id', 'span_ids'],
              },
              source_key: { type: 'string' },
            },
            required: ['title', 'explanation', 'category', 'severity', 'evidence', 'source_key'],
          },
        },
      },
      required: ['findings'],
    },
  },
} as const;

export function analystConfig(model: string): Record<string, unknown> {
  const { instructions, output_spec } = ANALYST_DEFINITION;
  return { model, instructions, output_spec };
}
