// The thread's runs as a conversation, oldest first: each run's status, the message that started it
// and its output text, linking to the run's own page. The API lists runs newest first, so older runs
// are loaded on request at the top.
import { Link } from 'react-router';
import { Badge, Empty, Time } from '../../components/ui';
import { messageText, RunOutput } from './messages';
import type { ThreadRun } from './queries';

export function ThreadRuns(props: { runs: ThreadRun[]; loaded: boolean; hasEarlier: boolean; loading: boolean; onEarlier(): void }) {
  const oldestFirst = [...props.runs].reverse();
  return (
    <section aria-labelledby="thread-runs-heading">
      <h2 id="thread-runs-heading">Runs</h2>
      {props.hasEarlier ? (
        <button type="button" className="secondary" disabled={props.loading} onClick={props.onEarlier}>
          {props.loading ? 'Loading…' : 'Load earlier runs'}
        </button>
      ) : null}
      {props.loaded && props.runs.length === 0 ? <Empty>No runs yet: send a message below to start one.</Empty> : null}
      <ol className="thread-runs" aria-label="Runs, oldest first">
        {oldestFirst.map((run) => (
          <li key={run.id} className="panel">
            <article aria-labelledby={`run-${run.id}`}>
              <h3 id={`run-${run.id}`}>
                <Link to={`/runs/${run.id}`}>{run.id}</Link> <Badge value={run.status} />
              </h3>
              <p className="muted">
                {run.trigger.replace(/_/g, ' ')} · <Time value={run.createdAt} />
                {run.waitReason ? <> · waiting for {run.waitReason.replace(/_/g, ' ')}</> : null}
              </p>
              <dl className="facts">
                <dt>Input</dt>
                <dd className="thread-text">{messageText(run.input)}</dd>
                <dt>Output</dt>
                <dd>
                  <RunOutput value={run.output} label={`Output of ${run.id}`} />
                </dd>
                {run.failure ? (
                  <>
                    <dt>Failure</dt>
                    <dd>
                      {run.failure.code}: {run.failure.message}
                    </dd>
                  </>
                ) : null}
              </dl>
            </article>
          </li>
        ))}
      </ol>
    </section>
  );
}
