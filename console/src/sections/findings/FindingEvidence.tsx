// The evidence of a finding: each run that showed the problem, its trace and the spans that show it.
// Each span opens in its run's trace waterfall, chosen and in view. Trace retention may have deleted
// old spans; the ids stay (findings outlive the spans they cite).
import { Link } from 'react-router';
import { Empty } from '../../components/ui';
import { ColumnTable } from '../../components/PagedTable';
import { traceColumns, traceRows, type TraceRow } from './columns';
import type { FindingDetail } from './documents';

type Evidence = FindingDetail['evidence'][number];

export function FindingEvidence({ evidence }: { evidence: FindingDetail['evidence'] }) {
  return (
    <section aria-labelledby="finding-evidence-heading">
      <h2 id="finding-evidence-heading">Evidence</h2>
      {evidence.length === 0 ? (
        <Empty>No evidence recorded.</Empty>
      ) : (
        <ColumnTable
          rows={traceRows(evidence)}
          label="Evidence"
          columns={traceColumns<TraceRow & Evidence>({
            name: 'Spans',
            cell: (entry) => (
              <ul className="span-list">
                {entry.spanIds.map((spanId) => (
                  <li key={spanId}>
                    {/* Opens the run's waterfall with the span chosen and in view. */}
                    <Link to={`/runs/${entry.runId}?span=${spanId}`} title="Open this span in the run’s trace">
                      <code>{spanId}</code>
                    </Link>
                  </li>
                ))}
              </ul>
            ),
          })}
        />
      )}
      <p className="muted">Spans older than the trace retention may no longer be readable; the finding keeps their ids.</p>
    </section>
  );
}
