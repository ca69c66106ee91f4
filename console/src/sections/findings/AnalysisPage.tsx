// One finding analysis: what it selected and read, the analysis agent's run, and the findings it
// created or updated — exactly those, as the service recorded them (`FindingAnalysis.findings`),
// even when a later analysis found the same problems again; narrowed to the created or the
// found-again ones on request.
import { ConsoleAnalysisFindingsDocument, ConsoleFindingAnalysisDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '../../api';
import { Badge, ColumnHeads, Empty, ErrorNotice, Loading, MorePages, Select, Time } from '../../components/ui';
import { DetailPage } from '../../components/DetailPage';
import { ChangedBy, Facts } from '../../components/Facts';
import { usePagedQuery } from '../../lib/usePagedQuery';

import { AgentLink, useAgentNames } from './agents';
import { AnalystRun } from './AnalystRun';
import { ASSESSMENT_LABELS, stateWord } from './words';

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
  const produced = findings.nodes;

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
      actions={() => (
        <button type="button" className="secondary" onClick={refresh}>
          Refresh
        </button>
      )}
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
            <ErrorNotice error={findings.error} />
            {findings.loading && !findings.data ? <Loading label="Loading findings…" /> : null}
            {findings.data && produced.length === 0 && !findings.hasNextPage ? (
              <Empty>{change ? 'None of this kind.' : 'This analysis found nothing.'}</Empty>
            ) : null}
            {produced.length > 0 ? (
              <table aria-label="Findings it produced">
                <ColumnHeads names={['Finding', 'Severity', 'Category', 'Assessment', 'State', 'Last found by']} />
                <tbody>
                  {produced.map((finding) => (
                    <tr key={finding.id}>
                      <td>
                        <Link to={`/findings/${finding.id}`}>{finding.title}</Link>
                      </td>
                      <td>
                        <Badge value={finding.severity} />
                      </td>
                      <td>{finding.category}</td>
                      <td>{ASSESSMENT_LABELS[finding.assessment] ?? finding.assessment}</td>
                      <td>
                        <Badge value={stateWord(finding.closed)} />
                      </td>
                      <td>
                        {finding.analysisId === analysisId ? (
                          'this analysis'
                        ) : (
                          <Link to={`/findings/analyses/${finding.analysisId}`}>a later analysis</Link>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
            <MorePages hasNextPage={findings.hasNextPage} loading={findings.loadingMore} onMore={findings.loadMore} />
          </section>
          <section aria-labelledby="analysis-traces-heading">
            <h2 id="analysis-traces-heading">Selected traces</h2>
            {data.selectedTraces.length === 0 ? (
              <Empty>No traced run matched.</Empty>
            ) : (
              <table aria-label="Selected traces">
                <ColumnHeads names={['Run', 'Trace', 'Read']} />
                <tbody>
                  {data.selectedTraces.map((trace) => (
                    <tr key={`${trace.runId}:${trace.traceId}`}>
                      <td>
                        <Link to={`/runs/${trace.runId}`}>{trace.runId}</Link>
                      </td>
                      <td>
                        <code>{trace.traceId}</code>
                      </td>
                      <td>{data.readTraceIds.includes(trace.traceId) ? 'yes' : 'no'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </DetailPage>
  );
}
