// Follows the thread's newest run with the `runStatus` subscription: keeps its latest state (for the
// live panel) and tells the page when it changed, so the page re-reads the thread, its runs and its
// inbox (a steer incorporated, a queued entry's turn, an interrupt's cancel all show up there).
import { ConsoleThreadRunStatusDocument } from '../../../generated/graphql';
import { useEffect, useRef, useState } from 'react';
import { useSubscription } from '../../api';
import { type LiveRun } from './queries';

export function useRunFollower(runId: string | null, onChange: () => void): { live: LiveRun | null; error: unknown } {
  const [live, setLive] = useState<LiveRun | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  const latest = useRef<LiveRun | null>(null);
  useEffect(() => {
    latest.current = null;
    setLive(null);
  }, [runId]);
  const { error } = useSubscription(
    ConsoleThreadRunStatusDocument,
    { runId: runId ?? '' },
    (data) => {
      const previous = latest.current;
      latest.current = data.runStatus;
      setLive(data.runStatus);
      // The first event is the run as it is; only later ones are changes worth a re-read.
      if (previous && previous.id === data.runStatus.id && previous.version !== data.runStatus.version) changed.current();
    },
    // The subscription completes when the run is sealed or waiting: the thread may move on then.
    { skip: !runId, onDone: () => changed.current() },
  );
  return { live, error };
}
