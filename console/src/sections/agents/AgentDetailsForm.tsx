// Editing the head: name, description and labels (no new revision). The change carries the ETag the page
// read; when someone changed the agent since, the service refuses it (412) and the form says so and
// offers to reload the current agent.
import { ConsoleUpdateAgentDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { useMutation } from '../../api';
import { ErrorNotice, Field, LabelsField, Problem, Status, SubmitButton, TextArea } from '../../components/ui';
import { type AgentHead } from './documents';
import { formatLabels, readLabels } from '../../lib/labels';

export function AgentDetailsForm({ agent, onSaved, onReload }: { agent: AgentHead; onSaved(): void; onReload(): void }) {
  const [name, setName] = useState(agent.name);
  const [description, setDescription] = useState(agent.description);
  const [labels, setLabels] = useState(formatLabels(agent.labelList, ':'));
  const [labelsProblem, setLabelsProblem] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const [update, updateState] = useMutation(ConsoleUpdateAgentDocument);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const parsed = readLabels(labels);
    setLabelsProblem('error' in parsed ? parsed.error : undefined);
    if ('error' in parsed) return;
    const done = await update({
      id: agent.id,
      ifMatch: agent.etag,
      input: { name: name.trim(), description: description.trim(), labels: parsed.labels },
    });
    if (done) {
      setSaved(true);
      onSaved();
    }
  };

  return (
    <form className="panel" aria-labelledby="details-heading" onSubmit={submit}>
      <h2 id="details-heading">Name, description and labels</h2>
      <Field label="Name" required maxLength={200} value={name} onValue={setName} />
      <TextArea label="Description" rows={2} value={description} onValue={setDescription} />
      <LabelsField value={labels} onChange={setLabels} hint="one key:value per line" />
      <Problem>{labelsProblem}</Problem>
      <ErrorNotice error={updateState.error} title="Could not save" stale={{ what: 'agent', onReload }} withField />
      {saved ? <Status>Saved.</Status> : null}
      <SubmitButton busy={updateState.loading} busyLabel="Saving…">
        Save changes
      </SubmitButton>
    </form>
  );
}
