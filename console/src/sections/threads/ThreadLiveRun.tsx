// The slot for the thread's newest run on the thread page: its compact live status (fed by the
// runStatus subscription the page follows) and its live transcript, the runs section's own
// RunTranscript, which follows the run's items as they stream.
import { RunTranscript } from '../runs/RunTranscript';
import { LiveRunStatus } from './LiveRunStatus';
import type { LiveRun } from './queries';

export function ThreadLiveRun({ runId, live, error }: { runId: string; live: LiveRun | null; error?: unknown }) {
  return (
    <>
      <LiveRunStatus runId={runId} live={live} error={error} />
      <RunTranscript runId={runId} />
    </>
  );
}
