// Start a run: an agent (preselected by `?agent=`), a thread to continue (or a new one), the message,
// and optional labels and run options as JSON; the page then moves to the new run.
import { ConsoleAgentChoicesDocument, ConsoleStartRunDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation, useQuery } from '../../api';
import { ErrorNotice, Field, Loading, PageHeader, Select, TextArea } from '../../components/ui';
import { FormEnd } from '../../components/Forms';
import { readJsonLabels, readJsonObject } from '../../lib/json';
import { textMessage } from './documents';

export function StartRunPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const agents = useQuery(ConsoleAgentChoicesDocument, {});
  const [agentId, setAgentId] = useState(params.get('agent') ?? '');
  const [threadId, setThreadId] = useState(params.get('thread') ?? '');
  const [message, setMessage] = useState('');
  const [labels, setLabels] = useState('');
  const [options, setOptions] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [start, startState] = useMutation(ConsoleStartRunDocument);

  const choices = agents.data?.agents.nodes ?? [];
  const chosen = agentId || choices[0]?.id || '';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsedLabels = readJsonLabels(labels, 'Labels');
    const parsedOptions = readJsonObject(options, 'Options');
    const found = !chosen ? 'Choose an agent.' : !message.trim() ? 'Write the message.' : (parsedLabels.problem ?? parsedOptions.problem);
    setProblem(found ?? null);
    if (found) return;
    const answer = await start({
      input: {
        agentId: chosen,
        input: textMessage(message),
        ...(threadId.trim() ? { threadId: threadId.trim() } : {}),
        ...(parsedLabels.value ? { labels: parsedLabels.value } : {}),
        ...(parsedOptions.value ? { options: parsedOptions.value } : {}),
      },
    });
    if (answer) navigate(`/runs/${answer.startRun.run.id}`);
  };

  return (
    <>
      <PageHeader title="Start a run">The agent answers your message; the run's page follows it live.</PageHeader>
      <ErrorNotice error={agents.error} title="Agents" />
      {agents.loading && !agents.data ? <Loading label="Loading agents…" /> : null}
      {agents.data && choices.length === 0 && !agentId ? (
        <p className="notice">
          This workspace has no agent yet: <Link to="/agents/new">create an agent</Link> first (it needs a model; the Models page sets one
          up).
        </p>
      ) : null}
      <form className="panel" onSubmit={(event) => void submit(event)} aria-label="Start a run">
        <Select
          label="Agent"
          value={chosen}
          onValue={setAgentId}
          options={[
            ...choices.map((agent) => ({ value: agent.id, label: agent.name })),
            // The agent the address names stays chosen while the list loads (or when it is not listed).
            ...(agentId && !choices.some((agent) => agent.id === agentId) ? [{ value: agentId, label: agentId }] : []),
            ...(!chosen ? [{ value: '', label: 'No agents' }] : []),
          ]}
        />
        <Field
          label="Thread (optional)"
          hint="Continue a thread by its id; leave empty to start a new thread."
          placeholder="thr_…"
          value={threadId}
          onValue={setThreadId}
        />
        <TextArea label="Message" rows={5} value={message} onValue={setMessage} />
        <TextArea
          label="Labels (JSON, optional)"
          hint='Metadata for the run, e.g. {"ticket": "T-42"}.'
          rows={2}
          value={labels}
          onValue={setLabels}
        />
        <TextArea
          label="Options (JSON, optional)"
          hint='Run options, e.g. {"max_usage": {"requests": 5}}.'
          rows={2}
          value={options}
          onValue={setOptions}
        />
        <FormEnd
          problem={problem}
          error={startState.error}
          errorTitle="Could not start the run"
          busy={startState.loading}
          busyLabel="Starting…"
        >
          Start run
        </FormEnd>
      </form>
    </>
  );
}
