// One finding: what was found and what to do about it, the evidence (runs, traces, spans), where it
// came from, and the reviewer's form.
import { ConsoleFindingDocument } from '../../../generated/graphql';
import { useParams, Link } from 'react-router';
import { DetailPage, useDetailQuery } from '../../components/DetailPage';
import { ChangedBy, Facts } from '../../components/Facts';
import { Badge } from '../../components/ui';

import { AgentLink, useAgentNames } from './agents';
import { FindingEvidence } from './FindingEvidence';
import { ReviewForm } from './ReviewForm';
import { ASSESSMENT_LABELS, stateWord } from './words';

export function FindingPage() {
  const { findingId = '' } = useParams();
  const detail = useDetailQuery(ConsoleFindingDocument, { id: findingId }, (data) => data.finding, { skip: !findingId });
  const { nameOf } = useAgentNames();
  const finding = detail.item;

  return (
    <DetailPage
      detail={detail}
      title={finding ? finding.title : 'Finding'}
      description={
        finding ? (
          <>
            <Badge value={finding.severity} /> {finding.category} · {ASSESSMENT_LABELS[finding.assessment] ?? finding.assessment} ·{' '}
            <Badge value={stateWord(finding.closed)} />
          </>
        ) : null
      }
      back={{ to: '/findings', label: 'All findings' }}
    >
      {(finding) => (
        <>
          <section aria-labelledby="finding-what-heading">
            <h2 id="finding-what-heading">What was found</h2>
            <p className="finding-text">{finding.explanation}</p>
            <h3>Suggestion</h3>
            <p className="finding-text">{finding.suggestion || <span className="muted">none</span>}</p>
            <h3>Limitations</h3>
            <p className="finding-text">{finding.limitations || <span className="muted">none given</span>}</p>
          </section>
          <ReviewForm key={finding.id} finding={finding} onSaved={() => void detail.saved()} />
          <FindingEvidence evidence={finding.evidence} />
          <section aria-labelledby="finding-details-heading">
            <h2 id="finding-details-heading">Details</h2>
            <Facts
              facts={[
                ['Id', <code>{finding.id}</code>],
                [
                  'Agent',
                  <>
                    <AgentLink id={finding.agentId} name={nameOf(finding.agentId)} />
                    {finding.agentRevisionId ? (
                      <>
                        {' '}
                        (revision <code>{finding.agentRevisionId}</code>)
                      </>
                    ) : null}
                  </>,
                ],
                ['Problem key', <code>{finding.sourceKey}</code>],
                [
                  'Newest run showing it',
                  finding.sourceRunId ? (
                    <Link to={`/runs/${finding.sourceRunId}`}>{finding.sourceRunId}</Link>
                  ) : (
                    <span className="muted">—</span>
                  ),
                ],
                ['Last found by', <Link to={`/findings/analyses/${finding.analysisId}`}>analysis {finding.analysisId}</Link>],
                ['Version', finding.version],
                ['Created', <ChangedBy at={finding.createdAt} by={finding.createdById} />],
                ['Updated', <ChangedBy at={finding.updatedAt} by={finding.updatedById} />],
              ]}
            />
          </section>
        </>
      )}
    </DetailPage>
  );
}
