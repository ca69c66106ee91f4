// The newest run's live state, from the `runStatus` subscription the page follows: its status, why it
// waits, and its output once it completes (or how it failed).
import { Link } from 'react-router';
import { Badge, ErrorNotice } from '../../components/ui';
import { RunOutput } from './messages';
import type { LiveRun } from './queries';

export function LiveRunStatus({ runId, live, error }: { runId: string; live: LiveRun | null; error?: unknown }) {
  return (
    <div className="thread-live">
      <ErrorNotice error={error} title="Live status" />
      <p role="status" aria-live="polite">
        Run <Link to={`/runs/${runId}`}>{runId}</Link> is{' '}
        {live ? <Badge value={live.status} /> : <span className="muted">connecting…</span>}
        {live?.waitReason ? <> waiting for {live.waitReason.replace(/_/g, ' ')}</> : null}
        {live?.failure ? (
          <>
            {' '}
            — {live.failure.code}: {live.failure.message}
          </>
        ) : null}
      </p>
      {live?.status === 'completed' ? (
        <div aria-label="Newest run's output">
          <RunOutput value={live.output} label="Output of the newest run" />
        </div>
      ) : null}
    </div>
  );
}
