// One agent: its facts, its name/description/labels, its revisions (default, comparison, publishing)
// and archiving. Every change carries the ETag the page last read and reads the agent again afterwards.
import { Spending } from '../../components/Spending';
import { ConsoleAgentDocument, ConsoleAgentRevisionsDocument } from '../../../generated/graphql';
import { lazy, Suspense, useState } from 'react';
import { Link, useParams } from 'react-router';
import { DetailPage, useDetailQuery } from '../../components/DetailPage';
import { ChangedBy, Facts } from '../../components/Facts';
import { Badge, Loading } from '../../components/ui';
import { AgentDetailsForm } from './AgentDetailsForm';
import { ArchiveControl } from './ArchiveControl';
import { type Revision } from './documents';
import { PublishRevisionForm } from './PublishRevisionForm';
import { RevisionsPanel } from './RevisionsPanel';
import { usePagedQuery } from '../../lib/usePagedQuery';

// Its charts come with the dashboards' chunk (and the charting library), loaded when the page shows them.
const EntityCharts = lazy(async () => ({ default: (await import('../dashboard')).EntityCharts }));
export function AgentPage() {
  const { agentId = '' } = useParams();
  const detail = useDetailQuery(ConsoleAgentDocument, { id: agentId }, (data) => data.agent, { skip: !agentId });
  const revisions = usePagedQuery(ConsoleAgentRevisionsDocument, { agentId, first: 20 }, (data) => data.agentRevisions, { skip: !agentId });
  // Forms start from the agent as read; a reload (after a conflict) starts them again from the new one.
  const [generation, setGeneration] = useState(0);
  // A revision the user chose to start the publish form from (else the default revision).
  const [copyOf, setCopyOf] = useState<{ revision: Revision; nonce: number } | null>(null);
  const agent = detail.item;

  const refresh = async () => {
    await Promise.all([detail.query.refetch(), revisions.refetch()]);
  };
  const reload = async () => {
    await refresh();
    setGeneration((value) => value + 1);
  };

  return (
    <DetailPage
      detail={detail}
      title={agent?.name ?? 'Agent'}
      description={agent?.description}
      back={{ to: '/agents', label: '← All agents' }}
      errorTitle="Could not read the agent"
      loadingLabel="Loading the agent…"
      actions={(agent) => (
        <>
          <Link className="button" to={`/runs/new?agent=${encodeURIComponent(agent.id)}`}>
            Start a run
          </Link>
          <ArchiveControl agent={agent} onChanged={() => void refresh()} onReload={() => void reload()} />
        </>
      )}
    >
      {(agent) => (
        <>
          <Facts
            facts={[
              ['State', agent.archivedAt ? <Badge value="archived" /> : 'open'],
              ['ID', <code>{agent.id}</code>],
              ['Default revision', agent.defaultRevision ? `#${agent.defaultRevision.number}` : '—'],
              [
                'Labels',
                agent.labelList.length
                  ? agent.labelList.map((label) => (
                      <code key={label.key} className="label-chip">
                        {label.key}:{label.value}
                      </code>
                    ))
                  : '—',
              ],
              [
                'Source',
                <>
                  {agent.source}
                  {agent.presetKind ? ` (${agent.presetKind})` : ''}
                </>,
              ],
              ['Created', <ChangedBy at={agent.createdAt} by={agent.createdById} />],
              [
                'Updated',
                <>
                  <ChangedBy at={agent.updatedAt} by={agent.updatedById} /> (version {agent.version})
                </>,
              ],
            ]}
          />
          <Spending agentId={agent.id} />
          <Suspense fallback={<Loading label="Loading the charts…" />}>
            <EntityCharts agentId={agent.id} />
          </Suspense>
          <AgentDetailsForm key={`details-${generation}`} agent={agent} onSaved={() => void refresh()} onReload={() => void reload()} />
          <RevisionsPanel
            agent={agent}
            revisions={revisions}
            onChanged={() => void refresh()}
            onReload={() => void reload()}
            onEditCopy={(revision) => {
              setCopyOf((previous) => ({ revision, nonce: (previous?.nonce ?? 0) + 1 }));
            }}
          />
          <PublishRevisionForm
            key={`publish-${generation}-${copyOf?.nonce ?? 0}`}
            agent={agent}
            startingConfig={copyOf?.revision.configDocument ?? agent.defaultRevisionConfig?.configDocument}
            startedFrom={copyOf?.revision.number}
            onPublished={() => void refresh()}
            onReload={() => void reload()}
          />
        </>
      )}
    </DetailPage>
  );
}
