// /webhooks/:id: one subscription — its state, the test event, secret rotation (the new secret shown
// once), the edit form, deletion (behind a confirmation) and its deliveries.
import {
  ConsoleDeleteWebhookSubscriptionDocument,
  ConsoleRotateWebhookSecretDocument,
  ConsoleTestWebhookSubscriptionDocument,
  ConsoleUpdateWebhookSubscriptionDocument,
  ConsoleWebhookSubscriptionDocument,
} from '../../../generated/graphql';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useMutation } from '../../api';
import { DetailNotice, DetailPage, useDetailQuery, useVersionedMutation, type Detail } from '../../components/DetailPage';
import { Facts } from '../../components/Facts';
import { EditPanel, useEditForm } from '../../components/Forms';
import { Badge, ErrorNotice, Field, Time } from '../../components/ui';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { formatLabels, labelWords, parseLabels } from '../../lib/labels';
import { Deliveries } from './Deliveries';
import { type SubscriptionView } from './queries';
import { SecretOnce, SubscriptionFields } from './SubscriptionFields';

export function WebhookPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const detail = useDetailQuery(ConsoleWebhookSubscriptionDocument, { id }, (data) => data.webhookSubscription);
  const [test, testState] = useMutation(ConsoleTestWebhookSubscriptionDocument);
  const [remove, removeState] = useMutation(ConsoleDeleteWebhookSubscriptionDocument);
  const [reloadDeliveries, setReloadDeliveries] = useState(0);

  return (
    <DetailPage
      detail={detail}
      title="Webhook subscription"
      description={detail.item?.url}
      back={{ to: '/webhooks', label: 'All subscriptions' }}
    >
      {(subscription) => (
        <>
          <Facts
            facts={[
              ['Id', <code>{subscription.id}</code>],
              ['Target URL', <code>{subscription.url}</code>],
              [
                'State',
                <>
                  <Badge value={subscription.enabled ? 'enabled' : 'disabled'} />
                  {subscription.disabledReason ? (
                    <>
                      {' '}
                      {subscription.disabledReason} (<Time value={subscription.disabledAt} />)
                    </>
                  ) : null}
                </>,
              ],
              ['Event kinds', subscription.eventKinds.join(', ')],
              ['Failed deliveries in a row', subscription.consecutiveFailures],
              ['Previous secret signs until', <Time value={subscription.previousSecretExpiresAt} />],
              ['Labels', labelWords(subscription.labelList) || '—'],
              ['Version', subscription.version],
            ]}
          />
          <DetailNotice detail={detail} />
          <div className="actions" role="group" aria-label="Subscription actions">
            <button
              type="button"
              disabled={testState.loading}
              onClick={async () => {
                const answer = await test({ id: subscription.id });
                if (answer) {
                  detail.setNotice(`Test event queued (delivery ${answer.testWebhookSubscription.delivery.id}).`);
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
          <RotateSecret subscription={subscription} detail={detail} />
          <EditSubscription key={subscription.etag} subscription={subscription} detail={detail} />
          <Deliveries subscriptionId={subscription.id} url={subscription.url} reloadKey={reloadDeliveries} />
        </>
      )}
    </DetailPage>
  );
}

function RotateSecret({ subscription, detail }: { subscription: SubscriptionView; detail: Detail<SubscriptionView> }) {
  const [rotate, state] = useVersionedMutation(ConsoleRotateWebhookSecretDocument, detail);
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
        onValue={setOverlap}
      />
      <ErrorNotice error={state.error} title="Could not rotate the secret" />
      <ConfirmButton
        label="Rotate secret"
        title="Rotate the signing secret?"
        confirmLabel="Rotate"
        disabled={state.loading}
        onConfirm={async () => {
          setSecret(null);
          const answer = await rotate({ id: subscription.id, overlapSeconds: Number(overlap) });
          if (answer) setSecret(answer.rotateWebhookSubscriptionSecret.webhookSubscription.secret);
        }}
      >
        <p>The receiver must switch to the new secret within {overlap || 0} seconds; the new secret is shown once.</p>
      </ConfirmButton>
    </section>
  );
}

function EditSubscription({ subscription, detail }: { subscription: SubscriptionView; detail: Detail<SubscriptionView> }) {
  const [draft, setDraft] = useState({
    url: subscription.url,
    eventKinds: subscription.eventKinds,
    description: subscription.description,
    labels: formatLabels(subscription.labelList),
    enabled: subscription.enabled,
  });

  const form = useEditForm(ConsoleUpdateWebhookSubscriptionDocument, detail, { id: subscription.id }, () => ({
    url: draft.url.trim(),
    eventKinds: draft.eventKinds,
    description: draft.description,
    enabled: draft.enabled,
    labels: parseLabels(draft.labels),
  }));

  return (
    <EditPanel what="subscription" className="panel infra-panel" form={form}>
      <SubscriptionFields draft={draft} onChange={setDraft} />
    </EditPanel>
  );
}
