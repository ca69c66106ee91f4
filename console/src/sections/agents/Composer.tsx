// The composer: the workspace's built-in agent that turns a description into a proposed agent. The page
// prepares it (creating or updating it), starts a run of it with the user's words, follows the run, and
// offers its `agent_proposal` output to fill the create form. The composer may also stop to ask the user a
// question or to ask before a write; those are answered here too, which resumes the run.
import {
  ConsoleComposerRunItemsDocument,
  ConsoleComposerRunStatusDocument,
  ConsolePrepareAgentComposerDocument,
  ConsoleStartComposerRunDocument,
} from '../../../generated/graphql';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useClient, useMutation, useSubscription } from '../../api';
import { agentsCreated, appliedAs, type CreatedAgent } from './appliedProposal';
import { Badge, JsonView, Status, TextArea, ErrorNotice } from '../../components/ui';
import { type ComposerRun } from './documents';
import { ComposerAnswers } from './ComposerAnswers';

export interface AgentProposal {
  name: string;
  description: string;
  config: Record<string, unknown>;
}

/** The run's output when it is a usable proposal (the output spec requires name and config). */
export function readProposal(output: unknown): AgentProposal | null {
  if (!output || typeof output !== 'object') return null;
  const { name, description, config } = output as Record<string, unknown>;
  if (typeof name !== 'string' || !config || typeof config !== 'object' || Array.isArray(config)) return null;
  return { name, description: typeof description === 'string' ? description : '', config: config as Record<string, unknown> };
}

const SETTLED = new Set(['completed', 'failed', 'cancelled', 'waiting']);

/**
 * The agents the composer's runs created (`create_agent` calls the user approved), read once the last
 * run completed; null until then.
 */
function useAgentsCreated(runIds: readonly string[], completed: boolean): CreatedAgent[] | null {
  const client = useClient();
  const [created, setCreated] = useState<{ key: string; agents: CreatedAgent[] } | null>(null);
  const key = runIds.join(',');
  useEffect(() => {
    if (!completed || !key) return;
    let current = true;
    void Promise.all(key.split(',').map((runId) => client.query(ConsoleComposerRunItemsDocument, { runId })))
      .then((pages) => {
        if (current) setCreated({ key, agents: pages.flatMap((page) => agentsCreated(page.runItems.items)) });
      })
      // Unknown then: the form stays as it is (the proposal is not claimed as applied).
      .catch(() => current && setCreated({ key, agents: [] }));
    return () => {
      current = false;
    };
  }, [client, key, completed]);
  return completed && created?.key === key ? created.agents : null;
}

export function Composer({ onUse }: { onUse(proposal: AgentProposal, applied: CreatedAgent | null): void }) {
  const [request, setRequest] = useState('');
  const [run, setRun] = useState<ComposerRun | null>(null);
  // Every run of this conversation: the first, then each successor an answer resumed.
  const [runIds, setRunIds] = useState<string[]>([]);
  const [prepare, prepareState, resetPrepare] = useMutation(ConsolePrepareAgentComposerDocument);
  const [start, startState, resetStart] = useMutation(ConsoleStartComposerRunDocument);
  const following = run !== null && !SETTLED.has(run.status);
  const { error: followError } = useSubscription(
    ConsoleComposerRunStatusDocument,
    { runId: run?.id ?? '' },
    (data) => setRun(data.runStatus),
    {
      skip: !following,
    },
  );

  const ask = async (event: FormEvent) => {
    event.preventDefault();
    if (!request.trim()) return;
    resetPrepare();
    resetStart();
    setRun(null);
    setRunIds([]);
    const prepared = await prepare({});
    if (!prepared) return;
    const started = await start({
      input: { agentId: prepared.prepareAgentComposer.agent.id, input: { content: [{ type: 'text', text: request.trim() }] } },
    });
    if (started) {
      setRun(started.startRun.run);
      setRunIds([started.startRun.run.id]);
    }
  };
  const resumed = (successor: ComposerRun) => {
    setRun(successor);
    setRunIds((ids) => [...ids, successor.id]);
  };

  const proposal = run?.status === 'completed' ? readProposal(run.output) : null;
  const created = useAgentsCreated(runIds, run?.status === 'completed');
  const applied = proposal && created ? appliedAs(created, proposal.name) : null;
  const busy = prepareState.loading || startState.loading || following;
  return (
    <section className="panel" aria-labelledby="composer-heading">
      <h2 id="composer-heading">Compose with the assistant</h2>
      <p className="muted">
        Describe the agent you want; the workspace’s composer agent proposes a name, a description and a configuration you can review and
        edit before creating it.
      </p>
      <form onSubmit={ask}>
        <TextArea
          label="Describe the agent"
          rows={3}
          value={request}
          onValue={setRequest}
          placeholder="An agent that answers questions about our billing API, politely and briefly."
        />
        <button type="submit" disabled={busy || !request.trim()}>
          {busy ? 'Composing…' : 'Ask the composer'}
        </button>
      </form>
      <ErrorNotice error={prepareState.error} title="Could not prepare the composer" withField />
      <ErrorNotice error={startState.error} title="Could not start the composer" withField />
      <ErrorNotice error={followError} title="Lost track of the composer's run" withField />
      {run ? (
        <div aria-live="polite">
          <p>
            Composer run <Link to={`/runs/${run.id}`}>{run.id}</Link> <Badge value={run.status} />
          </p>
          {following ? <Status>The composer is working…</Status> : null}
          {run.status === 'waiting' ? <ComposerAnswers key={run.id} run={run} onResumed={resumed} /> : null}
          {run.status === 'failed' || run.status === 'cancelled' ? (
            <div role="alert" className="notice error">
              The composer’s run {run.status}
              {run.failure ? `: ${run.failure.message} (${run.failure.code})` : '.'}
            </div>
          ) : null}
          {run.status === 'completed' && !proposal ? (
            <div role="alert" className="notice error">
              The composer finished without a usable proposal.
            </div>
          ) : null}
          {proposal ? (
            <section aria-labelledby="proposal-heading">
              <h3 id="proposal-heading">Proposal: {proposal.name}</h3>
              {proposal.description ? <p>{proposal.description}</p> : null}
              <JsonView value={proposal.config} label="Proposed configuration" />
              {applied ? (
                <p role="status">
                  Applied: the composer created this agent as <Link to={`/agents/${applied.id}`}>{applied.name}</Link>.
                </p>
              ) : null}
              <button type="button" disabled={created === null} onClick={() => onUse(proposal, applied)}>
                Use this proposal
              </button>
            </section>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
