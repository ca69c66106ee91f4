// /webhooks/:id: one subscription — its state, the test event, secret rotation (the new secret shown
// once), the edit form, deletion (behind a confirmation) and its deliveries.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery } from '../../api';
import { Badge, ErrorNotice, Field, Loading, PageHeader, Status, Time } from '../../components/ui';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { formatLabels, labelWords, parseLabels } from '../../lib/labels';
import { Deliveries } from './Deliveries';
import { DELETE_SUBSCRIPTION, ROTATE_SECRET, SUBSCRIPTION, TEST_SUBSCRIPTION, UPDATE_SUBSCRIPTION, type SubscriptionView } from './queries';
import { SecretOnce, SubscriptionFields } from './SubscriptionFields';

export function WebhookPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { data, error, loading, refetch } = useQuery(SUBSCRIPTION, { id });
  const [test, testState] = useMutation(TEST_SUBSCRIPTION);
  const [remove, removeState] = useMutation(DELETE_SUBSCRIPTION);
  const [notice, setNotice] = useState('');
  const [reloadDeliveries, setReloadDeliveries] = useState(0);
  const subscription = data?.webhookSubscription;

  return (
    <>
      <PageHeader title="Webhook subscription" actions={<Link to="/webhooks">All subscriptions</Link>}>
        {subscription?.url}
      </PageHeader>
      <ErrorNotice error={error} />
      {loading && !data ? <Loading /> : null}
      {subscription ? (
        <>
          <dl className="facts">
            <dt>Id</dt>
            <dd>
              <code>{subscription.id}</code>
            </dd>
            <dt>Target URL</dt>
            <dd>
              <code>{subscription.url}</code>
            </dd>
            <dt>State</dt>
            <dd>
              <Badge value={subscription.enabled ? 'enabled' : 'disabled'} />
              {subscription.disabledReason ? (
                <>
                  {' '}
                  {subscription.disabledReason} (<Time value={subscription.disabledAt} />)
                </>
              ) : null}
            </dd>
            <dt>Event kinds</dt>
            <dd>{subscription.eventKinds.join(', ')}</dd>
            <dt>Failed deliveries in a row</dt>
            <dd>{subscription.consecutiveFailures}</dd>
            <dt>Previous secret signs until</dt>
            <dd>
              <Time value={subscription.previousSecretExpiresAt} />
            </dd>
            <dt>Labels</dt>
            <dd>{labelWords(subscription.labelList) || '—'}</dd>
            <dt>Version</dt>
            <dd>{subscription.version}</dd>
          </dl>
          {notice ? <Status>{notice}</Status> : null}
          <div className="actions" role="group" aria-label="Subscription actions">
            <button
              type="button"
              disabled={testState.loading}
              onClick={async () => {
                const answer = await test({ id: subscription.id });
                if (answer) {
                  setNotice(`Test event queued (delivery ${answer.testWebhookSubscription.delivery.id}).`);
                  setReloadDeliveries((count) => count + 1);
                }
              }}
            >
              {testState.loading ? 'Sending…' : 'Send test event'}
            </button>
            <ConfirmButton
              label="Delete subscription"
              title="Delete this subscription?"
              confirmLabel="Delete"
              disabled={removeState.loading}
              onConfirm={async () => {
                const answer = await remove({ id: subscription.id, ifMatch: subscription.etag });
                if (answer) navigate('/webhooks');
              }}
            >
              <p>
                Events stop going to <code>{subscription.url}</code>, and its deliveries are deleted with it; pending ones are never sent.
              </p>
            </ConfirmButton>
          </div>
          <ErrorNotice error={testState.error ?? removeState.error} title="The service refused" />
          <RotateSecret subscription={subscription} onRotated={() => void refetch()} />
          <EditSubscription
            key={subscription.etag}
            subscription={subscription}
            onSaved={async () => {
              await refetch();
              // Said once the page shows the new state (and its new ETag), so the next change starts from it.
              setNotice('Saved.');
            }}
          />
          <Deliveries subscriptionId={subscription.id} url={subscription.url} reloadKey={reloadDeliveries} />
        </>
      ) : null}
    </>
  );
}

function RotateSecret({ subscription, onRotated }: { subscription: SubscriptionView; onRotated(): void }) {
  const [rotate, state] = useMutation(ROTATE_SECRET);
  const [overlap, setOverlap] = useState('86400');
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <section aria-labelledby="rotate-heading" className="panel infra-panel">
      <h2 id="rotate-heading">Signing secret</h2>
      <p className="muted">Rotating makes a new secret; for the overlap, deliveries carry a signature with the old one too.</p>
      {secret ? <SecretOnce secret={secret} what="A new signing secret was made." /> : null}
      <Field
        label="Overlap (seconds)"
        type="number"
        min={0}
        max={604800}
        hint="How long the replaced secret still signs (0 ends it at once; at most 604800)."
        value={overlap}
        onChange={(event) => setOverlap(event.target.value)}
      />
      <ErrorNotice error={state.error} title="Could not rotate the secret" />
      <ConfirmButton
        label="Rotate secret"
        title="Rotate the signing secret?"
        confirmLabel="Rotate"
        disabled={state.loading}
        onConfirm={async () => {
          setSecret(null);
          const answer = await rotate({ id: subscription.id, ifMatch: subscription.etag, overlapSeconds: Number(overlap) });
          if (answer) {
            setSecret(answer.rotateWebhookSubscriptionSecret.webhookSubscription.secret);
            onRotated();
          }
        }}
      >
        <p>The receiver must switch to the new secret within {overlap || 0} seconds; the new secret is shown once.</p>
      </ConfirmButton>
    </section>
  );
}

function EditSubscription({ subscription, onSaved }: { subscription: SubscriptionView; onSaved(): Promise<void> }) {
  const [update, state] = useMutation(UPDATE_SUBSCRIPTION);
  const [draft, setDraft] = useState({
    url: subscription.url,
    eventKinds: subscription.eventKinds,
    description: subscription.description,
    labels: formatLabels(subscription.labelList),
    enabled: subscription.enabled,
  });
  const [formError, setFormError] = useState<unknown>(undefined);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    let labels: Record<string, string>;
    try {
      labels = parseLabels(draft.labels);
    } catch (error) {
      setFormError(error);
      return;
    }
    const answer = await update({
      id: subscription.id,
      ifMatch: subscription.etag,
      input: { url: draft.url.trim(), eventKinds: draft.eventKinds, description: draft.description, enabled: draft.enabled, labels },
    });
    if (answer) await onSaved();
  }

  return (
    <section aria-labelledby="edit-subscription" className="panel infra-panel">
      <h2 id="edit-subscription">Edit</h2>
      <form onSubmit={submit} aria-label="Edit subscription">
        <SubscriptionFields draft={draft} onChange={setDraft} />
        <ErrorNotice error={formError ?? state.error} title="Could not save" />
        <button type="submit" disabled={state.loading}>
          {state.loading ? 'Saving…' : 'Save changes'}
        </button>
      </form>
    </section>
  );
}
