// A waiting run can be resumed by anyone (another tab, another user, an API client), and its own
// runStatus subscription has ended at `waiting`. While the page shows a run that waits, it follows the
// run's thread (threadUpdated): a resume makes the successor the thread's current and last run, so
// when the thread's runs move off this one the page re-reads the run, which then names the successor
// (`resumedById`) and the page offers to continue there.
import { ConsoleRunThreadUpdatedDocument } from '../../../generated/graphql';
import { useSubscription } from '../../api';
import { type RunDetail } from './documents';

export function useResumedElsewhere(run: RunDetail | undefined, reread: () => void): { error: unknown } {
  const waiting = run?.status === 'waiting' && !run.resumedById;
  return useSubscription(
    ConsoleRunThreadUpdatedDocument,
    { threadId: run?.threadId ?? '' },
    (event) => {
      const thread = event.threadUpdated;
      if (run && thread.currentRunId !== run.id && thread.lastRunId !== run.id) reread();
    },
    { skip: !waiting },
  );
}
