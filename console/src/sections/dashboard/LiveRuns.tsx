// The runs of the workspace that are live right now (accepted, running or waiting), kept current by the
// runsChanged subscription: the list is read once, then every run the service announces as accepted
// or changed joins, moves or leaves it. Nothing polls. A newer version of a run always wins, whichever
// of the list and the subscription brought it first.
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useQuery, useSubscription } from '../../api';
import { ConsoleLiveRunsDocument, ConsoleRunsChangedDocument, type LiveRunFragment } from '../../../generated/graphql';
import { Badge, Empty, ErrorNotice, Loading, Time } from '../../components/ui';
import { ColumnTable, type Column } from '../../components/PagedTable';

const LIVE = new Set(['accepted', 'running', 'waiting']);

const COLUMNS: Column<LiveRunFragment>[] = [
  { name: 'Run', cell: (run) => <Link to={`/runs/${run.id}`}>{run.id}</Link> },
  { name: 'Agent', cell: (run) => <Link to={`/agents/${run.agent.id}`}>{run.agent.name}</Link> },
  { name: 'Status', cell: (run) => <Badge value={run.waitReason ? `${run.status}: ${run.waitReason}` : run.status} /> },
  { name: 'Started', cell: (run) => <Time value={run.createdAt} /> },
];

export function LiveRuns() {
  const { data, error, loading } = useQuery(ConsoleLiveRunsDocument, {});
  // What the subscription said about each run since the page opened (the newest version of each).
  const [heard, setHeard] = useState<Map<string, LiveRunFragment>>(new Map());
  const { error: followError } = useSubscription(ConsoleRunsChangedDocument, {}, ({ runsChanged: run }) =>
    setHeard((previous) => {
      const known = previous.get(run.id);
      if (known && known.version >= run.version) return previous;
      return new Map(previous).set(run.id, run);
    }),
  );
  const live = useMemo(() => {
    const runs = new Map<string, LiveRunFragment>();
    for (const run of data?.runs.nodes ?? []) runs.set(run.id, run);
    for (const run of heard.values()) {
      const listed = runs.get(run.id);
      if (!listed || listed.version < run.version) runs.set(run.id, run);
    }
    return [...runs.values()].filter((run) => LIVE.has(run.status)).sort((a, b) => (a.id < b.id ? 1 : -1));
  }, [data, heard]);
  const counts = ['accepted', 'running', 'waiting'].map((status) => [status, live.filter((run) => run.status === status).length] as const);
  return (
    <section className="panel" aria-labelledby="live-runs-heading">
      <h2 id="live-runs-heading">Live runs right now</h2>
      <ErrorNotice error={error ?? followError} title="Could not follow the live runs" />
      {loading && !data ? <Loading label="Loading the live runs…" /> : null}
      {data ? (
        <>
          <p className="live-counts" aria-live="polite">
            {counts.map(([status, count]) => (
              <span key={status} data-status={status}>
                {status}: <strong>{count}</strong>{' '}
              </span>
            ))}
          </p>
          {live.length === 0 ? (
            <Empty>No run is live right now.</Empty>
          ) : (
            <ColumnTable rows={live.slice(0, 20)} columns={COLUMNS} label="Live runs" />
          )}
          {live.length > 20 || data.runs.pageInfo.hasNextPage ? (
            <Link to="/runs?status=accepted&status=running&status=waiting">All live runs</Link>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
