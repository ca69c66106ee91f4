// The deliveries of one subscription, newest first, filtered by status, kept current by the
// webhookDeliveryUpdated subscription: a delivery created, queued again or attempted arrives as it is
// then, and replaces what the list or the open details show of it (nothing is read again on a timer).
// A delivery's details (the request's event and every attempt's answer) open below the list, with the
// redeliver action.
import {
  ConsoleRedeliverWebhookDeliveryDocument,
  ConsoleWebhookDeliveriesDocument,
  ConsoleWebhookDeliveryDocument,
  ConsoleWebhookDeliveryUpdatedDocument,
  type ConsoleWebhookDeliveryUpdatedSubscription,
} from '../../../generated/graphql';
import { useCallback, useEffect, useState } from 'react';
import { useMutation, useQuery, useSubscription } from '../../api';
import { Badge, ColumnHeads, Empty, ErrorNotice, Loading, MorePages, RefreshButton, Select, Status, Time } from '../../components/ui';
import { Facts } from '../../components/Facts';
import { ColumnTable } from '../../components/PagedTable';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { useUrlFilters } from '../../lib/useUrlFilters';
import { type DeliveryView, type DeliveryWithAttempts } from './queries';

const PAGE = 50;
const STATUSES = ['pending', 'succeeded', 'failed'];

export function Deliveries({ subscriptionId, url, reloadKey }: { subscriptionId: string; url: string; reloadKey: number }) {
  // The open delivery is kept in the address like the filter, so a link can point at it.
  const { filter, setFilter: setParam } = useUrlFilters();
  const status = filter('status');
  const selected = filter('delivery');
  const list = usePagedQuery(
    ConsoleWebhookDeliveriesDocument,
    { subscriptionId, first: PAGE, ...(status ? { status } : {}) },
    (data) => data.webhookDeliveries,
  );
  // The page bumps reloadKey after an action that adds a delivery (a test event).
  const { refetch } = list;
  useEffect(() => {
    if (reloadKey) void refetch();
  }, [reloadKey, refetch]);
  // The latest state the service sent of each delivery: it is never older than the list's (every
  // change after the list was read is sent), so it wins.
  const [live, setLive] = useState<Record<string, DeliveryWithAttempts>>({});
  const accept = useCallback(
    (data: ConsoleWebhookDeliveryUpdatedSubscription) =>
      setLive((previous) => ({ ...previous, [data.webhookDeliveryUpdated.id]: data.webhookDeliveryUpdated })),
    [],
  );
  const following = useSubscription(ConsoleWebhookDeliveryUpdatedDocument, { subscriptionId }, accept);
  const rows = withLive(list.nodes, live, status, Boolean(list.data));

  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <form className="filters" role="search" aria-label="Filter deliveries" onSubmit={(event) => event.preventDefault()}>
        <Select
          label="Delivery status"
          value={status}
          onChange={(event) => setParam('status', event.target.value)}
          options={[{ value: '', label: 'Any' }, ...STATUSES.map((value) => ({ value, label: value }))]}
        />
        <RefreshButton onRefresh={list.refetch} busy={list.loading} />
      </form>
      <ErrorNotice error={list.error} />
      <ErrorNotice error={following.error} title="Live updates stopped (Refresh reads the list again)" />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data ? (
        rows.length ? (
          <>
            <DeliveryTable rows={rows} onOpen={(id) => setParam('delivery', id)} />
            <MorePages hasNextPage={list.hasNextPage} loading={list.loadingMore} onMore={list.loadMore} />
          </>
        ) : (
          <Empty>No deliveries{status ? ` are ${status}` : ''}.</Empty>
        )
      ) : null}
      {selected ? (
        <DeliveryDetails
          key={selected}
          id={selected}
          subscriptionId={subscriptionId}
          url={url}
          live={live[selected]}
          onClose={() => setParam('delivery', null)}
          onRedelivered={() => void list.refetch()}
        />
      ) : null}
    </section>
  );
}

/**
 * The list's rows with the live states applied; deliveries newer than every listed one (created since
 * the list was read) go on top. Under a status filter, a row shows as the service last sent it even
 * when it no longer matches (Refresh reads the filtered list again), and new ones only when they match.
 */
function withLive(nodes: DeliveryView[], live: Record<string, DeliveryWithAttempts>, status: string, loaded: boolean): DeliveryView[] {
  if (!loaded) return nodes;
  const newest = nodes[0]?.id ?? '';
  const added = Object.values(live)
    .filter((delivery) => delivery.id > newest && (!status || delivery.status === status))
    .sort((a, b) => (a.id < b.id ? 1 : -1));
  return [...added, ...nodes.map((delivery) => live[delivery.id] ?? delivery)];
}

function DeliveryTable({ rows, onOpen }: { rows: DeliveryView[]; onOpen(id: string): void }) {
  return (
    <ColumnTable
      rows={rows}
      label="Deliveries"
      columns={[
        { name: 'Event kind', cell: (delivery) => delivery.eventKind },
        { name: 'Status', cell: (delivery) => <Badge value={delivery.status} /> },
        { name: 'Attempts', cell: (delivery) => delivery.attemptCount },
        { name: 'Last answer', cell: lastAnswer },
        { name: 'Created', cell: (delivery) => <Time value={delivery.createdAt} /> },
        {
          name: 'Details',
          hiddenName: true,
          cell: (delivery) => (
            <button
              type="button"
              className="secondary"
              onClick={() => onOpen(delivery.id)}
              aria-label={`Details of ${delivery.eventKind} delivery ${delivery.id}`}
            >
              Details
            </button>
          ),
        },
      ]}
    />
  );
}

function lastAnswer(delivery: DeliveryView): string {
  if (delivery.lastStatusCode !== null)
    return `HTTP ${delivery.lastStatusCode}${delivery.lastLatencyMs !== null ? ` in ${delivery.lastLatencyMs} ms` : ''}`;
  return delivery.lastError ?? '—';
}

function DeliveryDetails({
  id,
  subscriptionId,
  url,
  live,
  onClose,
  onRedelivered,
}: {
  id: string;
  subscriptionId: string;
  url: string;
  /** The state the service last sent of this delivery, if it sent one. */
  live: DeliveryWithAttempts | undefined;
  onClose(): void;
  onRedelivered(): void;
}) {
  const { data, error, loading, refetch } = useQuery(ConsoleWebhookDeliveryDocument, { id, subscriptionId });
  const [redeliver, redeliverState] = useMutation(ConsoleRedeliverWebhookDeliveryDocument);
  const [notice, setNotice] = useState('');
  const delivery = newer(live, data?.webhookDelivery);
  return (
    <section aria-labelledby="delivery-heading" className="panel infra-panel">
      <h3 id="delivery-heading">Delivery {id}</h3>
      <ErrorNotice error={error} />
      {loading && !data ? <Loading /> : null}
      {delivery ? (
        <>
          <p role="status" aria-live="polite" className="notice">
            Delivery status: <Badge value={delivery.status} />
            {delivery.nextAttemptAt ? (
              <span className="muted">
                {' '}
                — next attempt <Time value={delivery.nextAttemptAt} />
              </span>
            ) : null}
          </p>
          <h4>Request</h4>
          <Facts
            facts={[
              ['Event kind', delivery.eventKind],
              ['webhook-id', <code>{delivery.eventId}</code>],
              ['Sent to', <code>POST {url}</code>],
              ['Created', <Time value={delivery.createdAt} />],
              ['Completed', <Time value={delivery.completedAt} />],
              ['Attempts since (re)scheduled', delivery.attemptCount],
            ]}
          />
          <h4>Responses</h4>
          {delivery.attempts.length ? (
            <table aria-label="Attempts">
              <ColumnHeads names={['Attempt', 'At', 'HTTP status', 'Latency', 'Error', 'Response (first KiB)']} />
              <tbody>
                {delivery.attempts.map((attempt, index) => (
                  <tr key={`${attempt.at}-${index}`}>
                    <td>{attempt.attempt}</td>
                    <td>
                      <Time value={attempt.at} />
                    </td>
                    <td>{attempt.statusCode ?? 'no answer'}</td>
                    <td>{attempt.latencyMs} ms</td>
                    <td>{attempt.error ?? '—'}</td>
                    <td>{attempt.response ? <code>{attempt.response}</code> : <span className="muted">empty</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <Empty>No attempt yet.</Empty>
          )}
          {notice ? <Status>{notice}</Status> : null}
          <ErrorNotice error={redeliverState.error} title="Could not redeliver" />
          <div className="actions">
            <button
              type="button"
              disabled={redeliverState.loading || delivery.status === 'pending'}
              onClick={async () => {
                const answer = await redeliver({ id, subscriptionId });
                if (answer) {
                  setNotice('Redelivery queued: the same event (same webhook-id) is sent again.');
                  await refetch();
                  onRedelivered();
                }
              }}
            >
              Redeliver
            </button>
            <button type="button" className="secondary" onClick={onClose}>
              Close details
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}

/** Of two states of a delivery, the later one: attempts only accumulate, and a redelivery moves `updatedAt` on. */
function newer(a: DeliveryWithAttempts | undefined, b: DeliveryWithAttempts | undefined): DeliveryWithAttempts | undefined {
  if (!a || !b) return a ?? b;
  if (a.attempts.length !== b.attempts.length) return a.attempts.length > b.attempts.length ? a : b;
  return a.updatedAt >= b.updatedAt ? a : b;
}
