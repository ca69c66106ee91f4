// One agent: its facts, its name/description/labels, its revisions (default, comparison, publishing)
// and archiving. Every change carries the ETag the page last read and reads the agent again afterwards.
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '../../api';
import { Badge, ErrorNotice, Loading, PageHeader, Time } from '../../components/ui';
import { AgentDetailsForm } from './AgentDetailsForm';
import { ArchiveControl } from './ArchiveControl';
import { AGENT, AGENT_REVISIONS, type Revision } from './documents';
import { PublishRevisionForm } from './PublishRevisionForm';
import { RevisionsPanel } from './RevisionsPanel';
import { usePagedQuery } from '../../lib/usePagedQuery';

export function AgentPage() {
  const { agentId = '' } = useParams();
  const agentQuery = useQuery(AGENT, { id: agentId }, { skip: !agentId });
  const revisions = usePagedQuery(AGENT_REVISIONS, { agentId, first: 20 }, (data) => data.agentRevisions, { skip: !agentId });
  // Forms start from the agent as read; a reload (after a conflict) starts them again from the new one.
  const [generation, setGeneration] = useState(0);
  // A revision the user chose to start the publish form from (else the default revision).
  const [copyOf, setCopyOf] = useState<{ revision: Revision; nonce: number } | null>(null);
  const agent = agentQuery.data?.agent;

  const refresh = async () => {
    await Promise.all([agentQuery.refetch(), revisions.refetch()]);
  };
  const reload = async () => {
    await refresh();
    setGeneration((value) => value + 1);
  };

  if (!agent)
    return (
      <>
        <PageHeader title="Agent" />
        <ErrorNotice error={agentQuery.error} title="Could not read the agent" />
        {agentQuery.loading ? <Loading label="Loading the agent…" /> : null}
      </>
    );

  return (
    <>
      <PageHeader
        title={agent.name}
        actions={
          <>
            <Link className="button" to={`/runs/new?agent=${encodeURIComponent(agent.id)}`}>
              Start a run
            </Link>
            <ArchiveControl agent={agent} onChanged={() => void refresh()} onReload={() => void reload()} />
          </>
        }
      >
        {agent.description}
      </PageHeader>
      <ErrorNotice error={agentQuery.error} title="Could not read the agent again" />
      <p>
        <Link to="/agents">← All agents</Link>
      </p>
      <dl className="facts">
        <dt>State</dt>
        <dd>{agent.archivedAt ? <Badge value="archived" /> : 'open'}</dd>
        <dt>ID</dt>
        <dd>
          <code>{agent.id}</code>
        </dd>
        <dt>Default revision</dt>
        <dd>{agent.defaultRevision ? `#${agent.defaultRevision.number}` : '—'}</dd>
        <dt>Labels</dt>
        <dd>
          {agent.labelList.length
            ? agent.labelList.map((label) => (
                <code key={label.key} className="label-chip">
                  {label.key}:{label.value}
                </code>
              ))
            : '—'}
        </dd>
        <dt>Source</dt>
        <dd>
          {agent.source}
          {agent.presetKind ? ` (${agent.presetKind})` : ''}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time value={agent.createdAt} /> by <code>{agent.createdById}</code>
        </dd>
        <dt>Updated</dt>
        <dd>
          <Time value={agent.updatedAt} /> by <code>{agent.updatedById}</code> (version {agent.version})
        </dd>
      </dl>
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
  );
}
