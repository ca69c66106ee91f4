// Small shared pieces every page uses, with the accessible markup they need (roles, labels, live
// regions), so pages stay about their own domain.
import { useId, type ReactNode, type InputHTMLAttributes, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { ServiceError, errorMessage } from '../api';

export function PageHeader({ title, actions, children }: { title: string; actions?: ReactNode; children?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {children ? <p className="muted">{children}</p> : null}
      </div>
      {actions ? <div className="actions">{actions}</div> : null}
    </header>
  );
}

/**
 * An error the user must see; announced by screen readers as it appears. `withField` adds the member
 * the service names (`config.model`, `labels.team`) so the user knows what to fix. `stale` explains a
 * refused If-Match (someone else changed the thing since the page read it) and offers a reload.
 */
export function ErrorNotice({
  error,
  title,
  withField,
  stale,
}: {
  error: unknown;
  title?: string;
  withField?: boolean;
  stale?: { what: string; onReload?: () => void };
}) {
  if (!error) return null;
  const heading = title ? <strong>{title}: </strong> : null;
  if (stale && isStaleVersion(error))
    return (
      <div role="alert" className="notice error">
        {heading}
        Someone else changed this {stale.what} after you opened it, so your change was not saved. Reload to see the current {stale.what},
        then make your change again.{' '}
        {stale.onReload ? (
          <button type="button" className="secondary" onClick={stale.onReload}>
            Reload the {stale.what}
          </button>
        ) : null}
      </div>
    );
  const field = withField && error instanceof ServiceError ? error.details?.field : undefined;
  return (
    <div role="alert" className="notice error">
      {heading}
      {errorMessage(error)}
      {typeof field === 'string' ? (
        <>
          {' '}
          — at <code>{field}</code>
        </>
      ) : null}
    </div>
  );
}

/** A refused If-Match: the version the page read is no longer the current one. */
export function isStaleVersion(error: unknown): boolean {
  return error instanceof ServiceError && (error.code === 'precondition_failed' || error.status === 412);
}

/**
 * A problem with what the user entered (labels or JSON that do not read), announced as it appears;
 * nothing when there is none.
 */
export function Problem({ children }: { children: ReactNode }) {
  return children ? (
    <div role="alert" className="notice error">
      {children}
    </div>
  ) : null;
}

/** A status line that screen readers announce politely (saved, sent, loading). */
export function Status({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="notice">
      {children}
    </p>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p role="status" aria-live="polite" className="muted">
      {label}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="muted empty">{children}</p>;
}

/**
 * What a labelled text control takes besides its element's own attributes: `onValue` hears the new
 * text, so a form binds a control to its state as `onValue={setName}` rather than unwrapping the event
 * at every field.
 */
interface LabelledProps {
  label: string;
  hint?: string;
  onValue?(value: string): void;
}

/** The element's change handler for `onValue` (or the one given, when the form wants the event). */
function changeHandler<E extends { target: { value: string } }>(onValue: LabelledProps['onValue'], onChange?: (event: E) => void) {
  return onValue ? (event: E) => onValue(event.target.value) : onChange;
}

/** A labelled input; every form control in the console has a visible label. */
export function Field({ label, hint, onValue, onChange, ...input }: LabelledProps & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Labelled label={label} hint={hint} control={(props) => <input {...props} {...input} onChange={changeHandler(onValue, onChange)} />} />
  );
}

export function TextArea({ label, hint, onValue, onChange, ...area }: LabelledProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Labelled
      label={label}
      hint={hint}
      control={(props) => <textarea {...props} {...area} onChange={changeHandler(onValue, onChange)} />}
    />
  );
}

/** A form control with its visible label and, when given, a hint the control is described by. */
function Labelled({
  label,
  hint,
  control,
}: {
  label: string;
  hint?: string;
  control(props: { id: string; 'aria-describedby': string | undefined }): ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {control({ id, 'aria-describedby': hint ? `${id}-hint` : undefined })}
      {hint ? (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      ) : null}
    </div>
  );
}

/** A form's labels as text, one `key=value` a line (lib/labels.ts reads it). */
export function LabelsField({
  value,
  onChange,
  hint = 'One key=value a line.',
}: {
  value: string;
  onChange(value: string): void;
  hint?: string;
}) {
  return <TextArea label="Labels" hint={hint} rows={2} value={value} onValue={onChange} />;
}

/** A form's submit button: disabled while its request runs, and saying so ("Saving…"). */
export function SubmitButton({ busy, busyLabel, children }: { busy: boolean; busyLabel: string; children: ReactNode }) {
  return (
    <button type="submit" disabled={busy}>
      {busy ? busyLabel : children}
    </button>
  );
}

/**
 * A table's column headings; those in `hidden` are for assistive technology only (a column of
 * buttons that name themselves).
 */
export function ColumnHeads({ names, hidden = [] }: { names: string[]; hidden?: string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th key={name} scope="col">
            {hidden.includes(name) ? <span className="visually-hidden">{name}</span> : name}
          </th>
        ))}
      </tr>
    </thead>
  );
}

export function Select({
  label,
  options,
  onValue,
  onChange,
  ...select
}: {
  label: string;
  options: { value: string; label: string }[];
  onValue?(value: string): void;
} & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...select} onChange={changeHandler(onValue, onChange)}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A status word as a coloured badge (run, environment, delivery, device statuses). */
export function Badge({ value }: { value: string }) {
  return <span className={`badge badge-${value.replace(/[^a-z_]/gi, '')}`}>{value.replace(/_/g, ' ')}</span>;
}

/** A JSON document, pretty-printed. */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  return (
    <time dateTime={value} title={date.toISOString()}>
      {date.toLocaleString()}
    </time>
  );
}

/** Reads a page's or a list's data again now; `busy` while that read runs. */
export function RefreshButton({ onRefresh, busy }: { onRefresh(): unknown; busy?: boolean }) {
  return (
    <button type="button" className="secondary" onClick={() => void onRefresh()} disabled={busy}>
      Refresh
    </button>
  );
}

/** "Load more" for a cursor connection. */
export function MorePages({ hasNextPage, loading, onMore }: { hasNextPage: boolean; loading: boolean; onMore(): void }) {
  if (!hasNextPage) return null;
  return (
    <button type="button" className="secondary" onClick={onMore} disabled={loading}>
      {loading ? 'Loading…' : 'Load more'}
    </button>
  );
}

/** A labelled checkbox (the label follows the box, as platforms show it). */
export function Checkbox({ label, checked, onChange }: { label: string; checked: boolean; onChange(checked: boolean): void }) {
  const id = useId();
  return (
    <div className="field checkbox">
      <input id={id} type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

/** The "enabled / disabled / any" filter of a list of things that can be turned off. */
export function EnabledFilter({ value, onChange }: { value: string; onChange(value: string): void }) {
  return (
    <Select
      label="State"
      value={value}
      onValue={onChange}
      options={[
        { value: '', label: 'Any' },
        { value: 'true', label: 'Enabled' },
        { value: 'false', label: 'Disabled' },
      ]}
    />
  );
}

/**
 * The "State" panel of a resource that can be enabled and disabled: what disabling means, the
 * refusal of the last change (with a reload when the page's copy was stale) and the one button.
 */
export function EnabledStatePanel({
  what,
  enabled,
  explanation,
  state,
  setEnabled,
  onReload,
}: {
  /** The resource, as the button and messages name it: "model", "provider". */
  what: string;
  enabled: boolean;
  explanation: string;
  /** The state change's mutation: its refusal and whether it is under way. */
  state: { error: unknown; loading: boolean };
  /** Makes the change; `notice` says what it did ("The model is disabled."). */
  setEnabled(enabled: boolean, notice: string): void;
  onReload(): void;
}) {
  const headingId = `${what}-state-heading`;
  return (
    <section aria-labelledby={headingId} className="panel">
      <h2 id={headingId}>State</h2>
      <p className="muted">{explanation}</p>
      <ErrorNotice error={state.error} title="Could not change the state" stale={{ what, onReload }} />
      <button
        type="button"
        disabled={state.loading}
        onClick={() => setEnabled(!enabled, `The ${what} is ${enabled ? 'disabled' : 'enabled'}.`)}
      >
        {enabled ? `Disable ${what}` : `Enable ${what}`}
      </button>
    </section>
  );
}
