// One finding analysis: what it selected and read, the analysis agent's run, and the findings it
// created or updated — exactly those, as the service recorded them (`FindingAnalysis.findings`),
// even when a later analysis found the same problems again; narrowed to the created or the
// found-again ones on request.
import { ConsoleAnalysisFindingsDocument, ConsoleFindingAnalysisDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '../../api';
import { Empty, RefreshButton, Select, Time } from '../../components/ui';
import { ColumnTable, PagedTable } from '../../components/PagedTable';
import { DetailPage } from '../../components/DetailPage';
import { ChangedBy, Facts } from '../../components/Facts';
import { usePagedQuery } from '../../lib/usePagedQuery';

import { AgentLink, useAgentNames } from './agents';
import { AnalystRun } from './AnalystRun';
import { FINDING_COLUMNS, traceColumns, traceRows } from './columns';

const CHANGE_OPTIONS = [
  { value: '', label: 'everything it created or updated' },
  { value: 'created', label: 'only the findings it created' },
  { value: 'updated', label: 'only the findings it found again' },
];

export function AnalysisPage() {
  const { analysisId = '' } = useParams();
  const analysis = useQuery(ConsoleFindingAnalysisDocument, { id: analysisId }, { skip: !analysisId });
  const { nameOf } = useAgentNames();
  const data = analysis.data?.findingAnalysis;
  const [change, setChange] = useState('');
  const findings = usePagedQuery(
    ConsoleAnalysisFindingsDocument,
    { id: analysisId, change: change || null, first: 50 },
    (answer) => answer.findingAnalysis.findings,
    { skip: !analysisId },
  );

  function refresh() {
    void analysis.refetch();
    void findings.refetch();
  }

  return (
    <DetailPage
      detail={{ item: data, query: analysis }}
      title={data ? `Analysis ${data.id}` : 'Analysis'}
      description={
        <>
          <Link to="/findings/analyses">All analyses</Link> · <Link to="/findings">All findings</Link>
        </>
      }
      actions={() => <RefreshButton onRefresh={refresh} />}
    >
      {(data) => (
        <>
          <section aria-labelledby="analysis-summary-heading">
            <h2 id="analysis-summary-heading">Summary</h2>
            <Facts
              facts={[
                ['Agent', <AgentLink id={data.agentId} name={nameOf(data.agentId)} />],
                ['Started', <ChangedBy at={data.createdAt} by={data.createdById} />],
                ['Detectors', data.selection.presets.join(', ')],
                [
                  'Traces',
                  <>
                    {data.readTraceIds.length} read (at most {data.selection.maxTraces}
                    {data.selectionTruncated ? '; more matched' : ''}), {data.citedTraceCount} cited by its findings
                  </>,
                ],
                data.selection.traceId ? ['Only the trace', <code>{data.selection.traceId}</code>] : null,
                data.selection.startedAfter || data.selection.startedBefore
                  ? [
                      'Runs started',
                      <>
                        after <Time value={data.selection.startedAfter} />, before <Time value={data.selection.startedBefore} />
                      </>,
                    ]
                  : null,
                ['Findings created or updated', data.findingCount],
                [
                  'Analyst run',
                  data.runId ? (
                    <AnalystRun runId={data.runId} recordedStatus={data.runStatus} onSettled={refresh} />
                  ) : (
                    <span className="muted">none (no usable model, or nothing to read): detectors only</span>
                  ),
                ],
              ]}
            />
          </section>
          <section aria-labelledby="analysis-findings-heading">
            <h2 id="analysis-findings-heading">Findings it produced</h2>
            <Select label="Show" value={change} onValue={setChange} options={CHANGE_OPTIONS} />
            <PagedTable
              list={findings}
              empty={change ? 'None of this kind.' : 'This analysis found nothing.'}
              label="Findings it produced"
              loadingLabel="Loading findings…"
              columns={[
                FINDING_COLUMNS.title,
                FINDING_COLUMNS.severity,
                FINDING_COLUMNS.category,
                FINDING_COLUMNS.assessment,
                FINDING_COLUMNS.state,
                {
                  name: 'Last found by',
                  cell: (finding) =>
                    finding.analysisId === analysisId ? (
                      'this analysis'
                    ) : (
                      <Link to={`/findings/analyses/${finding.analysisId}`}>a later analysis</Link>
                    ),
                },
              ]}
            />
          </section>
          <section aria-labelledby="analysis-traces-heading">
            <h2 id="analysis-traces-heading">Selected traces</h2>
            {data.selectedTraces.length === 0 ? (
              <Empty>No traced run matched.</Empty>
            ) : (
              <ColumnTable
                rows={traceRows(data.selectedTraces)}
                label="Selected traces"
                columns={traceColumns({ name: 'Read', cell: (trace) => (data.readTraceIds.includes(trace.traceId) ? 'yes' : 'no') })}
              />
            )}
          </section>
        </>
      )}
    </DetailPage>
  );
}
