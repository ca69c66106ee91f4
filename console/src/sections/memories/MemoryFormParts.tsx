// What the new-memory and edit-memory forms share: reading the fields both send (name, description,
// labels, whether it takes writes), the "accepts writes" box and the submit/cancel row.
import type { ReactNode } from 'react';
import { SubmitButton } from '../../components/ui';
import { readLabels } from '../../lib/labels';
import type { MemoryInput } from './documents';

type MemoryFields = Pick<MemoryInput, 'name' | 'description' | 'labels' | 'enabled'>;

/** The shared fields as the form holds them, or why the labels cannot be read. */
export function readMemoryFields(form: FormData): { error: string } | { fields: MemoryFields } {
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

export function SubmitOrCancel({
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
