// One run: its status (live through runStatus), what it waits for (answered here, then the page moves
// to the successor run the resume created, which goes on live; resumed elsewhere, the page hears it
// through the run's thread and links to the successor), its transcript, output, usage and failure,
// its lineage, and cancel and fork.
import { ConsoleRunDocument, ConsoleRunStatusDocument } from '../../../generated/graphql';
import { useCallback, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useQuery, useSubscription } from '../../api';
import { Badge, ErrorNotice, JsonView, Loading, PageHeader, Time } from '../../components/ui';
import { SETTLED, type RunDetail } from './documents';
import { PendingActions } from './PendingActions';
import { ForkForm, RunActions, canFork } from './RunActions';
import { RunLineage } from './RunLineage';
import { RunOutcome } from './RunOutcome';
import { RunTranscript } from './RunTranscript';
import { useResumedElsewhere } from './useResumedElsewhere';

export function RunPage() {
  const { runId = '' } = useParams();
  // Keyed: moving to the successor starts from a fresh page state.
  return <RunView key={runId} runId={runId} />;
}

/** The newer of two states of a run (versions only grow). */
const newer = (a: RunDetail | undefined, b: RunDetail | undefined) => (!a ? b : !b ? a : b.version >= a.version ? b : a);

function RunView({ runId }: { runId: string }) {
  const navigate = useNavigate();
  const loaded = useQuery(ConsoleRunDocument, { id: runId });
  const [live, setLive] = useState<RunDetail | undefined>(undefined);
  const [forking, setForking] = useState(false);
  const run = newer(loaded.data?.run, live);
  const settledAtLoad = loaded.data ? SETTLED.includes(loaded.data.run.status) : true;
  const status = useSubscription(ConsoleRunStatusDocument, { runId }, (event) => setLive((previous) => newer(previous, event.runStatus)), {
    skip: settledAtLoad,
  });
  const onChanged = useCallback((next: RunDetail) => setLive((previous) => newer(previous, next)), []);
  const follow = useCallback((successorId: string) => navigate(`/runs/${successorId}`), [navigate]);
  const reread = useCallback(() => void loaded.refetch(), [loaded.refetch]);
  const thread = useResumedElsewhere(run, reread);

  if (!run)
    return (
      <>
        <PageHeader title="Run" />
        <ErrorNotice error={loaded.error} />
        {loaded.loading ? <Loading /> : null}
      </>
    );

  const waitingForAnswers = run.status === 'waiting' && !run.resumedById;
  return (
    <>
      <PageHeader
        title={`Run ${run.id}`}
        actions={<RunActions run={run} onChanged={onChanged} forking={forking} onToggleFork={() => setForking(!forking)} />}
      >
        <Link to="/runs">All runs</Link>
      </PageHeader>
      <p role="status" className="runs-status">
        Status: <Badge value={run.status} />
        {run.waitReason && run.status === 'waiting' ? <> waiting for {run.waitReason.replace(/_/g, ' ')}</> : null}
        {run.cancelRequestedAt && !SETTLED.includes(run.status) ? <> (cancel requested)</> : null}
      </p>
      <ErrorNotice error={status.error} title="Following the status" />
      <ErrorNotice error={thread.error} title="Following the thread" />
      {forking && canFork(run) ? <ForkForm runId={run.id} onClose={() => setForking(false)} /> : null}
      {/* A live region: a resume made elsewhere while the page is open is announced. */}
      <div role="status" aria-live="polite">
        {run.resumedById ? (
          <p className="notice">
            This run was resumed: <Link to={`/runs/${run.resumedById}`}>continue to run {run.resumedById}</Link>
          </p>
        ) : null}
      </div>
      {waitingForAnswers && run.pending.approvals.length + run.pending.calls.length > 0 ? (
        <PendingActions run={run} onResumed={follow} />
      ) : null}
      <dl className="facts">
        <dt>Agent</dt>
        <dd>
          <Link to={`/agents/${run.agentId}`}>{run.agent.name}</Link> <code>{run.agentId}</code>
        </dd>
        <dt>Thread</dt>
        <dd>
          <Link to={`/threads/${run.threadId}`}>{run.threadId}</Link>
        </dd>
        <dt>Started by</dt>
        <dd>
          {run.trigger} ({run.lineage})
          {run.parentRunId ? (
            <>
              {' '}
              after <Link to={`/runs/${run.parentRunId}`}>{run.parentRunId}</Link>
            </>
          ) : null}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time value={run.createdAt} />
        </dd>
        <dt>Started</dt>
        <dd>
          <Time value={run.startedAt} />
        </dd>
        <dt>Sealed</dt>
        <dd>
          <Time value={run.sealedAt} />
        </dd>
        <dt>Attempts</dt>
        <dd>
          {run.attempts} of at most {run.maxAttempts}
        </dd>
        {run.traceId ? (
          <>
            <dt>Trace</dt>
            <dd>
              <code>{run.traceId}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {run.resumeDocument ? (
        <details className="panel">
          <summary>The answers this run continues from</summary>
          <JsonView value={run.resumeDocument} label="Resume answers" />
        </details>
      ) : null}
      <RunOutcome run={run} />
      <RunTranscript runId={run.id} />
      <RunLineage runId={run.id} status={run.status} />
    </>
  );
}
