// Editing something with a stored credential (a provider, a connection): the credential is never shown,
// so the form offers to keep it, store a new one or remove it, and turns that choice into the update's
// `credential` member (absent: keep; null: remove; the new value: replace).
import { Select } from './ui';

export type CredentialChoice = 'keep' | 'replace' | 'remove';

/** What the keep / replace / remove choice says for one kind of stored secret. */
export interface StoredSecretWords {
  label: string;
  keep: string;
  /** "Keep" when nothing is stored: there is nothing to keep. */
  none: string;
  replace: string;
  /** "Replace" when nothing is stored yet. */
  store: string;
  remove: string;
}

const CREDENTIAL_WORDS: StoredSecretWords = {
  label: 'Credential',
  keep: 'Keep the stored credential',
  none: 'No credential',
  replace: 'Store a new credential',
  store: 'Store a new credential',
  remove: 'Remove the stored credential',
};

/** Keep, replace or remove a stored secret that is never shown (removing only when one is stored). */
export function StoredSecretChoiceSelect({
  words,
  stored,
  value,
  onChange,
}: {
  words: StoredSecretWords;
  stored: boolean;
  value: CredentialChoice;
  onChange(choice: CredentialChoice): void;
}) {
  return (
    <Select
      label={words.label}
      value={value}
      onValue={(choice) => onChange(choice as CredentialChoice)}
      options={[
        { value: 'keep', label: stored ? words.keep : words.none },
        { value: 'replace', label: stored ? words.replace : words.store },
        ...(stored ? [{ value: 'remove', label: words.remove }] : []),
      ]}
    />
  );
}

export function CredentialChoiceSelect(props: { stored: boolean; value: CredentialChoice; onChange(choice: CredentialChoice): void }) {
  return <StoredSecretChoiceSelect words={CREDENTIAL_WORDS} {...props} />;
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
