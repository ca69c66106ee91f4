// What a waiting run asks of a person, answered in one resume: each approval approved or denied (a
// reason, when given, goes to the model as the resume's message), each client call's result as JSON,
// each question's answer (typed, or one of the choices it offers). The service takes only a batch that
// answers everything pending, so the page asks for all of it before it sends.
import { ConsoleResumeRunDocument, type ResumeRunInput } from '../../../generated/graphql';
import { useId, useState, type FormEvent } from 'react';
import { useMutation } from '../../api';
import { Field, JsonView, Select, TextArea } from '../../components/ui';
import { draftBinder } from '../../lib/draft';
import { FormEnd } from '../../components/Forms';
import { useIdempotencyKey } from '../../lib/idempotency';
import { textMessage, type PendingToolCall, type RunDetail } from './documents';

interface Answers {
  approvals: Record<string, { action?: 'approve' | 'deny'; reason: string }>;
  calls: Record<string, { status: 'returned' | 'error'; text: string; choice?: string }>;
}

/** What every answer control takes: the pending call, its answer so far and where a new answer goes. */
interface AnswerControlProps<A> {
  call: PendingToolCall;
  value: A;
  onChange(value: A): void;
}

function ApprovalControl({ call, value, onChange }: AnswerControlProps<Answers['approvals'][string]>) {
  const bind = draftBinder(value, onChange);
  const name = useId();
  return (
    <fieldset className="panel">
      <legend>
        Approve <code>{call.toolName}</code>?
      </legend>
      {call.presentation.title && call.presentation.title !== call.toolName ? <p>{call.presentation.title}</p> : null}
      <JsonView value={call.arguments} label={`Arguments of ${call.toolName}`} />
      <div className="runs-choices">
        {(['approve', 'deny'] as const).map((action) => (
          <label key={action}>
            <input type="radio" name={name} checked={value.action === action} onChange={() => onChange({ ...value, action })} />{' '}
            {action === 'approve' ? 'Approve' : 'Deny'}
          </label>
        ))}
      </div>
      <Field label="Reason (optional)" {...bind('reason')} />
    </fieldset>
  );
}

function ClientCallControl({ call, value, onChange }: AnswerControlProps<Answers['calls'][string]>) {
  const bind = draftBinder(value, onChange);
  return (
    <fieldset className="panel">
      <legend>
        Client call <code>{call.toolName}</code>
      </legend>
      {call.presentation.title && call.presentation.title !== call.toolName ? <p>{call.presentation.title}</p> : null}
      <JsonView value={call.arguments} label={`Arguments of ${call.toolName}`} />
      <Select
        label={`Outcome of ${call.toolName}`}
        value={value.status}
        onChange={(event) => onChange({ ...value, status: event.target.value as 'returned' | 'error' })}
        options={[
          { value: 'returned', label: 'Returned a result' },
          { value: 'error', label: 'Failed with an error' },
        ]}
      />
      <TextArea
        label={`Result of ${call.toolName} (JSON)`}
        hint="Any JSON value: an object, a string in quotes, a number…"
        rows={4}
        {...bind('text')}
      />
    </fieldset>
  );
}

function QuestionControl({ call, value, onChange }: AnswerControlProps<Answers['calls'][string]>) {
  const bind = draftBinder(value, onChange);
  const name = useId();
  const choices = call.presentation.choices ?? [];
  const question = call.presentation.question ?? String((call.arguments as { question?: unknown })?.question ?? '');
  return (
    <fieldset className="panel">
      <legend>Question: {question}</legend>
      {choices.length ? (
        <div className="runs-choices">
          {choices.map((choice) => (
            <label key={choice}>
              <input
                type="radio"
                name={name}
                checked={value.choice === choice && !value.text}
                onChange={() => onChange({ ...value, choice, text: '' })}
              />{' '}
              {choice}
            </label>
          ))}
        </div>
      ) : null}
      <Field label={choices.length ? 'Or type an answer' : 'Your answer'} {...bind('text')} />
    </fieldset>
  );
}

/** The resume batch from the answers, or the first problem that keeps it from being sent. */
function batchOf(run: RunDetail, answers: Answers): { batch?: ResumeRunInput; problem?: string } {
  const approvals: Record<string, { action: string }> = {};
  const reasons: string[] = [];
  for (const call of run.pending.approvals) {
    const answer = answers.approvals[call.toolCallId];
    if (!answer?.action) return { problem: `Choose Approve or Deny for ${call.toolName}.` };
    approvals[call.toolCallId] = { action: answer.action };
    if (answer.reason.trim())
      reasons.push(`${answer.action === 'approve' ? 'Approved' : 'Denied'} ${call.toolName}: ${answer.reason.trim()}`);
  }
  const calls: Record<string, { status: string; value: unknown }> = {};
  for (const call of run.pending.calls) {
    const answer = answers.calls[call.toolCallId]!;
    if (call.presentation.kind === 'question') {
      const text = answer.text.trim() || answer.choice;
      if (!text) return { problem: `Answer the question "${call.presentation.question ?? call.toolName}".` };
      calls[call.toolCallId] = { status: 'returned', value: text };
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(answer.text);
    } catch (error) {
      return { problem: `The result of ${call.toolName} is not JSON: ${(error as Error).message}` };
    }
    calls[call.toolCallId] = { status: answer.status, value };
  }
  return { batch: { approvals, calls, ...(reasons.length ? { input: textMessage(reasons.join('\n')) } : {}) } };
}

export function PendingActions({ run, onResumed }: { run: RunDetail; onResumed(successorId: string): void }) {
  const [answers, setAnswers] = useState<Answers>(() => ({
    approvals: Object.fromEntries(run.pending.approvals.map((call) => [call.toolCallId, { reason: '' }])),
    calls: Object.fromEntries(run.pending.calls.map((call) => [call.toolCallId, { status: 'returned' as const, text: '' }])),
  }));
  const [problem, setProblem] = useState<string | null>(null);
  // A changed answer makes the last problem shown stale.
  const answer = (update: (previous: Answers) => Answers) => {
    setProblem(null);
    setAnswers(update);
  };
  // One key per waiting run: sending twice gives the same successor instead of a conflict.
  const [idempotencyKey] = useIdempotencyKey(run.id);
  const [resume, resumeState] = useMutation(ConsoleResumeRunDocument);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { batch, problem: found } = batchOf(run, answers);
    setProblem(found ?? null);
    if (!batch) return;
    const resumed = await resume({ runId: run.id, idempotencyKey, input: batch });
    if (resumed) onResumed(resumed.resumeRun.run.id);
  };

  return (
    <section className="panel runs-pending" aria-labelledby="pending-heading">
      <h2 id="pending-heading">Waiting for you</h2>
      <p className="muted">
        The run waits for {run.waitReason?.replace(/_/g, ' ') ?? 'an answer'}. Answer everything below, then resume it.
      </p>
      <form onSubmit={(event) => void submit(event)}>
        {run.pending.approvals.map((call) => (
          <ApprovalControl
            key={call.toolCallId}
            call={call}
            value={answers.approvals[call.toolCallId]!}
            onChange={(value) => answer((previous) => ({ ...previous, approvals: { ...previous.approvals, [call.toolCallId]: value } }))}
          />
        ))}
        {run.pending.calls.map((call) => {
          const Control = call.presentation.kind === 'question' ? QuestionControl : ClientCallControl;
          return (
            <Control
              key={call.toolCallId}
              call={call}
              value={answers.calls[call.toolCallId]!}
              onChange={(value) => answer((previous) => ({ ...previous, calls: { ...previous.calls, [call.toolCallId]: value } }))}
            />
          );
        })}
        <FormEnd problem={problem} error={resumeState.error} errorTitle="Could not resume" busy={resumeState.loading} busyLabel="Resuming…">
          Resume run
        </FormEnd>
      </form>
    </section>
  );
}
