// The agents of the workspace: a text search, open or archived, a label selector, and pages of rows.
// The filters live in the address (?q=&archived=&label=), so a filtered list can be shared and reloaded.
import { ConsoleAgentsDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Badge, ColumnHeads, Empty, ErrorNotice, Field, Loading, MorePages, PageHeader, Select, Time } from '../../components/ui';
import { type AgentListVariables } from './documents';
import { parseLabelSelectors } from '../../lib/labels';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { useUrlFilters } from '../../lib/useUrlFilters';

const PAGE_SIZE = 25;

export function AgentsListPage() {
  const { params, filter, applyFilters } = useUrlFilters();
  const q = filter('q');
  const archived = filter('archived') === 'true';
  const label = filter('label');
  const variables: AgentListVariables = { first: PAGE_SIZE, archived };
  if (q) variables.q = q;
  const selector = parseLabelSelectors(label);
  if (selector.length) variables.label = selector;
  const list = usePagedQuery(ConsoleAgentsDocument, variables, (data) => data.agents);

  return (
    <>
      <PageHeader
        title="Agents"
        actions={
          <Link className="button" to="/agents/new">
            New agent
          </Link>
        }
      >
        Agents of this workspace, newest first.
      </PageHeader>
      <Filters key={params.toString()} initial={{ q, archived, label }} onApply={applyFilters} />
      <ErrorNotice error={list.error} title="Could not list the agents" />
      {list.loading && !list.data ? <Loading label="Loading agents…" /> : null}
      {list.data && list.nodes.length === 0 ? (
        <Empty>{q || label || archived ? 'No agent matches these filters.' : 'No agents yet. Create one with “New agent”.'}</Empty>
      ) : null}
      {list.nodes.length > 0 ? (
        <table>
          <caption className="muted">{archived ? 'Archived agents' : 'Open agents'}</caption>
          <ColumnHeads names={['Name', 'Description', 'Default revision', 'Updated', 'State']} />
          <tbody>
            {list.nodes.map((agent) => (
              <tr key={agent.id}>
                <td>
                  <Link to={`/agents/${agent.id}`}>{agent.name}</Link>
                  {agent.source === 'builtin' ? <span className="muted"> (built-in)</span> : null}
                </td>
                <td>{agent.description || <span className="muted">—</span>}</td>
                <td>{agent.defaultRevision ? `#${agent.defaultRevision.number}` : <span className="muted">—</span>}</td>
                <td>
                  <Time value={agent.updatedAt} />
                </td>
                <td>{agent.archivedAt ? <Badge value="archived" /> : <span className="muted">open</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <MorePages hasNextPage={list.hasNextPage} loading={list.loadingMore} onMore={() => void list.loadMore()} />
    </>
  );
}

interface FilterValues {
  q: string;
  archived: boolean;
  label: string;
}

function Filters({ initial, onApply }: { initial: FilterValues; onApply(values: FilterValues): void }) {
  const [values, setValues] = useState(initial);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(values);
  };
  return (
    <form className="filters" role="search" aria-label="Filter agents" onSubmit={submit}>
      <Field
        label="Search"
        type="search"
        placeholder="name or description"
        value={values.q}
        onChange={(event) => setValues({ ...values, q: event.target.value })}
      />
      <Select
        label="Archived"
        value={values.archived ? 'true' : 'false'}
        onChange={(event) => setValues({ ...values, archived: event.target.value === 'true' })}
        options={[
          { value: 'false', label: 'Open agents' },
          { value: 'true', label: 'Archived agents' },
        ]}
      />
      <Field
        label="Labels"
        placeholder="team:core, tier:gold"
        hint="key:value, separated by commas; all must match"
        value={values.label}
        onChange={(event) => setValues({ ...values, label: event.target.value })}
      />
      <button type="submit">Apply filters</button>
    </form>
  );
}
