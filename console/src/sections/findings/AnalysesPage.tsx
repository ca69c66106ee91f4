// Finding analyses, newest first, and the form that starts one.
import { Link } from 'react-router';
import { Badge, ColumnHeads, Empty, ErrorNotice, Loading, MorePages, PageHeader, Time } from '../../components/ui';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { FINDING_ANALYSES } from './documents';
import { AgentLink, useAgentNames } from './agents';
import { StartAnalysisForm } from './StartAnalysisForm';

export function AnalysesPage() {
  const { agents, nameOf, error: agentsError } = useAgentNames();
  const list = usePagedQuery(FINDING_ANALYSES, { first: 20 }, (data) => data.findingAnalyses);
  return (
    <>
      <PageHeader
        title="Finding analyses"
        actions={
          <Link className="button secondary" to="/findings">
            Findings
          </Link>
        }
      >
        Each analysis reads an agent’s newest traces and records what its detectors (and the trace analyst) find.
      </PageHeader>
      <ErrorNotice error={agentsError} title="Could not load the agents" />
      <StartAnalysisForm agents={agents} />
      <h2>Analyses</h2>
      <ErrorNotice error={list.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && list.nodes.length === 0 ? <Empty>No analyses yet.</Empty> : null}
      {list.nodes.length > 0 ? (
        <table aria-label="Analyses">
          <ColumnHeads names={['Analysis', 'Agent', 'Traces read', 'Findings', 'Analyst run', 'Started']} />
          <tbody>
            {list.nodes.map((analysis) => (
              <tr key={analysis.id}>
                <td>
                  <Link to={`/findings/analyses/${analysis.id}`}>{analysis.id}</Link>
                </td>
                <td>
                  <AgentLink id={analysis.agentId} name={nameOf(analysis.agentId)} />
                </td>
                <td>
                  {analysis.readTraceIds.length}
                  {analysis.selectionTruncated ? ' (more matched)' : ''}
                </td>
                <td>{analysis.findingCount}</td>
                <td>{analysis.runStatus ? <Badge value={analysis.runStatus} /> : <span className="muted">none</span>}</td>
                <td>
                  <Time value={analysis.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <MorePages hasNextPage={list.hasNextPage} loading={list.loadingMore} onMore={list.loadMore} />
    </>
  );
}
