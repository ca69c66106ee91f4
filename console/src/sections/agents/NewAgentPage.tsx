// Creating an agent: a name, a description, labels and its first configuration (revision 1), typed by
// hand or filled from the composer's proposal.
import { ConsoleCreateAgentDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation } from '../../api';
import { ErrorNotice, Field, PageHeader, Problem, TextArea } from '../../components/ui';
import { Composer } from './Composer';
import { ConfigEditor, parseConfig } from './ConfigEditor';
import { canonicalJson } from './configDiff';

import type { CreatedAgent } from './appliedProposal';
import { readLabels } from '../../lib/labels';

const STARTING_CONFIG = `{\n  "model": "",\n  "instructions": ""\n}`;

export function NewAgentPage() {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [labels, setLabels] = useState('');
  const [configText, setConfigText] = useState(STARTING_CONFIG);
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState<{ config?: string; labels?: string }>({});
  const [create, createState] = useMutation(ConsoleCreateAgentDocument);
  // A proposal the composer already applied (it created the agent): the form shows it, and creating
  // the same name again is held back until the name is changed.
  const [applied, setApplied] = useState<CreatedAgent | null>(null);
  const alreadyCreated = applied !== null && name.trim() === applied.name;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsedConfig = parseConfig(configText);
    const parsedLabels = readLabels(labels);
    setProblem({
      config: 'error' in parsedConfig ? parsedConfig.error : undefined,
      labels: 'error' in parsedLabels ? parsedLabels.error : undefined,
    });
    if ('error' in parsedConfig || 'error' in parsedLabels || alreadyCreated) return;
    const created = await create({
      input: {
        name: name.trim(),
        description: description.trim(),
        config: parsedConfig.config,
        labels: parsedLabels.labels,
        ...(note.trim() ? { note: note.trim() } : {}),
      },
    });
    if (created) navigate(`/agents/${created.createAgent.agent.id}`);
  };

  return (
    <>
      <PageHeader title="New agent">An agent is a name and a configuration; each change of configuration is a new revision.</PageHeader>
      <Composer
        onUse={(proposal, appliedAs) => {
          setApplied(appliedAs);
          setName(proposal.name);
          setDescription(proposal.description);
          setConfigText(canonicalJson(proposal.config));
          setProblem({});
        }}
      />
      <form className="panel" aria-labelledby="new-agent-heading" onSubmit={submit}>
        <h2 id="new-agent-heading">Agent</h2>
        <Field label="Name" required maxLength={200} value={name} onValue={setName} />
        <TextArea label="Description" rows={2} value={description} onValue={setDescription} />
        <TextArea
          label="Labels"
          hint="one key:value per line"
          rows={2}
          value={labels}
          onValue={setLabels}
          aria-invalid={problem.labels ? true : undefined}
        />
        <Problem>{problem.labels}</Problem>
        <ConfigEditor value={configText} onChange={setConfigText} problem={problem.config} />
        <Field label="Revision note" hint="optional: why this configuration" value={note} onValue={setNote} />
        {alreadyCreated ? (
          <div role="status" className="notice">
            Applied: the composer already created this proposal as the agent <Link to={`/agents/${applied.id}`}>{applied.name}</Link>.
            Change the name to create another agent from it.
          </div>
        ) : null}
        <ErrorNotice error={createState.error} title="Could not create the agent" withField />
        <button type="submit" disabled={createState.loading || alreadyCreated}>
          {createState.loading ? 'Creating…' : alreadyCreated ? 'Already created' : 'Create agent'}
        </button>
      </form>
    </>
  );
}
