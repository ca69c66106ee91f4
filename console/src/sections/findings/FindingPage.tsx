// One finding: what was found and what to do about it, the evidence (runs, traces, spans), where it
// came from, and the reviewer's form.
import { useParams, Link } from 'react-router';
import { useQuery } from '../../api';
import { Badge, ErrorNotice, Loading, PageHeader, Time } from '../../components/ui';
import { FINDING } from './documents';
import { AgentLink, useAgentNames } from './agents';
import { FindingEvidence } from './FindingEvidence';
import { ReviewForm } from './ReviewForm';
import { ASSESSMENT_LABELS, stateWord } from './words';

export function FindingPage() {
  const { findingId = '' } = useParams();
  const finding = useQuery(FINDING, { id: findingId }, { skip: !findingId });
  const { nameOf } = useAgentNames();
  const data = finding.data?.finding;

  return (
    <>
      <PageHeader title={data ? data.title : 'Finding'}>
        {data ? (
          <>
            <Badge value={data.severity} /> {data.category} · {ASSESSMENT_LABELS[data.assessment] ?? data.assessment} ·{' '}
            <Badge value={stateWord(data.closed)} />
          </>
        ) : null}
      </PageHeader>
      <p>
        <Link to="/findings">All findings</Link>
      </p>
      <ErrorNotice error={finding.error} />
      {finding.loading && !data ? <Loading /> : null}
      {data ? (
        <>
          <section aria-labelledby="finding-what-heading">
            <h2 id="finding-what-heading">What was found</h2>
            <p className="finding-text">{data.explanation}</p>
            <h3>Suggestion</h3>
            <p className="finding-text">{data.suggestion || <span className="muted">none</span>}</p>
            <h3>Limitations</h3>
            <p className="finding-text">{data.limitations || <span className="muted">none given</span>}</p>
          </section>
          <ReviewForm key={data.id} finding={data} onSaved={() => void finding.refetch()} />
          <FindingEvidence evidence={data.evidence} />
          <section aria-labelledby="finding-details-heading">
            <h2 id="finding-details-heading">Details</h2>
            <dl className="facts">
              <dt>Id</dt>
              <dd>
                <code>{data.id}</code>
              </dd>
              <dt>Agent</dt>
              <dd>
                <AgentLink id={data.agentId} name={nameOf(data.agentId)} />
                {data.agentRevisionId ? (
                  <>
                    {' '}
                    (revision <code>{data.agentRevisionId}</code>)
                  </>
                ) : null}
              </dd>
              <dt>Problem key</dt>
              <dd>
                <code>{data.sourceKey}</code>
              </dd>
              <dt>Newest run showing it</dt>
              <dd>
                {data.sourceRunId ? <Link to={`/runs/${data.sourceRunId}`}>{data.sourceRunId}</Link> : <span className="muted">—</span>}
              </dd>
              <dt>Last found by</dt>
              <dd>
                <Link to={`/findings/analyses/${data.analysisId}`}>analysis {data.analysisId}</Link>
              </dd>
              <dt>Version</dt>
              <dd>{data.version}</dd>
              <dt>Created</dt>
              <dd>
                <Time value={data.createdAt} /> by <code>{data.createdById}</code>
              </dd>
              <dt>Updated</dt>
              <dd>
                <Time value={data.updatedAt} /> by <code>{data.updatedById}</code>
              </dd>
            </dl>
          </section>
        </>
      ) : null}
    </>
  );
}
