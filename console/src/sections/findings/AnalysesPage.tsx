// Finding analyses, newest first, and the form that starts one.
import { ConsoleFindingAnalysesDocument } from '../../../generated/graphql';
import { Link } from 'react-router';
import { PagedTable } from '../../components/PagedTable';
import { Badge, ErrorNotice, PageHeader, Time } from '../../components/ui';
import { usePagedQuery } from '../../lib/usePagedQuery';

import { AgentLink, useAgentNames } from './agents';
import { StartAnalysisForm } from './StartAnalysisForm';

export function AnalysesPage() {
  const { agents, nameOf, error: agentsError } = useAgentNames();
  const list = usePagedQuery(ConsoleFindingAnalysesDocument, { first: 20 }, (data) => data.findingAnalyses);
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
      <PagedTable
        list={list}
        empty="No analyses yet."
        label="Analyses"
        columns={[
          { name: 'Analysis', cell: (analysis) => <Link to={`/findings/analyses/${analysis.id}`}>{analysis.id}</Link> },
          { name: 'Agent', cell: (analysis) => <AgentLink id={analysis.agentId} name={nameOf(analysis.agentId)} /> },
          {
            name: 'Traces read',
            cell: (analysis) => `${analysis.readTraceIds.length}${analysis.selectionTruncated ? ' (more matched)' : ''}`,
          },
          { name: 'Findings', cell: (analysis) => analysis.findingCount },
          {
            name: 'Analyst run',
            cell: (analysis) => (analysis.runStatus ? <Badge value={analysis.runStatus} /> : <span className="muted">none</span>),
          },
          { name: 'Started', cell: (analysis) => <Time value={analysis.createdAt} /> },
        ]}
      />
    </>
  );
}
