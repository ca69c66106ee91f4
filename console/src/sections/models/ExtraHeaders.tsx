// A model provider's extra request headers: rows of a name and a value, sent with every request to the
// model service. The service stores them sealed and never returns them (only whether some are stored),
// so, like a credential, an edit keeps them, replaces the whole set with the rows typed here, or removes
// them; values are typed in password fields because they often carry keys.
import { Field } from '../../components/ui';
import { StoredSecretChoiceSelect, type CredentialChoice, type StoredSecretWords } from '../../components/CredentialChoice';

export interface HeaderRow {
  /** Stable across edits, so removing a row keeps the others' inputs (and focus) in place. */
  id: number;
  name: string;
  value: string;
}

let nextRowId = 1;
export function newHeaderRow(): HeaderRow {
  return { id: nextRowId++, name: '', value: '' };
}

/**
 * The rows as the API's `extraHeaders` map; rows left wholly blank are skipped. Throws, naming the
 * row, for a value without a name or a name given twice (header names ignore case). The service checks
 * the names themselves (and refuses the ones the HTTP client sets, such as Host).
 */
export function headersFrom(rows: HeaderRow[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    const name = row.name.trim();
    if (!name && !row.value) return;
    if (!name) throw new Error(`Extra header ${index + 1} has a value but no name.`);
    if (seen.has(name.toLowerCase())) throw new Error(`Extra header “${name}” is given twice.`);
    seen.add(name.toLowerCase());
    headers[name] = row.value;
  });
  return headers;
}

/** The update's `extraHeaders` member for the choice: absent keeps, null removes, the rows replace. */
export function extraHeadersChange(choice: CredentialChoice, rows: HeaderRow[]): { extraHeaders?: Record<string, string> | null } {
  if (choice === 'remove') return { extraHeaders: null };
  if (choice === 'keep') return {};
  const headers = headersFrom(rows);
  if (!Object.keys(headers).length) throw new Error('Enter at least one extra header, or choose to remove the stored ones.');
  return { extraHeaders: headers };
}

const EXTRA_HEADERS_WORDS: StoredSecretWords = {
  label: 'Extra headers',
  keep: 'Keep the stored extra headers',
  none: 'No extra headers',
  replace: 'Replace them with new extra headers',
  store: 'Store extra headers',
  remove: 'Remove the stored extra headers',
};

export function ExtraHeadersChoiceSelect(props: { stored: boolean; value: CredentialChoice; onChange(choice: CredentialChoice): void }) {
  return <StoredSecretChoiceSelect words={EXTRA_HEADERS_WORDS} {...props} />;
}

export function HeaderRows({ legend, rows, onChange }: { legend: string; rows: HeaderRow[]; onChange(rows: HeaderRow[]): void }) {
  const change = (id: number, patch: Partial<HeaderRow>) => onChange(rows.map((row) => (row.id === id ? { ...row, ...patch } : row)));
  return (
    <fieldset className="header-rows">
      <legend>{legend}</legend>
      {rows.length === 0 ? <p className="muted">No extra headers.</p> : null}
      {rows.map((row, index) => (
        <fieldset key={row.id} className="header-row">
          <legend>Header {index + 1}</legend>
          <Field
            label="Header name"
            autoComplete="off"
            spellCheck={false}
            placeholder="X-Team"
            value={row.name}
            onChange={(event) => change(row.id, { name: event.target.value })}
          />
          <Field
            label="Header value"
            type="password"
            autoComplete="off"
            value={row.value}
            onChange={(event) => change(row.id, { value: event.target.value })}
          />
          <button
            type="button"
            className="secondary"
            aria-label={`Remove header ${index + 1}`}
            onClick={() => onChange(rows.filter((other) => other.id !== row.id))}
          >
            Remove
          </button>
        </fieldset>
      ))}
      <button type="button" className="secondary" onClick={() => onChange([...rows, newHeaderRow()])}>
        Add a header
      </button>
    </fieldset>
  );
}
