// /webhooks: the workspace's webhook subscriptions and the form that creates one. A new subscription's
// signing secret is shown here once, right after creation (the service never answers it again).
import { ConsoleCreateWebhookSubscriptionDocument, ConsoleWebhookSubscriptionsDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation } from '../../api';
import { Badge, ColumnHeads, Empty, ErrorNotice, Field, Loading, MorePages, PageHeader, Select, SubmitButton } from '../../components/ui';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { useUrlFilters } from '../../lib/useUrlFilters';
import { parseLabels } from '../../lib/labels';
import { type SubscriptionView } from './queries';
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
          <Select
            label="State"
            value={enabled}
            onChange={(event) => setFilter('enabled', event.target.value)}
            options={[
              { value: '', label: 'Any' },
              { value: 'true', label: 'Enabled' },
              { value: 'false', label: 'Disabled' },
            ]}
          />
        </form>
        <ErrorNotice error={list.error} />
        {list.loading && !list.data ? <Loading /> : null}
        {list.data ? (
          list.nodes.length ? (
            <>
              <SubscriptionTable rows={list.nodes} />
              <MorePages hasNextPage={list.hasNextPage} loading={list.loadingMore} onMore={list.loadMore} />
            </>
          ) : (
            <Empty>No subscriptions match.</Empty>
          )
        ) : null}
      </section>
    </>
  );
}

function SubscriptionTable({ rows }: { rows: SubscriptionView[] }) {
  return (
    <table aria-label="Webhook subscriptions">
      <ColumnHeads names={['Target URL', 'Event kinds', 'State', 'Failures in a row', 'Description']} />
      <tbody>
        {rows.map((subscription) => (
          <tr key={subscription.id}>
            <td>
              <Link to={`/webhooks/${subscription.id}`}>{subscription.url}</Link>
            </td>
            <td>{subscription.eventKinds.join(', ')}</td>
            <td>
              <Badge value={subscription.enabled ? 'enabled' : 'disabled'} />
              {subscription.disabledReason ? <small className="muted"> {subscription.disabledReason}</small> : null}
            </td>
            <td>{subscription.consecutiveFailures}</td>
            <td>{subscription.description}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const emptyDraft: SubscriptionDraft = { url: '', eventKinds: [], description: '', labels: '', enabled: true };

function CreateSubscription({ onCreated }: { onCreated(): void }) {
  const [create, state] = useMutation(ConsoleCreateWebhookSubscriptionDocument);
  const [draft, setDraft] = useState(emptyDraft);
  const [formError, setFormError] = useState<unknown>(undefined);
  const [created, setCreated] = useState<{ id: string; url: string; secret: string | null } | null>(null);

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
    <section aria-labelledby="new-subscription" className="panel infra-panel">
      <h2 id="new-subscription">New subscription</h2>
      {created ? (
        <>
          {created.secret ? <SecretOnce secret={created.secret} what={`Subscription to ${created.url} created.`} /> : null}
          <p>
            <Link to={`/webhooks/${created.id}`}>Open the new subscription</Link>
          </p>
        </>
      ) : null}
      <form onSubmit={submit} aria-label="New subscription">
        <SubscriptionFields draft={draft} onChange={setDraft} />
        <ErrorNotice error={formError ?? state.error} title="Could not create the subscription" />
        <SubmitButton busy={state.loading} busyLabel="Creating…">
          Create subscription
        </SubmitButton>
      </form>
    </section>
  );
}
