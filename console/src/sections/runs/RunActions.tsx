// Cancel a run that has not ended, and fork one that has history to fork (sealed or waiting) into a
// new thread with a new message; the page then moves to the fork's run.
import { ConsoleCancelRunDocument, ConsoleForkRunDocument } from '../../../generated/graphql';
import { useId, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useMutation } from '../../api';
import { ErrorNotice, TextArea } from '../../components/ui';
import { useIdempotencyKey } from '../../lib/idempotency';
import { SETTLED, textMessage, type RunDetail } from './documents';

const CANCELLABLE = ['accepted', 'running', 'waiting'];

export const canFork = (run: RunDetail) => SETTLED.includes(run.status);

export function RunActions({
  run,
  onChanged,
  forking,
  onToggleFork,
}: {
  run: RunDetail;
  onChanged(run: RunDetail): void;
  forking: boolean;
  onToggleFork(): void;
}) {
  const [cancel, cancelState] = useMutation(ConsoleCancelRunDocument);
  return (
    <>
      {CANCELLABLE.includes(run.status) ? (
        <button
          type="button"
          className="danger"
          disabled={cancelState.loading}
          onClick={async () => {
            const answer = await cancel({ id: run.id });
            if (answer) onChanged(answer.cancelRun.run);
          }}
        >
          Cancel run
        </button>
      ) : null}
      {canFork(run) ? (
        <button type="button" className="secondary" aria-expanded={forking} onClick={onToggleFork}>
          Fork…
        </button>
      ) : null}
      <ErrorNotice error={cancelState.error} title="Could not cancel" />
    </>
  );
}

export function ForkForm({ runId, onClose }: { runId: string; onClose(): void }) {
  const navigate = useNavigate();
  const headingId = useId();
  const [message, setMessage] = useState('');
  const [fork, forkState] = useMutation(ConsoleForkRunDocument);
  const [queued, setQueued] = useState<string | null>(null);
  const [idempotencyKey] = useIdempotencyKey();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const answer = await fork({ runId, idempotencyKey, input: { payload: textMessage(message) } });
    if (!answer) return;
    if (answer.forkRun.run) navigate(`/runs/${answer.forkRun.run.id}`);
    else setQueued(`The fork's thread ${answer.forkRun.thread.id} has its message ${answer.forkRun.entry.status}.`);
  };
  return (
    <form className="panel runs-fork" aria-labelledby={headingId} onSubmit={(event) => void submit(event)}>
      <h2 id={headingId}>Fork this run</h2>
      <p className="muted">A new thread continues this run's history with your message.</p>
      <TextArea label="Message for the fork" rows={3} required value={message} onValue={setMessage} autoFocus />
      <ErrorNotice error={forkState.error} title="Could not fork" />
      {queued ? <p role="status">{queued}</p> : null}
      <button type="submit" disabled={forkState.loading || !message.trim()}>
        Fork run
      </button>{' '}
      <button type="button" className="secondary" onClick={onClose}>
        Close
      </button>
    </form>
  );
}
