// The frame forms share: how a form ends (why the last submit was refused, then the submit button
// that says when it is busy), the "New …" panel of the list pages and the edit panel every detail page
// has, so each form holds only its own fields and what it sends.
import { useId, type FormEvent, type ReactNode } from 'react';
import { ErrorNotice, Problem, SubmitButton, TextArea } from './ui';

export interface FormEndProps {
  /** What the form itself could not read (labels, JSON), before anything was sent. */
  problem?: ReactNode;
  /** The refusal to show: the form's own (a field it could not read) or the service's. */
  error: unknown;
  errorTitle: string;
  /** Name the member the service points at (`config.model`). */
  withField?: boolean;
  /** Explain a refused If-Match and offer a reload (see ErrorNotice). */
  stale?: { what: string; onReload?: () => void };
  busy: boolean;
  busyLabel: string;
  /** The submit button's words. */
  children: ReactNode;
}

/** A form's last lines: its own problem and the refusal of the last submit, then the submit button. */
export function FormEnd({ problem, error, errorTitle, withField, stale, busy, busyLabel, children }: FormEndProps) {
  return (
    <>
      <Problem>{problem}</Problem>
      <ErrorNotice error={error} title={errorTitle} withField={withField} stale={stale} />
      <SubmitButton busy={busy} busyLabel={busyLabel}>
        {children}
      </SubmitButton>
    </>
  );
}

/**
 * The panel that makes a new thing on a list page ("New connection"): its heading, what to know first
 * or why nothing can be made yet (`intro`), then — once `ready` — the form named like the heading, with
 * its fields, the refusal of the last submit and the submit button.
 */
export function CreatePanel({
  title,
  className = 'panel',
  intro,
  ready = true,
  onSubmit,
  submitLabel,
  busyLabel = 'Creating…',
  children,
  ...end
}: {
  /** The heading, which also names the form: "New connection". */
  title: string;
  className?: string;
  intro?: ReactNode;
  /** Whether the form can be shown yet (a provider to choose exists, the choices are read). */
  ready?: boolean;
  onSubmit(event: FormEvent): void;
  /** The submit button's words: "Create connection". */
  submitLabel: string;
  busyLabel?: string;
  children: ReactNode;
} & Omit<FormEndProps, 'busyLabel' | 'children'>) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className={className}>
      <h2 id={headingId}>{title}</h2>
      {intro}
      {ready ? (
        <form onSubmit={onSubmit} aria-label={title}>
          {children}
          <FormEnd {...end} busyLabel={busyLabel}>
            {submitLabel}
          </FormEnd>
        </form>
      ) : null}
    </section>
  );
}

/**
 * The "Edit" panel of a detail page: its heading, what to know first (`intro`), the form named
 * "Edit <what>" with its fields, and "Save changes".
 */
export function EditPanel({
  what,
  className = 'panel',
  intro,
  onSubmit,
  children,
  ...end
}: {
  /** The thing edited, as the form's name says it: "connection", "model". */
  what: string;
  className?: string;
  intro?: ReactNode;
  onSubmit(event: FormEvent): void;
  children: ReactNode;
} & Omit<FormEndProps, 'errorTitle' | 'busyLabel' | 'children'>) {
  const headingId = `edit-${what}`;
  return (
    <section aria-labelledby={headingId} className={className}>
      <h2 id={headingId}>Edit</h2>
      {intro}
      <form onSubmit={onSubmit} aria-label={`Edit ${what}`}>
        {children}
        <FormEnd {...end} errorTitle="Could not save" busyLabel="Saving…">
          Save changes
        </FormEnd>
      </form>
    </section>
  );
}

/**
 * A provider's or template's configuration as JSON text (the form reads it with parseJsonObject when
 * it is sent); `hint` says what it must hold or what changing it means.
 */
export function ConfigField({
  hint,
  rows = 4,
  value,
  onValue,
}: {
  hint?: string;
  rows?: number;
  value: string;
  onValue(value: string): void;
}) {
  return <TextArea label="Configuration (JSON)" hint={hint} rows={rows} value={value} onValue={onValue} />;
}
