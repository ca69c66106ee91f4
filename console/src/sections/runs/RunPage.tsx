// One run: its status (live through runStatus), what it waits for (answered here, then the page moves
// to the successor run the resume created, which goes on live; resumed elsewhere, the page hears it
// through the run's thread and links to the successor), its transcript, output, usage and failure,
// its trace as a waterfall (live while it runs), its lineage, and cancel and fork.
import { ConsoleRunDocument, ConsoleRunStatusDocument } from '../../../generated/graphql';
import { useCallback, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useQuery, useSubscription } from '../../api';
import { Badge, ErrorNotice, JsonView, Time } from '../../components/ui';
import { DetailPage } from '../../components/DetailPage';
import { Facts } from '../../components/Facts';
import { SETTLED, type RunDetail } from './documents';
import { PendingActions } from './PendingActions';
import { ForkForm, RunActions, canFork } from './RunActions';
import { RunLineage } from './RunLineage';
import { RunOutcome } from './RunOutcome';
import { RunTrace } from './RunTrace';
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

  return (
    <DetailPage
      detail={{ item: run, query: loaded }}
      title={run ? `Run ${run.id}` : 'Run'}
      back={{ to: '/runs', label: 'All runs' }}
      actions={(run) => <RunActions run={run} onChanged={onChanged} forking={forking} onToggleFork={() => setForking(!forking)} />}
    >
      {(run) => (
        <>
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
          {run.status === 'waiting' && !run.resumedById && run.pending.approvals.length + run.pending.calls.length > 0 ? (
            <PendingActions run={run} onResumed={follow} />
          ) : null}
          <RunFacts run={run} />
          {run.resumeDocument ? (
            <details className="panel">
              <summary>The answers this run continues from</summary>
              <JsonView value={run.resumeDocument} label="Resume answers" />
            </details>
          ) : null}
          <RunOutcome run={run} />
          <RunTranscript runId={run.id} />
          <RunTrace run={run} />
          <RunLineage runId={run.id} status={run.status} />
        </>
      )}
    </DetailPage>
  );
}

function RunFacts({ run }: { run: RunDetail }) {
  return (
    <Facts
      facts={[
        [
          'Agent',
          <>
            <Link to={`/agents/${run.agentId}`}>{run.agent.name}</Link> <code>{run.agentId}</code>
          </>,
        ],
        ['Thread', <Link to={`/threads/${run.threadId}`}>{run.threadId}</Link>],
        [
          'Started by',
          <>
            {run.trigger} ({run.lineage})
            {run.parentRunId ? (
              <>
                {' '}
                after <Link to={`/runs/${run.parentRunId}`}>{run.parentRunId}</Link>
              </>
            ) : null}
          </>,
        ],
        ['Created', <Time value={run.createdAt} />],
        ['Started', <Time value={run.startedAt} />],
        ['Sealed', <Time value={run.sealedAt} />],
        ['Attempts', `${run.attempts} of at most ${run.maxAttempts}`],
        run.traceId ? ['Trace', <code>{run.traceId}</code>] : null,
      ]}
    />
  );
}
