// The frame forms share: how a form ends (why the last submit was refused, then the submit button
// that says when it is busy), the "New …" panel of the list pages and the edit panel every detail page
// has, so each form holds only its own fields and what it sends.
import { useId, type FormEvent, type ReactNode } from 'react';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { useMutation, type MutationState } from '../api';
import { useFormSubmit } from '../lib/useFormSubmit';
import { useVersionedMutation, type Detail } from './DetailPage';
import { Empty, ErrorNotice, Problem, SubmitButton, TextArea } from './ui';

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
 * (`intro`), then the form named like the heading with its fields, the refusal of the last submit and
 * the submit button — or, while nothing can be made yet, why (`missing`).
 */
export function CreatePanel({
  title,
  className = 'panel',
  intro,
  missing,
  ready = true,
  form,
  submitLabel,
  busyLabel = 'Creating…',
  children,
  ...end
}: {
  /** The heading, which also names the form: "New connection". */
  title: string;
  className?: string;
  intro?: ReactNode;
  /** Why nothing can be made yet ("Add a model provider first"), shown instead of the form. */
  missing?: ReactNode;
  /** False while what the form offers is still being read (the form waits, and says nothing). */
  ready?: boolean;
  form: FormSubmit;
  /** The submit button's words: "Create connection". */
  submitLabel: string;
  busyLabel?: string;
  children: ReactNode;
} & Pick<FormEndProps, 'problem' | 'errorTitle' | 'withField'>) {
  const headingId = useId();
  const { onSubmit, formError, state } = form;
  return (
    <section aria-labelledby={headingId} className={className}>
      <h2 id={headingId}>{title}</h2>
      {intro}
      {missing ? <Empty>{missing}</Empty> : null}
      {ready && !missing ? (
        <form onSubmit={onSubmit} aria-label={title}>
          {children}
          <FormEnd {...end} error={formError ?? state.error} busy={state.loading} busyLabel={busyLabel}>
            {submitLabel}
          </FormEnd>
        </form>
      ) : null}
    </section>
  );
}

/**
 * A form's submit and where it stands: what `useCreateForm` and `useEditForm` answer, and
 * `CreatePanel` and `EditPanel` show.
 */
export interface FormSubmit {
  onSubmit(event: FormEvent): void;
  /** What the form itself could not read (JSON, labels), before anything was sent. */
  formError: unknown;
  state: MutationState;
}

/**
 * The form that makes a new thing: `read` turns the fields into the create mutation's input (throwing
 * on one it cannot read; undefined while there is nothing to send yet), `created` gets the answer once
 * it went through (to open the new thing, or to clear the form for the next one).
 */
export function useCreateForm<R, V extends { input: unknown }>(
  document: TypedDocumentNode<R, V>,
  read: () => V['input'] | undefined,
  created: (data: R) => unknown,
): FormSubmit {
  const [create, state] = useMutation(document);
  const { formError, submit } = useFormSubmit(read, async (input) => {
    const data = await create({ input } as V);
    if (data) await created(data);
  });
  return { onSubmit: (event) => void submit(event), formError, state };
}

/**
 * The edit form of a detail page: `read` turns the fields into the change's input (throwing on one it
 * cannot read), which is sent to the thing named by `target` against the version the page read, then
 * the page reads it again and says "Saved.".
 */
export function useEditForm<R, V extends { ifMatch?: string | null; input: unknown }>(
  document: TypedDocumentNode<R, V>,
  detail: Detail<{ etag: string }>,
  target: Omit<V, 'ifMatch' | 'input'>,
  read: () => V['input'],
): FormSubmit {
  const [update, state] = useVersionedMutation(document, detail);
  const { formError, submit } = useFormSubmit(read, async (input) => {
    await update({ ...target, input } as Omit<V, 'ifMatch'>, 'Saved.');
  });
  return { onSubmit: (event) => void submit(event), formError, state };
}

/**
 * The "Edit" panel of a detail page: its heading, what to know first (`intro`), the form named
 * "Edit <what>" with its fields, and "Save changes". With `onReload`, a change refused because someone
 * else changed the thing first is explained with a reload.
 */
export function EditPanel({
  what,
  className = 'panel',
  intro,
  form,
  onReload,
  withField,
  children,
}: {
  /** The thing edited, as the form's name says it: "connection", "model". */
  what: string;
  className?: string;
  intro?: ReactNode;
  form: FormSubmit;
  onReload?: () => void;
  /** Name the member the service points at (`config.model`). */
  withField?: boolean;
  children: ReactNode;
}) {
  const headingId = `edit-${what}`;
  const { onSubmit, formError, state } = form;
  return (
    <section aria-labelledby={headingId} className={className}>
      <h2 id={headingId}>Edit</h2>
      {intro}
      <form onSubmit={onSubmit} aria-label={`Edit ${what}`}>
        {children}
        <FormEnd
          error={formError ?? state.error}
          errorTitle="Could not save"
          withField={withField}
          stale={onReload ? { what, onReload } : undefined}
          busy={state.loading}
          busyLabel="Saving…"
        >
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
