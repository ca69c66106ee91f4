// A provider type's credential as password fields, one per member of its credential schema. What is
// typed is sent once and never shown back; blank fields are left out.
import { Field } from '../../components/ui';
import { jsonSchema } from './queries';

export type SecretDraft = Record<string, string>;

/** The members of a credential schema (a JSON Schema document as the service sent it). */
export function secretMembers(schema: unknown): string[] {
  return Object.keys(jsonSchema(schema).properties ?? {});
}

/** The credential to send, or undefined when nothing was typed. */
export function credentialFrom(draft: SecretDraft): Record<string, string> | undefined {
  const entries = Object.entries(draft).filter(([, value]) => value !== '');
  return entries.length ? Object.fromEntries(entries) : undefined;
}

export function SecretFields({
  schema: value,
  draft,
  onChange,
}: {
  schema: unknown;
  draft: SecretDraft;
  onChange(next: SecretDraft): void;
}) {
  const schema = jsonSchema(value);
  const members = secretMembers(schema);
  if (!members.length) return <p className="muted">This type takes no credential.</p>;
  const required = new Set(schema.required ?? []);
  return (
    <fieldset>
      <legend>Credential (write-only: never shown back)</legend>
      {members.map((member) => (
        <Field
          key={member}
          label={`${member}${required.has(member) ? '' : ' (optional)'}`}
          hint={schema.properties?.[member]?.description}
          type="password"
          autoComplete="off"
          value={draft[member] ?? ''}
          onChange={(event) => onChange({ ...draft, [member]: event.target.value })}
        />
      ))}
    </fieldset>
  );
}
