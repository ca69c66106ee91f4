// What the new-memory and edit-memory forms share: the panel with the fields both send (name,
// description, labels, whether it takes writes) and reading them, the "accepts writes" box, the
// refusals and the submit/cancel row.
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import type { MutationState } from '../../api';
import { ErrorNotice, Field, SubmitButton, TextArea } from '../../components/ui';
import { formatLabels, readLabels } from '../../lib/labels';
import type { MemoryDetail, MemoryInput } from './documents';

type MemoryFields = Pick<MemoryInput, 'name' | 'description' | 'labels' | 'enabled'>;

/** The shared fields as the form holds them, or why the labels cannot be read. */
function readMemoryFields(form: FormData): { error: string } | { fields: MemoryFields } {
  const labels = readLabels(String(form.get('labels') ?? ''));
  if ('error' in labels) return { error: labels.error };
  return {
    fields: {
      name: String(form.get('name') ?? '').trim(),
      description: String(form.get('description') ?? ''),
      labels: labels.labels,
      enabled: form.get('enabled') === 'on',
    },
  };
}

export function AcceptsWritesBox({ id, defaultChecked }: { id: string; defaultChecked: boolean }) {
  return (
    <div className="field checkbox">
      <input id={id} type="checkbox" name="enabled" defaultChecked={defaultChecked} />
      <label htmlFor={id}>Enabled (accepts writes)</label>
    </div>
  );
}

function SubmitOrCancel({
  busy,
  busyLabel,
  onCancel,
  children,
}: {
  busy: boolean;
  busyLabel: string;
  onCancel(): void;
  children: ReactNode;
}) {
  return (
    <div className="actions">
      <SubmitButton busy={busy} busyLabel={busyLabel}>
        {children}
      </SubmitButton>
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/**
 * A memory's form in its panel: name, description and labels (from `memory` when it is edited), the
 * form's own `children` fields, why the choices or the last submit were refused, then submit and
 * cancel. `onSubmit` gets the shared fields once the labels read.
 */
export function MemoryFormPanel({
  title,
  memory,
  choicesError,
  choicesErrorTitle,
  state,
  errorTitle,
  busyLabel,
  submitLabel,
  onSubmit,
  onCancel,
  children,
}: {
  title: string;
  memory?: MemoryDetail;
  /** The refusal of the choices the form offers (providers, models). */
  choicesError: unknown;
  choicesErrorTitle: string;
  state: MutationState;
  errorTitle: string;
  busyLabel: string;
  submitLabel: string;
  onSubmit(fields: MemoryFields): Promise<void>;
  onCancel(): void;
  children: ReactNode;
}) {
  const headingId = useId();
  const [labelsProblem, setLabelsProblem] = useState<string | undefined>();
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const read = readMemoryFields(new FormData(event.currentTarget));
    setLabelsProblem('error' in read ? read.error : undefined);
    if ('fields' in read) await onSubmit(read.fields);
  }
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <form onSubmit={(event) => void submit(event)}>
        <Field label="Name" name="name" required defaultValue={memory?.name} autoFocus />
        <TextArea label="Description" name="description" rows={2} defaultValue={memory?.description} />
        <TextArea
          label="Labels"
          name="labels"
          rows={2}
          defaultValue={memory ? formatLabels(memory.labelList) : undefined}
          hint="One key=value a line"
        />
        {children}
        <ErrorNotice error={choicesError} title={choicesErrorTitle} />
        <ErrorNotice error={labelsProblem ? new Error(labelsProblem) : state.error} title={errorTitle} />
        <SubmitOrCancel busy={state.loading} busyLabel={busyLabel} onCancel={onCancel}>
          {submitLabel}
        </SubmitOrCancel>
      </form>
    </section>
  );
}
