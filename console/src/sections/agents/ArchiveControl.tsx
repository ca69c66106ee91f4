// Archive or unarchive the agent, after a confirmation. An archived agent leaves the default list and
// starts no new runs; unarchiving brings it back unchanged.
import { ConsoleArchiveAgentDocument, ConsoleUnarchiveAgentDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { useMutation } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/ui';
import { type AgentHead } from './documents';

export function ArchiveControl({ agent, onChanged, onReload }: { agent: AgentHead; onChanged(): void; onReload(): void }) {
  const [asking, setAsking] = useState(false);
  const [archive, archiveState, resetArchive] = useMutation(ConsoleArchiveAgentDocument);
  const [unarchive, unarchiveState, resetUnarchive] = useMutation(ConsoleUnarchiveAgentDocument);
  const archived = Boolean(agent.archivedAt);
  const busy = archiveState.loading || unarchiveState.loading;
  const confirm = async () => {
    const done = archived ? await unarchive({ id: agent.id, ifMatch: agent.etag }) : await archive({ id: agent.id, ifMatch: agent.etag });
    setAsking(false);
    if (done) onChanged();
  };
  return (
    <>
      <button
        type="button"
        className={archived ? 'secondary' : 'danger'}
        onClick={() => {
          resetArchive();
          resetUnarchive();
          setAsking(true);
        }}
      >
        {archived ? 'Unarchive' : 'Archive'}
      </button>
      {asking ? (
        <ConfirmDialog
          title={archived ? `Unarchive ${agent.name}?` : `Archive ${agent.name}?`}
          confirmLabel={archived ? 'Unarchive agent' : 'Archive agent'}
          danger={!archived}
          busy={busy}
          onConfirm={() => void confirm()}
          onCancel={() => setAsking(false)}
        >
          {archived ? (
            <p>The agent returns to the list of open agents and can start runs again.</p>
          ) : (
            <p>
              The agent leaves the list of open agents and starts no new runs. Its revisions and past runs stay; you can unarchive it later.
            </p>
          )}
        </ConfirmDialog>
      ) : null}
      <ErrorNotice
        error={archiveState.error ?? unarchiveState.error}
        title={archived ? 'Could not unarchive' : 'Could not archive'}
        stale={{ what: 'agent', onReload }}
        withField
      />
    </>
  );
}
