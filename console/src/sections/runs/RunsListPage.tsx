// The workspace's runs, newest first, filtered by status, agent, thread and creation time. The filters
// live in the URL query (`/runs?status=waiting&agent=agt_…`), so a filtered list can be linked to and
// survives a reload; "Load more" pages through the rest.
import { ConsoleAgentChoicesDocument, ConsoleRunsDocument, type ConsoleRunsQuery } from '../../../generated/graphql';
import { Link } from 'react-router';
import { useQuery } from '../../api';
import { Badge, ErrorNotice, Field, PageHeader, RefreshButton, Select, Time } from '../../components/ui';
import { PagedTable, type Column } from '../../components/PagedTable';
import { usePagedQuery, type Connection } from '../../lib/usePagedQuery';
import { useUrlFilters } from '../../lib/useUrlFilters';
import { RUN_STATUSES, type RunFilters, type RunStatus, type RunSummary } from './documents';

const PAGE_SIZE = 25;

/** The filters the URL query holds; statuses as repeated `status` or a comma list. */
function filtersOf(params: URLSearchParams): RunFilters {
  const status = params
    .getAll('status')
    .flatMap((value) => value.split(','))
    .filter((value): value is RunStatus => (RUN_STATUSES as string[]).includes(value));
  const time = (value: string | null) => {
    if (!value) return undefined;
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
  };
  return {
    ...(status.length ? { status } : {}),
    ...(params.get('agent') ? { agentId: params.get('agent')! } : {}),
    ...(params.get('thread') ? { threadId: params.get('thread')! } : {}),
    ...(time(params.get('after')) ? { createdAfter: time(params.get('after')) } : {}),
    ...(time(params.get('before')) ? { createdBefore: time(params.get('before')) } : {}),
  };
}

function StatusFilter({ selected, onChange }: { selected: RunStatus[]; onChange(statuses: RunStatus[]): void }) {
  return (
    <fieldset className="runs-status-filter">
      <legend>Status</legend>
      {RUN_STATUSES.map((status) => (
        <label key={status}>
          <input
            type="checkbox"
            checked={selected.includes(status)}
            onChange={(event) => onChange(event.target.checked ? [...selected, status] : selected.filter((value) => value !== status))}
          />{' '}
          {status}
        </label>
      ))}
    </fieldset>
  );
}

/** The first page (as a query, asked again when the filters change) and the pages loaded after it. */
/** The connection's rows: runs come as edges. */
function runsOf(data: ConsoleRunsQuery): Connection<RunSummary> {
  return { nodes: data.runs.edges.map((edge) => edge.node), pageInfo: data.runs.pageInfo };
}

const RUN_COLUMNS: Column<RunSummary>[] = [
  { name: 'Run', cell: (run) => <Link to={`/runs/${run.id}`}>{run.id}</Link> },
  {
    name: 'Status',
    cell: (run) => (
      <>
        <Badge value={run.status} />
        {run.status === 'waiting' && run.resumedById ? (
          <span className="muted"> resumed</span>
        ) : run.status === 'waiting' && run.waitReason ? (
          <span className="muted"> for {run.waitReason.replace(/_/g, ' ')}</span>
        ) : null}
      </>
    ),
  },
  { name: 'Agent', cell: (run) => run.agent.name },
  {
    name: 'Thread',
    cell: (run) => (
      <Link to={`/runs?thread=${encodeURIComponent(run.threadId)}`} aria-label={`Runs of thread ${run.threadId}`}>
        {run.threadId}
      </Link>
    ),
  },
  {
    name: 'Started by',
    cell: (run) => (
      <>
        {run.trigger}
        {run.lineage !== 'root' ? <span className="muted"> ({run.lineage})</span> : null}
      </>
    ),
  },
  { name: 'Created', cell: (run) => <Time value={run.createdAt} /> },
];

export function RunsListPage() {
  const { params, filter, setFilter: set } = useUrlFilters();
  const filters = filtersOf(params);
  const agents = useQuery(ConsoleAgentChoicesDocument, {});
  const list = usePagedQuery(ConsoleRunsDocument, { ...filters, first: PAGE_SIZE }, runsOf);
  return (
    <>
      <PageHeader
        title="Runs"
        actions={
          <>
            <RefreshButton onRefresh={list.refetch} />
            <Link className="button" to={filters.agentId ? `/runs/new?agent=${encodeURIComponent(filters.agentId)}` : '/runs/new'}>
              Start a run
            </Link>
          </>
        }
      >
        Every run of the workspace, newest first.
      </PageHeader>
      <form className="filters" aria-label="Filter runs" onSubmit={(event) => event.preventDefault()}>
        <StatusFilter selected={filters.status ?? []} onChange={(statuses) => set('status', statuses)} />
        <Select
          label="Agent"
          value={filters.agentId ?? ''}
          onChange={(event) => set('agent', event.target.value)}
          options={[
            { value: '', label: 'Any agent' },
            ...(agents.data?.agents.nodes.map((agent) => ({ value: agent.id, label: agent.name })) ?? []),
            // An agent named in the URL that the list does not hold (archived) stays selectable.
            ...(filters.agentId && !agents.data?.agents.nodes.some((agent) => agent.id === filters.agentId)
              ? [{ value: filters.agentId, label: filters.agentId }]
              : []),
          ]}
        />
        <Field label="Thread" placeholder="thr_…" value={filter('thread')} onChange={(event) => set('thread', event.target.value.trim())} />
        <Field label="Created after" type="datetime-local" value={filter('after')} onChange={(event) => set('after', event.target.value)} />
        <Field
          label="Created before"
          type="datetime-local"
          value={filter('before')}
          onChange={(event) => set('before', event.target.value)}
        />
      </form>
      <ErrorNotice error={agents.error} title="Agents" />
      <PagedTable list={list} columns={RUN_COLUMNS} empty="No runs match." label="Runs, newest first" />
    </>
  );
}
