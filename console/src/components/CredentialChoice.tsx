// Editing something with a stored credential (a provider, a connection): the credential is never shown,
// so the form offers to keep it, store a new one or remove it, and turns that choice into the update's
// `credential` member (absent: keep; null: remove; the new value: replace).
import { Select } from './ui';

export type CredentialChoice = 'keep' | 'replace' | 'remove';

export function CredentialChoiceSelect({
  stored,
  value,
  onChange,
}: {
  stored: boolean;
  value: CredentialChoice;
  onChange(choice: CredentialChoice): void;
}) {
  return (
    <Select
      label="Credential"
      value={value}
      onChange={(event) => onChange(event.target.value as CredentialChoice)}
      options={[
        { value: 'keep', label: stored ? 'Keep the stored credential' : 'No credential' },
        { value: 'replace', label: 'Store a new credential' },
        ...(stored ? [{ value: 'remove', label: 'Remove the stored credential' }] : []),
      ]}
    />
  );
}

/**
 * The update's credential change for the choice: nothing to keep it, null to remove it, the new
 * credential to replace it (throws `missing` when replacing with nothing entered).
 */
export function credentialChange(choice: CredentialChoice, replacement: unknown, missing: string): { credential?: unknown } {
  if (choice === 'remove') return { credential: null };
  if (choice === 'replace') {
    if (!replacement) throw new Error(missing);
    return { credential: replacement };
  }
  return {};
}
