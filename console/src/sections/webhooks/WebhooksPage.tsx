// /webhooks: the workspace's webhook subscriptions and the form that creates one. A new subscription's
// signing secret is shown here once, right after creation (the service never answers it again).
import { ConsoleCreateWebhookSubscriptionDocument, ConsoleWebhookSubscriptionsDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation } from '../../api';
import { Badge, EnabledFilter, Field, PageHeader } from '../../components/ui';
import { CreatePanel } from '../../components/Forms';
import { PagedTable, type Column } from '../../components/PagedTable';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { useUrlFilters } from '../../lib/useUrlFilters';
import { parseLabels } from '../../lib/labels';
import { type CreatedSubscription, type SubscriptionView } from './queries';
import { SecretOnce, SubscriptionFields, type SubscriptionDraft } from './SubscriptionFields';

const PAGE = 50;

export function WebhooksPage() {
  const { filter, setFilter } = useUrlFilters();
  const q = filter('q');
  const enabled = filter('enabled');
  const filters = { ...(q ? { q } : {}), ...(enabled ? { enabled: enabled === 'true' } : {}) };
  const list = usePagedQuery(ConsoleWebhookSubscriptionsDocument, { first: PAGE, ...filters }, (data) => data.webhookSubscriptions);

  return (
    <>
      <PageHeader title="Webhooks">
        Subscriptions that send the workspace's events to HTTP endpoints, signed as Standard Webhooks.
      </PageHeader>
      <CreateSubscription onCreated={() => void list.refetch()} />
      <section aria-labelledby="subscriptions-heading">
        <h2 id="subscriptions-heading">Subscriptions</h2>
        <form className="filters" role="search" aria-label="Filter subscriptions" onSubmit={(event) => event.preventDefault()}>
          <Field label="Search" type="search" value={q} onChange={(event) => setFilter('q', event.target.value)} />
          <EnabledFilter value={enabled} onChange={(value) => setFilter('enabled', value)} />
        </form>
        <PagedTable list={list} columns={SUBSCRIPTION_COLUMNS} empty="No subscriptions match." label="Webhook subscriptions" />
      </section>
    </>
  );
}

const SUBSCRIPTION_COLUMNS: Column<SubscriptionView>[] = [
  { name: 'Target URL', cell: (subscription) => <Link to={`/webhooks/${subscription.id}`}>{subscription.url}</Link> },
  { name: 'Event kinds', cell: (subscription) => subscription.eventKinds.join(', ') },
  {
    name: 'State',
    cell: (subscription) => (
      <>
        <Badge value={subscription.enabled ? 'enabled' : 'disabled'} />
        {subscription.disabledReason ? <small className="muted"> {subscription.disabledReason}</small> : null}
      </>
    ),
  },
  { name: 'Failures in a row', cell: (subscription) => subscription.consecutiveFailures },
  { name: 'Description', cell: (subscription) => subscription.description },
];

const emptyDraft: SubscriptionDraft = { url: '', eventKinds: [], description: '', labels: '', enabled: true };

function CreateSubscription({ onCreated }: { onCreated(): void }) {
  const [create, state] = useMutation(ConsoleCreateWebhookSubscriptionDocument);
  const [draft, setDraft] = useState(emptyDraft);
  const [formError, setFormError] = useState<unknown>(undefined);
  const [created, setCreated] = useState<CreatedSubscription | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    setCreated(null);
    let labels: Record<string, string>;
    try {
      labels = parseLabels(draft.labels);
    } catch (error) {
      setFormError(error);
      return;
    }
    const data = await create({
      input: { url: draft.url.trim(), eventKinds: draft.eventKinds, description: draft.description, enabled: draft.enabled, labels },
    });
    if (data) {
      setCreated(data.createWebhookSubscription.webhookSubscription);
      setDraft(emptyDraft);
      onCreated();
    }
  }

  return (
    <CreatePanel
      title="New subscription"
      className="panel infra-panel"
      intro={
        created ? (
          <>
            {created.secret ? <SecretOnce secret={created.secret} what={`Subscription to ${created.url} created.`} /> : null}
            <p>
              <Link to={`/webhooks/${created.id}`}>Open the new subscription</Link>
            </p>
          </>
        ) : null
      }
      form={{ onSubmit: (event) => void submit(event), formError, state }}
      errorTitle="Could not create the subscription"
      submitLabel="Create subscription"
    >
      <SubscriptionFields draft={draft} onChange={setDraft} />
    </CreatePanel>
  );
}
