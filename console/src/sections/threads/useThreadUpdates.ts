// Follows the thread with the `threadUpdated` subscription: the service emits the thread as it is,
// then after every committed change of its row or inbox — whoever made it (another user, an API
// client, a worker sealing a run and promoting the next queued entry). Each state goes to the page
// (`onThread`, shown at once) and, when it is news, the page re-reads its runs and inbox, which the
// event does not carry.
import { ConsoleThreadUpdatedDocument } from '../../../generated/graphql';
import { useRef } from 'react';
import { useSubscription } from '../../api';
import { type ThreadDetail } from './queries';

const signature = (thread: ThreadDetail) => `${thread.version}|${thread.currentRunId}|${thread.lastRunId}|${thread.archivedAt}`;

export function useThreadUpdates(
  threadId: string,
  loaded: ThreadDetail | undefined,
  onThread: (thread: ThreadDetail) => void,
  onChange: () => void,
): { error: unknown } {
  const received = useRef(onThread);
  received.current = onThread;
  const changed = useRef(onChange);
  changed.current = onChange;
  const shown = useRef<ThreadDetail | undefined>(loaded);
  shown.current = loaded;
  const heardFrom = useRef<string | null>(null);
  const { error } = useSubscription(
    ConsoleThreadUpdatedDocument,
    { threadId },
    (data) => {
      const thread = data.threadUpdated;
      received.current(thread);
      // The first event is the thread as it is: news only if it moved since the page read it.
      const isFirst = heardFrom.current !== thread.id;
      heardFrom.current = thread.id;
      if (isFirst && shown.current && signature(shown.current) === signature(thread)) return;
      changed.current();
    },
    // Once the page has read the thread: a thread it cannot read shows that refusal once, not twice.
    { skip: !threadId || !loaded },
  );
  return { error };
}
