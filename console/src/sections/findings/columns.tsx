// The columns the findings pages share: a finding as the findings list and an analysis' findings show
// it, and a traced run as a finding's evidence and an analysis' selected traces show it.
import { Link } from 'react-router';
import type { Column } from '../../components/PagedTable';
import { Badge } from '../../components/ui';
import type { FindingSummary } from './documents';
import { ASSESSMENT_LABELS, stateWord } from './words';

type FindingColumn = Column<FindingSummary>;

export const FINDING_COLUMNS = {
  title: { name: 'Finding', cell: (finding) => <Link to={`/findings/${finding.id}`}>{finding.title}</Link> },
  severity: { name: 'Severity', cell: (finding) => <Badge value={finding.severity} /> },
  category: { name: 'Category', cell: (finding) => finding.category },
  assessment: { name: 'Assessment', cell: (finding) => ASSESSMENT_LABELS[finding.assessment] ?? finding.assessment },
  state: { name: 'State', cell: (finding) => <Badge value={stateWord(finding.closed)} /> },
} satisfies Record<string, FindingColumn>;

/** One run's trace, keyed for a table by both ids (a run may have been traced more than once). */
export interface TraceRow {
  id: string;
  runId: string;
  traceId: string;
}

export function traceRows<T extends { runId: string; traceId: string }>(traces: readonly T[]): (T & TraceRow)[] {
  return traces.map((trace) => ({ ...trace, id: `${trace.runId}:${trace.traceId}` }));
}

/** The run (a link to its page) and its trace id, then the table's own `more` columns. */
export function traceColumns<T extends TraceRow>(...more: Column<T>[]): Column<T>[] {
  return [
    { name: 'Run', cell: (trace) => <Link to={`/runs/${trace.runId}`}>{trace.runId}</Link> },
    { name: 'Trace', cell: (trace) => <code>{trace.traceId}</code> },
    ...more,
  ];
}
