// Answering a waiting composer run in place: its questions (`ask_user`) and the approvals it asks before
// writing anything. The answers resume the run; the successor run is what the composer follows next.
// Every pending entry must be answered at once (the service refuses a partial batch).
import { ConsoleResumeComposerRunDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation } from '../../api';
import { useIdempotencyKey } from '../../lib/idempotency';
import { JsonView, TextArea, ErrorNotice } from '../../components/ui';
import { type ComposerRun, type PendingCall, type ResumeAnswers } from './documents';

export function ComposerAnswers({ run, onResumed }: { run: ComposerRun; onResumed(successor: ComposerRun): void }) {
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const [decisions, setDecisions] = useState<Record<string, 'approve' | 'deny'>>({});
  const [resume, resumeState] = useMutation(ConsoleResumeComposerRunDocument);
  // One key for this batch: sending it again after a lost answer gives the same successor.
  const [idempotencyKey] = useIdempotencyKey();
  const { approvals, calls } = run.pending;
  const questions = calls.filter((call) => call.presentation.kind === 'question');
  if (questions.length !== calls.length)
    return (
      <p>
        The composer is waiting for a client tool; answer it on the <Link to={`/runs/${run.id}`}>run’s page</Link>.
      </p>
    );
  const complete =
    questions.every((call) => (answers[call.toolCallId] ?? '').trim()) && approvals.every((call) => decisions[call.toolCallId]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input: ResumeAnswers = {};
    if (questions.length)
      input.calls = Object.fromEntries(
        questions.map((call) => [call.toolCallId, { status: 'returned', value: (answers[call.toolCallId] ?? '').trim() }]),
      );
    if (approvals.length)
      input.approvals = Object.fromEntries(approvals.map((call) => [call.toolCallId, { action: decisions[call.toolCallId] ?? 'deny' }]));
    const done = await resume({ runId: run.id, idempotencyKey, input });
    if (done) onResumed(done.resumeRun.run);
  };

  return (
    <form onSubmit={submit} aria-labelledby="composer-answers-heading">
      <h3 id="composer-answers-heading">The composer needs your answer</h3>
      {questions.map((call) => (
        <Question
          key={call.toolCallId}
          call={call}
          value={answers[call.toolCallId] ?? ''}
          onChange={(value) => setAnswers({ ...answers, [call.toolCallId]: value })}
        />
      ))}
      {approvals.map((call) => (
        <fieldset key={call.toolCallId}>
          <legend>
            Allow <code>{call.toolName}</code>
            {call.presentation.title && call.presentation.title !== call.toolName ? ` (${call.presentation.title})` : ''}?
          </legend>
          <JsonView value={call.arguments} label={`Arguments of ${call.toolName}`} />
          {(['approve', 'deny'] as const).map((action) => (
            <label key={action} className="choice">
              <input
                type="radio"
                name={`approval-${call.toolCallId}`}
                checked={decisions[call.toolCallId] === action}
                onChange={() => setDecisions({ ...decisions, [call.toolCallId]: action })}
              />{' '}
              {action === 'approve' ? 'Approve' : 'Deny'}
            </label>
          ))}
        </fieldset>
      ))}
      <ErrorNotice error={resumeState.error} title="Could not send the answers" withField />
      <button type="submit" disabled={!complete || resumeState.loading}>
        {resumeState.loading ? 'Sending…' : 'Send answers'}
      </button>
    </form>
  );
}

function Question({ call, value, onChange }: { call: PendingCall; value: string; onChange(value: string): void }) {
  const question = call.presentation.question ?? 'The composer asks:';
  const choices = call.presentation.choices ?? [];
  if (choices.length)
    return (
      <fieldset>
        <legend>{question}</legend>
        {choices.map((choice) => (
          <label key={choice} className="choice">
            <input type="radio" name={`question-${call.toolCallId}`} checked={value === choice} onChange={() => onChange(choice)} />{' '}
            {choice}
          </label>
        ))}
      </fieldset>
    );
  return <TextArea label={question} rows={2} value={value} onValue={onChange} />;
}
