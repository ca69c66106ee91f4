// The landing page: which workspace this is, who is acting, the runs waiting for someone (an
// approval, a client tool result or an answer), newest first, each a link to where it is answered, and
// the dashboard: live runs and charts over a time range. The dashboard (and its charting library) is
// its own chunk, loaded after the frame, so signing in does not wait for it.
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { useQuery } from '../api';
import { ConsoleOverviewDocument, type ConsoleOverviewQuery } from '../../generated/graphql';
import { Badge, Empty, ErrorNotice, Loading, PageHeader, Time } from '../components/ui';
import { ColumnTable, type Column } from '../components/PagedTable';

/** How many runs a list page holds, with a `+` when there are more. */
const count = (list: ConsoleOverviewQuery['active']) => (list.pageInfo.hasNextPage ? `${list.edges.length}+` : String(list.edges.length));

const Dashboard = lazy(async () => ({ default: (await import('../sections/dashboard')).Dashboard }));

type WaitingRun = ConsoleOverviewQuery['waiting']['edges'][number]['node'];

const WAITING_COLUMNS: Column<WaitingRun>[] = [
  { name: 'Run', cell: (run) => <Link to={`/runs/${run.id}`}>{run.id}</Link> },
  { name: 'Agent', cell: (run) => <Link to={`/agents/${run.agent.id}`}>{run.agent.name}</Link> },
  { name: 'Waiting for', cell: (run) => (run.waitReason ? <Badge value={run.waitReason} /> : null) },
  { name: 'Started', cell: (run) => <Time value={run.createdAt} /> },
];

export function OverviewPage() {
  const { data, error, loading } = useQuery(ConsoleOverviewDocument, {});
  // A waiting run someone already answered has a successor; it is no longer waiting for anyone.
  const waiting = data?.waiting.edges.map((edge) => edge.node).filter((run) => !run.resumedById) ?? [];
  return (
    <>
      <PageHeader title={data?.workspace.name ?? 'Overview'}>{data?.workspace.description}</PageHeader>
      <ErrorNotice error={error} />
      {loading && !data ? <Loading /> : null}
      {data ? (
        <>
          <dl className="facts">
            <dt>Workspace</dt>
            <dd>
              <code>{data.workspace.id}</code>
            </dd>
            <dt>Signed in as</dt>
            <dd>
              <code>{data.viewer.principalId}</code> ({data.viewer.principalKind.replace(/_/g, ' ')}; {data.viewer.permissions.join(', ')})
            </dd>
            <dt>Runs accepted or running</dt>
            <dd>
              <Link to="/runs?status=accepted&status=running">{count(data.active)}</Link>
            </dd>
          </dl>
          <h2>Waiting for someone</h2>
          {waiting.length === 0 ? (
            <Empty>No run is waiting for an answer.</Empty>
          ) : (
            <ColumnTable rows={waiting} columns={WAITING_COLUMNS} label="Runs waiting for someone" />
          )}
          {data.waiting.pageInfo.hasNextPage ? <Link to="/runs?status=waiting">All waiting runs</Link> : null}
          <Suspense fallback={<Loading label="Loading the dashboard…" />}>
            <Dashboard />
          </Suspense>
        </>
      ) : null}
    </>
  );
}
