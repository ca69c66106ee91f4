// The memories of the workspace: a text and label filter kept in the address (so a filtered list can be
// linked and survives a reload), newest first, page by page, and the form that makes a new memory.
import { ConsoleMemoriesDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { PagedTable } from '../../components/PagedTable';
import { Badge, Field, PageHeader, Time } from '../../components/ui';

import { parseLabelSelectors } from '../../lib/labels';
import { LabelList } from './LabelList';
import { CreateMemoryForm } from './CreateMemoryForm';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { useUrlFilters } from '../../lib/useUrlFilters';

export function MemoriesPage() {
  const { filter, applyFilters } = useUrlFilters();
  const q = filter('q');
  const labels = filter('labels');
  const [creating, setCreating] = useState(false);
  const list = usePagedQuery(
    ConsoleMemoriesDocument,
    { q: q || null, label: labels ? parseLabelSelectors(labels) : null, first: 50 },
    (data) => data.memories,
  );

  function applyFilter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    applyFilters({ q: String(form.get('q') ?? ''), labels: String(form.get('labels') ?? '') });
  }

  return (
    <>
      <PageHeader
        title="Memories"
        actions={
          <button type="button" aria-expanded={creating} onClick={() => setCreating((open) => !open)}>
            {creating ? 'Close the new memory form' : 'New memory'}
          </button>
        }
      >
        Collections of text records that agents recall and search.
      </PageHeader>
      {creating ? <CreateMemoryForm onCancel={() => setCreating(false)} /> : null}
      <form className="filters" role="search" aria-label="Filter memories" onSubmit={applyFilter} key={`${q}|${labels}`}>
        <Field label="Name or description contains" name="q" defaultValue={q} type="search" />
        <Field label="Labels" name="labels" defaultValue={labels} hint="key:value, all must match" />
        <button type="submit">Filter</button>
        {q || labels ? (
          <button type="button" className="secondary" onClick={() => applyFilters({})}>
            Clear
          </button>
        ) : null}
      </form>
      <PagedTable
        list={list}
        empty={q || labels ? 'No memory matches the filter.' : 'No memories yet.'}
        caption="Memories, newest first"
        columns={[
          { name: 'Name', cell: (memory) => <Link to={`/memories/${memory.id}`}>{memory.name}</Link> },
          { name: 'Description', cell: (memory) => memory.description || <span className="muted">—</span> },
          { name: 'Labels', cell: (memory) => <LabelList labels={memory.labelList} /> },
          {
            name: 'Embedding model',
            cell: (memory) =>
              memory.embeddingModel ? <code>{memory.embeddingModel}</code> : <span className="muted">none (lexical search)</span>,
          },
          { name: 'State', cell: (memory) => <Badge value={memory.enabled ? 'enabled' : 'disabled'} /> },
          { name: 'Updated', cell: (memory) => <Time value={memory.updatedAt} /> },
        ]}
      />
    </>
  );
}
