// A run's transcript, live: every item in ordinal order, growing as the run streams. Reusable: the run
// page shows it, and the threads section embeds it for a thread's latest run.
//
// Screen readers: the transcript itself is not a live region (a streaming text would be read out at
// every delta); a separate polite region announces each new item and each item that finishes.
import { useEffect, useRef, useState } from 'react';
import { ErrorNotice, Loading, Empty } from '../../components/ui';
import { RunItemView, kindTitle } from './RunItemView';
import { useLiveRunItems } from './useLiveRunItems';

export function RunTranscript({ runId }: { runId: string }) {
  // Keyed: another run starts from an empty transcript.
  return <LiveTranscript key={runId} runId={runId} />;
}

function LiveTranscript({ runId }: { runId: string }) {
  const { items, loading, error, live, complete, hasEarlier, loadEarlier } = useLiveRunItems(runId);
  const [announcement, setAnnouncement] = useState('');
  const known = useRef(new Map<number, string>());
  const baselineSeen = useRef(false);

  useEffect(() => {
    const news: string[] = [];
    // Earlier items read on request are history, not news: only ordinals past the newest known count.
    const newest = Math.max(0, ...known.current.keys());
    for (const item of items) {
      const before = known.current.get(item.ordinal);
      if (before === item.state) continue;
      known.current.set(item.ordinal, item.state);
      // The baseline is what the page opened with, not news.
      if (!baselineSeen.current) continue;
      if (before === undefined) {
        if (item.ordinal > newest) news.push(`New ${kindTitle(item.kind).toLowerCase()}`);
      } else if (item.state !== 'in_progress') news.push(`${kindTitle(item.kind)} ${item.state.replace('_', ' ')}`);
    }
    if (!loading) baselineSeen.current = true;
    if (news.length) setAnnouncement(news.join('. '));
  }, [items, loading]);

  return (
    <section className="run-transcript" aria-labelledby={`transcript-${runId}`}>
      <h2 id={`transcript-${runId}`}>Transcript</h2>
      <p className="runs-sr-only" aria-live="polite" aria-atomic="true">
        {announcement}
      </p>
      <ErrorNotice error={error} title="Following the run" />
      {loading ? <Loading label="Loading the transcript…" /> : null}
      {!loading && items.length === 0 ? <Empty>No items yet.</Empty> : null}
      {hasEarlier ? (
        <button type="button" className="secondary" onClick={() => void loadEarlier()}>
          Show earlier items
        </button>
      ) : null}
      <ol className="run-items" aria-label="Run items">
        {items.map((item) => (
          <li key={item.ordinal}>
            <RunItemView item={item} />
          </li>
        ))}
      </ol>
      {live ? <p className="muted">Following the run live…</p> : null}
      {complete ? <p className="muted">Up to date: nothing more comes until the run is resumed or started again.</p> : null}
    </section>
  );
}
