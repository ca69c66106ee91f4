// Publishing a new revision from an edited configuration. The editor starts from the default revision's
// configuration; the service answers with the existing revision when the configuration is identical to
// one already published, which the form says instead of pretending something new was made.
import { ConsolePublishAgentRevisionDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { useMutation } from '../../api';
import { ErrorNotice, Field, Status, SubmitButton } from '../../components/ui';
import { ConfigEditor, parseConfig } from './ConfigEditor';
import { canonicalJson } from './configDiff';
import { type AgentHead } from './documents';

export function PublishRevisionForm({
  agent,
  startingConfig,
  startedFrom,
  onPublished,
  onReload,
}: {
  agent: AgentHead;
  /** The configuration document to start from (a JSON object), if any. */
  startingConfig: unknown;
  /** Set when the user chose a revision to start from: the editor says which and takes the focus. */
  startedFrom?: number;
  onPublished(): void;
  onReload(): void;
}) {
  const [configText, setConfigText] = useState(() => canonicalJson(startingConfig ?? { model: '' }));
  const [note, setNote] = useState('');
  const [makeDefault, setMakeDefault] = useState(true);
  const [problem, setProblem] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<string | undefined>();
  const [publish, publishState] = useMutation(ConsolePublishAgentRevisionDocument);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setOutcome(undefined);
    const parsed = parseConfig(configText);
    setProblem('error' in parsed ? parsed.error : undefined);
    if ('error' in parsed) return;
    const done = await publish({
      agentId: agent.id,
      ifMatch: agent.etag,
      input: { config: parsed.config, makeDefault, ...(note.trim() ? { note: note.trim() } : {}) },
    });
    if (!done) return;
    const { revision, created } = done.publishAgentRevision;
    setOutcome(
      created
        ? `Published revision #${revision.number}${makeDefault ? ' as the default' : ''}.`
        : `This configuration is revision #${revision.number} already; nothing new was published.`,
    );
    setNote('');
    onPublished();
  };

  return (
    <form className="panel" aria-labelledby="publish-heading" onSubmit={submit}>
      <h2 id="publish-heading">Publish a new revision</h2>
      {agent.archivedAt ? <p className="muted">Unarchive the agent to publish revisions.</p> : null}
      {startedFrom !== undefined ? <Status>Editing a copy of revision #{startedFrom}.</Status> : null}
      <ConfigEditor
        label="New configuration (JSON)"
        value={configText}
        onChange={setConfigText}
        problem={problem}
        autoFocus={startedFrom !== undefined}
      />
      <Field label="Note" hint="optional: what changed and why" value={note} onValue={setNote} />
      <div className="field checkbox">
        <label>
          <input type="checkbox" checked={makeDefault} onChange={(event) => setMakeDefault(event.target.checked)} /> Make it the default
          revision
        </label>
      </div>
      <ErrorNotice error={publishState.error} title="Could not publish" stale={{ what: 'agent', onReload }} withField />
      {outcome ? <Status>{outcome}</Status> : null}
      <SubmitButton busy={publishState.loading} busyLabel="Publishing…">
        Publish revision
      </SubmitButton>
    </form>
  );
}
