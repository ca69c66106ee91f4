// Every push subscription the service keeps for the signed-in principal (pushSubscriptions): this
// browser's and those of other browsers or earlier visits, which stay until a push service reports
// them gone. Any of them can be removed here; removing this browser's turns notifications off in it.
import { ConsoleDeletePushSubscriptionDocument, ConsolePushSubscriptionsDocument } from '../../../generated/graphql';
import { useEffect } from 'react';
import { useMutation, useQuery } from '../../api';
import { ColumnHeads, Empty, ErrorNotice, Loading, Time } from '../../components/ui';
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
        <table aria-label="Your push subscriptions">
          <ColumnHeads names={['Subscription', 'Push service', 'Subscribed', 'Last active', 'Expires', 'Actions']} />
          <tbody>
            {subscriptions.map((subscription) => (
              <tr key={subscription.id}>
                <td>
                  <code>{subscription.id}</code>
                  {subscription.id === currentId ? <strong> (this browser)</strong> : null}
                </td>
                <td>
                  <code>{pushServiceOf(subscription.endpoint)}</code>
                </td>
                <td>
                  <Time value={subscription.createdAt} />
                </td>
                <td>{subscription.lastActiveAt ? <Time value={subscription.lastActiveAt} /> : <span className="muted">never</span>}</td>
                <td>
                  {subscription.expirationTime ? <Time value={subscription.expirationTime} /> : <span className="muted">no expiry</span>}
                </td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Remove subscription ${subscription.id}`}
                    disabled={removing.loading}
                    onClick={() => void removeOne(subscription)}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
