// Every push subscription the service keeps for the signed-in principal (pushSubscriptions): this
// browser's and those of other browsers or earlier visits, which stay until a push service reports
// them gone. Any of them can be removed here; removing this browser's turns notifications off in it.
import { ConsoleDeletePushSubscriptionDocument, ConsolePushSubscriptionsDocument } from '../../../generated/graphql';
import { useEffect } from 'react';
import { useMutation, useQuery } from '../../api';
import { Empty, ErrorNotice, Loading, Time } from '../../components/ui';
import { ColumnTable } from '../../components/PagedTable';
import { type ServicePushSubscription } from './queries';

/** The push service's host: the endpoint's path is a capability, not something to show. */
function pushServiceOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
}

export function ServiceSubscriptions({
  currentId,
  onRemovedCurrent,
}: {
  /** This browser's subscription, if it has one. */
  currentId: string | null;
  onRemovedCurrent(): Promise<void>;
}) {
  const list = useQuery(ConsolePushSubscriptionsDocument, {});
  const [remove, removing, reset] = useMutation(ConsoleDeletePushSubscriptionDocument);
  const { refetch } = list;
  // This browser subscribed or unsubscribed: the list changed on the service.
  useEffect(() => {
    void refetch();
  }, [currentId, refetch]);

  async function removeOne(subscription: ServicePushSubscription) {
    reset();
    if (!(await remove({ id: subscription.id }))) return;
    if (subscription.id === currentId) await onRemovedCurrent();
    await refetch();
  }

  const subscriptions = list.data?.pushSubscriptions;
  return (
    <section aria-labelledby="push-all-subscriptions">
      <h2 id="push-all-subscriptions">Your subscriptions on the service</h2>
      <p className="muted">
        Every browser you turned notifications on in gets its own subscription. Remove the ones of browsers you no longer use.
      </p>
      <ErrorNotice error={list.error} />
      <ErrorNotice error={removing.error} title="Could not remove the subscription" />
      {list.loading && !subscriptions ? <Loading label="Loading your subscriptions…" /> : null}
      {subscriptions && subscriptions.length === 0 ? <Empty>The service keeps no subscription for you.</Empty> : null}
      {subscriptions && subscriptions.length > 0 ? (
        <ColumnTable
          label="Your push subscriptions"
          rows={subscriptions}
          columns={[
            {
              name: 'Subscription',
              cell: (subscription) => (
                <>
                  <code>{subscription.id}</code>
                  {subscription.id === currentId ? <strong> (this browser)</strong> : null}
                </>
              ),
            },
            { name: 'Push service', cell: (subscription) => <code>{pushServiceOf(subscription.endpoint)}</code> },
            { name: 'Subscribed', cell: (subscription) => <Time value={subscription.createdAt} /> },
            {
              name: 'Last active',
              cell: (subscription) =>
                subscription.lastActiveAt ? <Time value={subscription.lastActiveAt} /> : <span className="muted">never</span>,
            },
            {
              name: 'Expires',
              cell: (subscription) =>
                subscription.expirationTime ? <Time value={subscription.expirationTime} /> : <span className="muted">no expiry</span>,
            },
            {
              name: 'Actions',
              cell: (subscription) => (
                <button
                  type="button"
                  className="danger"
                  aria-label={`Remove subscription ${subscription.id}`}
                  disabled={removing.loading}
                  onClick={() => void removeOne(subscription)}
                >
                  Remove
                </button>
              ),
            },
          ]}
        />
      ) : null}
    </section>
  );
}
