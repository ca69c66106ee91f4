// The JSON documents stored with findings and finding analyses, defined once: the TypeBox schema
// is what a read is checked against, and the TypeScript type is derived from it, so the two cannot
// drift. Each column has one reader here; nothing else casts these columns.
import Type, { type Static } from 'typebox';
import { readDocument } from '../../lib/json-documents.js';

/** One run a finding cites: the run, its trace, and the spans that show the problem. */
export const Evidence = Type.Object({ run_id: Type.String(), trace_id: Type.String(), span_ids: Type.Array(Type.String()) });
export type Evidence = Static<typeof Evidence>;
const EvidenceList = Type.Array(Evidence);

/** The selection as stored and shown (`selection`): the agent it resolved to and the bounds. */
export const Selection = Type.Object({
  agent_id: Type.Union([Type.String(), Type.Null()]),
  trace_id: Type.Union([Type.String(), Type.Null()]),
  max_traces: Type.Integer(),
  presets: Type.Array(Type.String()),
  started_after: Type.Union([Type.String(), Type.Null()]),
  started_before: Type.Union([Type.String(), Type.Null()]),
});
export type Selection = Static<typeof Selection>;

/** A trace an analysis selected, with the run at its root. */
export const SelectedTrace = Type.Object({ run_id: Type.String(), trace_id: Type.String() });
export type SelectedTrace = Static<typeof SelectedTrace>;
const SelectedTraceList = Type.Array(SelectedTrace);

export const findingEvidence = (finding: { evidence: unknown }): Evidence[] =>
  readDocument(EvidenceList, finding.evidence, 'findings.evidence');

export const analysisSelection = (analysis: { selection: unknown }): Selection =>
  readDocument(Selection, analysis.selection, 'finding_analyses.selection');

export const analysisSelectedTraces = (analysis: { selectedTraces: unknown }): SelectedTrace[] =>
  readDocument(SelectedTraceList, analysis.selectedTraces, 'finding_analyses.selected_traces');
