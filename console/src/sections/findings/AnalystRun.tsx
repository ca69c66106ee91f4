// The analysis agent's run of an analysis, followed live: its status as it moves, and — because the
// analysis takes the run's status (and its findings) just after the run seals, in a step of its own —
// the analysis is asked again until it shows the sealed status too.
import { ConsoleAnalystRunStatusDocument } from '../../../generated/graphql';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { useSubscription } from '../../api';
import { Badge, ErrorNotice } from '../../components/ui';

const SETTLED = ['completed', 'failed', 'cancelled', 'waiting'];
const CATCH_UP_INTERVAL_MS = 2000;
const CATCH_UP_TRIES = 15;

export function AnalystRun({
  runId,
  recordedStatus,
  onSettled,
}: {
  runId: string;
  /** The status the analysis recorded for its run. */
  recordedStatus: string | null;
  /** Ask the analysis (and its findings) again. */
  onSettled(): void;
}) {
  const recordedSettled = SETTLED.includes(recordedStatus ?? '');
  const [live, setLive] = useState<string | null>(null);
  const { error } = useSubscription(ConsoleAnalystRunStatusDocument, { runId }, (data) => setLive(data.runStatus.status), {
    skip: recordedSettled,
  });
  const settle = useRef(onSettled);
  settle.current = onSettled;

  const liveSettled = SETTLED.includes(live ?? '');
  useEffect(() => {
    if (!liveSettled || recordedSettled) return;
    settle.current();
    let tries = 0;
    const timer = window.setInterval(() => {
      tries += 1;
      if (tries >= CATCH_UP_TRIES) window.clearInterval(timer);
      settle.current();
    }, CATCH_UP_INTERVAL_MS);
    return () => window.clearInterval(timer);
  }, [liveSettled, recordedSettled]);

  const shown = recordedSettled ? recordedStatus : (live ?? recordedStatus);
  return (
    <>
      <Link to={`/runs/${runId}`}>{runId}</Link> <span aria-live="polite">{shown ? <Badge value={shown} /> : null}</span>
      {!recordedSettled && !liveSettled ? <span className="muted"> (its findings arrive when it ends)</span> : null}
      <ErrorNotice error={error} title="Could not follow the analyst’s run" />
    </>
  );
}
