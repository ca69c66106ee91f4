// Where a run comes from: the runs before it across resumes (each waiting run and its successor) and
// forks (the run a forked thread started from), nearest first, each a link.
import { ConsoleRunLineageDocument } from '../../../generated/graphql';
import { Link } from 'react-router';
import { useQuery } from '../../api';
import { useRefetchOnChange } from '../../lib/useRefetchOnChange';
import { Badge, ErrorNotice, Loading, Time } from '../../components/ui';

const HOW: Record<string, string> = {
  root: 'started',
  resume: 'resumed from the run below',
  fork: 'forked from the run below',
  subagent: 'started as a subagent',
};

export function RunLineage({ runId, status }: { runId: string; status: string }) {
  const { data, error, loading, refetch } = useQuery(ConsoleRunLineageDocument, { runId });
  // Asked again when the run's status moves, so the statuses listed do not lag behind the page.
  useRefetchOnChange(status, refetch);
  const runs = data?.runLineage.nodes ?? [];
  return (
    <section className="panel" aria-labelledby="lineage-heading">
      <h2 id="lineage-heading">Lineage</h2>
      <ErrorNotice error={error} />
      {loading && !data ? <Loading /> : null}
      {runs.length ? (
        <ol className="runs-lineage" aria-label="Lineage, nearest first">
          {runs.map((run) => (
            <li key={run.id} aria-current={run.id === runId ? 'page' : undefined}>
              {run.id === runId ? <strong>{run.id} (this run)</strong> : <Link to={`/runs/${run.id}`}>{run.id}</Link>}{' '}
              <Badge value={run.status} /> <span className="muted">{HOW[run.lineage] ?? run.lineage}</span> · <Time value={run.createdAt} />
            </li>
          ))}
        </ol>
      ) : null}
      {data?.runLineage.pageInfo.hasNextPage ? <p className="muted">Older runs are not shown.</p> : null}
    </section>
  );
}
