// The findings of the workspace, newest first, filtered by severity, category, agent and open or closed.
// The filter lives in the address, so a filtered list can be linked, reloaded and gone back to.
import { ConsoleFindingsDocument } from '../../../generated/graphql';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { PagedTable } from '../../components/PagedTable';
import { ErrorNotice, Field, PageHeader, Select, Time } from '../../components/ui';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { useUrlFilters } from '../../lib/useUrlFilters';
import { KNOWN_CATEGORIES, SEVERITIES } from './documents';
import { AgentLink, useAgentNames } from './agents';
import { FINDING_COLUMNS } from './columns';

const FILTER_NAMES = ['severity', 'category', 'agent', 'state'] as const;

export function FindingsPage() {
  const { params, filter, applyFilters } = useUrlFilters();
  const severity = filter('severity');
  const category = filter('category');
  const agent = filter('agent');
  const state = filter('state');
  const { agents, nameOf, error: agentsError } = useAgentNames();
  const list = usePagedQuery(
    ConsoleFindingsDocument,
    {
      severity: severity || null,
      category: category || null,
      agentId: agent || null,
      closed: state === 'closed' ? true : state === 'open' ? false : null,
      first: 50,
    },
    (data) => data.findings,
  );
  const filtered = FILTER_NAMES.some((name) => params.get(name));

  function applyFilter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    applyFilters(Object.fromEntries(FILTER_NAMES.map((name) => [name, String(form.get(name) ?? '')])));
  }

  return (
    <>
      <PageHeader
        title="Findings"
        actions={
          <Link className="button" to="/findings/analyses">
            Analyses
          </Link>
        }
      >
        Problems of agents that analyses of their runs’ traces found, with the evidence and a reviewer’s assessment.
      </PageHeader>
      <form
        className="filters"
        role="search"
        aria-label="Filter findings"
        onSubmit={applyFilter}
        key={`${params.toString()}|${agents.length}`}
      >
        <Select
          label="Severity"
          name="severity"
          defaultValue={severity}
          options={[{ value: '', label: 'Any' }, ...SEVERITIES.map((value) => ({ value, label: value }))]}
        />
        <Field label="Category" name="category" defaultValue={category} list="finding-categories" />
        <datalist id="finding-categories">
          {KNOWN_CATEGORIES.map((value) => (
            <option key={value} value={value} />
          ))}
        </datalist>
        <Select
          label="Agent"
          name="agent"
          defaultValue={agent}
          options={[
            { value: '', label: 'Any' },
            ...(agent && !agents.some((choice) => choice.id === agent) ? [{ value: agent, label: agent }] : []),
            ...agents.map((choice) => ({ value: choice.id, label: choice.name })),
          ]}
        />
        <Select
          label="State"
          name="state"
          defaultValue={state}
          options={[
            { value: '', label: 'Open and closed' },
            { value: 'open', label: 'Open' },
            { value: 'closed', label: 'Closed' },
          ]}
        />
        <button type="submit">Filter</button>
        {filtered ? (
          <button type="button" className="secondary" onClick={() => applyFilters({})}>
            Clear
          </button>
        ) : null}
      </form>
      <ErrorNotice error={agentsError} title="Could not load the agents" />
      <PagedTable
        list={list}
        empty={filtered ? 'No finding matches the filter.' : 'No findings yet: start an analysis.'}
        caption="Findings, newest first"
        columns={[
          FINDING_COLUMNS.title,
          FINDING_COLUMNS.severity,
          FINDING_COLUMNS.category,
          { name: 'Agent', cell: (finding) => <AgentLink id={finding.agentId} name={nameOf(finding.agentId)} /> },
          FINDING_COLUMNS.assessment,
          FINDING_COLUMNS.state,
          { name: 'Updated', cell: (finding) => <Time value={finding.updatedAt} /> },
        ]}
      />
    </>
  );
}
