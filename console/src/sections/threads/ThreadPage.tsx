// One thread: its details, its runs in order, the newest run live (status and transcript), its inbox
// and who else is on it. The page follows the thread (the threadUpdated subscription: every committed
// change of the thread or its inbox, whoever made it) and the newest run's status (runStatus), and
// re-reads its runs and inbox when either moves, so queued, steered and interrupting entries and runs
// started elsewhere show their effect without a reload — and without polling.
import {
  ConsoleArchiveThreadDocument,
  ConsoleInboxDocument,
  ConsoleThreadDocument,
  ConsoleThreadRunsDocument,
  type ConsoleInboxQuery,
  type ConsoleThreadRunsQuery,
} from '../../../generated/graphql';
import { useCallback, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery } from '../../api';
import { Badge, ErrorNotice, Status, Time } from '../../components/ui';
import { DetailPage } from '../../components/DetailPage';
import { Facts } from '../../components/Facts';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { type ThreadDetail } from './queries';
import { ThreadInbox } from './ThreadInbox';
import { ThreadLiveRun } from './ThreadLiveRun';
import { ThreadPresence } from './ThreadPresence';
import { ThreadRuns } from './ThreadRuns';
import { useRunFollower } from './useRunFollower';
import { useThreadUpdates } from './useThreadUpdates';

const selectRuns = (data: ConsoleThreadRunsQuery) => data.runs;
const selectInbox = (data: ConsoleInboxQuery) => data.inboxEntries;

export function ThreadPage() {
  const { threadId = '' } = useParams();
  const thread = useQuery(ConsoleThreadDocument, { id: threadId });
  const runs = usePagedQuery(ConsoleThreadRunsDocument, { threadId, first: 50 }, selectRuns);
  const inbox = usePagedQuery(ConsoleInboxDocument, { threadId, first: 100 }, selectInbox);
  const refreshLists = useCallback(() => {
    void runs.refetch();
    void inbox.refetch();
  }, [runs.refetch, inbox.refetch]);

  // The thread as last read or sent by the subscription, whichever came last (unless it is older).
  const [shown, setShown] = useState<ThreadDetail | undefined>(undefined);
  const show = useCallback((next: ThreadDetail) => setShown((previous) => newerThread(previous, next)), []);
  useEffect(() => {
    if (thread.data) show(thread.data.thread);
  }, [thread.data, show]);
  const updates = useThreadUpdates(threadId, thread.data?.thread, show, refreshLists);
  const detail = shown?.id === threadId ? shown : thread.data?.thread;
  const newestRunId = detail?.currentRunId ?? runs.nodes[0]?.id ?? detail?.lastRunId ?? null;
  const follower = useRunFollower(newestRunId, refreshLists);

  return (
    <DetailPage
      detail={{ item: detail, query: thread }}
      title={detail ? `Thread ${detail.id}` : 'Thread'}
      back={{ to: '/threads', label: 'All threads' }}
      actions={(detail) => <ArchiveButton thread={detail} onArchived={refreshLists} />}
    >
      {(detail) => (
        <>
          <ErrorNotice error={updates.error} title="Following the thread" />
          <ThreadFacts thread={detail} />
          <ThreadPresence threadId={detail.id} />
          <ErrorNotice error={runs.error} title="Runs" />
          <ThreadRuns
            runs={runs.nodes}
            loaded={runs.data !== undefined}
            hasEarlier={runs.hasNextPage}
            loading={runs.loadingMore}
            onEarlier={() => runs.loadMore()}
          />
          {newestRunId ? (
            <section aria-labelledby="thread-live-heading" className="panel">
              <h2 id="thread-live-heading">Newest run, live</h2>
              <ThreadLiveRun runId={newestRunId} live={follower.live?.id === newestRunId ? follower.live : null} error={follower.error} />
            </section>
          ) : null}
          <ErrorNotice error={inbox.error} title="Inbox" />
          <ThreadInbox
            threadId={detail.id}
            entries={inbox.nodes}
            archived={Boolean(detail.archivedAt)}
            hasRun={Boolean(detail.lastRunId)}
            onChanged={refreshLists}
          />
        </>
      )}
    </DetailPage>
  );
}

/**
 * The state to show: the one that arrived last, unless its version is older. Versions only grow, but
 * a run starting or ending moves the thread's current and last run without moving its version.
 */
function newerThread(previous: ThreadDetail | undefined, next: ThreadDetail): ThreadDetail {
  if (!previous || previous.id !== next.id) return next;
  return next.version >= previous.version ? next : previous;
}

function ThreadFacts({ thread }: { thread: ThreadDetail }) {
  return (
    <Facts
      facts={[
        ['State', <Badge value={thread.archivedAt ? 'archived' : thread.currentRunId ? 'running' : 'idle'} />],
        [
          'Session',
          <Link to={`/threads?session=${encodeURIComponent(thread.sessionId)}`}>
            <code>{thread.sessionId}</code>
          </Link>,
        ],
        [
          'Origin',
          <>
            {thread.origin}
            {thread.originRunId ? (
              <>
                {' '}
                from run <Link to={`/runs/${thread.originRunId}`}>{thread.originRunId}</Link>
              </>
            ) : null}
            {thread.originThreadId ? (
              <>
                {' '}
                of thread <Link to={`/threads/${thread.originThreadId}`}>{thread.originThreadId}</Link>
              </>
            ) : null}
            {thread.subagent ? <> (subagent {thread.subagent})</> : null}
          </>,
        ],
        ['Labels', thread.labelList.map((pair) => `${pair.key}:${pair.value}`).join(', ') || <span className="muted">none</span>],
        ['Created', <Time value={thread.createdAt} />],
        ['Updated', <Time value={thread.updatedAt} />],
        thread.archivedAt ? ['Archived', <Time value={thread.archivedAt} />] : null,
      ]}
    />
  );
}

function ArchiveButton({ thread, onArchived }: { thread: ThreadDetail; onArchived(): void }) {
  const [archive, archiving] = useMutation(ConsoleArchiveThreadDocument);
  const [done, setDone] = useState(false);
  if (thread.archivedAt) return done ? <Status>Archived.</Status> : null;
  return (
    <>
      <ErrorNotice error={archiving.error} title="Could not archive" />
      <button
        type="button"
        className="secondary"
        disabled={archiving.loading}
        onClick={async () => {
          if (await archive({ id: thread.id, ifMatch: thread.etag })) {
            setDone(true);
            onArchived();
          }
        }}
      >
        Archive thread
      </button>
    </>
  );
}
