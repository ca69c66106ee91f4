// The fields a subscription is made of, shared by the create and edit forms: the target URL, the
// event kinds (a group of checkboxes), a description and labels.
import { ConsoleWebhookEventKindsDocument } from '../../../generated/graphql';
import { useId } from 'react';
import { useQuery } from '../../api';
import { Checkbox, ErrorNotice, Field, LabelsField, Loading } from '../../components/ui';
import { draftBinder } from '../../lib/draft';

export interface SubscriptionDraft {
  url: string;
  eventKinds: string[];
  description: string;
  labels: string;
  enabled: boolean;
}

export function SubscriptionFields({ draft, onChange }: { draft: SubscriptionDraft; onChange(draft: SubscriptionDraft): void }) {
  const id = useId();
  const bind = draftBinder(draft, onChange);
  // The kinds come from the service (webhookEventKinds), so the form never offers one it would refuse.
  const { data, error, loading } = useQuery(ConsoleWebhookEventKindsDocument, {});
  const known = data?.webhookEventKinds ?? [];
  // Kinds the subscription already has but the service no longer lists stay shown (and checked), so saving keeps them visible.
  const kinds = [
    ...known,
    ...draft.eventKinds.filter((kind) => !known.some((k) => k.kind === kind)).map((kind) => ({ kind, description: '' })),
  ];
  return (
    <>
      <Field
        label="Target URL"
        type="url"
        required
        hint="https://, or http:// where the deployment allows it. Private addresses only where the deployment allows them."
        {...bind('url')}
      />
      <fieldset className="event-kinds">
        <legend>Event kinds</legend>
        {error ? <ErrorNotice error={error} /> : null}
        {loading && !data ? <Loading label="Loading event kinds…" /> : null}
        {kinds.map(({ kind, description }) => (
          <div className="field checkbox" key={kind}>
            <input
              id={`${id}-${kind}`}
              type="checkbox"
              aria-describedby={description ? `${id}-${kind}-about` : undefined}
              checked={draft.eventKinds.includes(kind)}
              onChange={(event) =>
                onChange({
                  ...draft,
                  eventKinds: event.target.checked ? [...draft.eventKinds, kind] : draft.eventKinds.filter((chosen) => chosen !== kind),
                })
              }
            />
            <label htmlFor={`${id}-${kind}`}>{kind}</label>
            {description ? (
              <small className="muted" id={`${id}-${kind}-about`}>
                {description}
              </small>
            ) : null}
          </div>
        ))}
      </fieldset>
      <Field label="Description" {...bind('description')} />
      <LabelsField value={draft.labels} onChange={(labels) => onChange({ ...draft, labels })} />
      <Checkbox label="Enabled" checked={draft.enabled} onChange={(enabled) => onChange({ ...draft, enabled })} />
    </>
  );
}

/** A one-time secret, with the warning that it will not be shown again. */
export function SecretOnce({ secret, what }: { secret: string; what: string }) {
  return (
    <div role="status" className="notice secret-once">
      <p>
        <strong>{what}</strong> Copy it now: the service shows it only this once.
      </p>
      <p>
        Signing secret: <code>{secret}</code>
      </p>
    </div>
  );
}
