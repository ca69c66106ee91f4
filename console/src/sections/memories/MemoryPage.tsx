// One memory: what it is (and its edit form), its records page by page with the forms that add and
// replace them, and search over them with the scores the service gives.
import { useState } from 'react';
import { useParams } from 'react-router';
import { useQuery } from '../../api';
import { Badge, ErrorNotice, Loading, PageHeader, Status, Time } from '../../components/ui';
import { MEMORY } from './documents';
import { LabelList } from './LabelList';
import { EditMemoryForm } from './EditMemoryForm';
import { MemoryRecords } from './MemoryRecords';
import { MemorySearch } from './MemorySearch';

export function MemoryPage() {
  const { memoryId = '' } = useParams();
  const memory = useQuery(MEMORY, { id: memoryId }, { skip: !memoryId });
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const data = memory.data?.memory;

  return (
    <>
      <PageHeader
        title={data ? `Memory: ${data.name}` : 'Memory'}
        actions={
          data ? (
            <button
              type="button"
              aria-expanded={editing}
              onClick={() => {
                setEditing((open) => !open);
                setSaved(false);
              }}
            >
              {editing ? 'Close the edit form' : 'Edit memory'}
            </button>
          ) : null
        }
      >
        {data?.description}
      </PageHeader>
      <ErrorNotice error={memory.error} />
      {memory.loading && !data ? <Loading /> : null}
      {saved ? <Status>Memory saved (version {data?.version}).</Status> : null}
      {data ? (
        <>
          {editing ? (
            <EditMemoryForm
              memory={data}
              onCancel={() => setEditing(false)}
              onSaved={() => {
                setEditing(false);
                setSaved(true);
                void memory.refetch();
              }}
            />
          ) : null}
          <section aria-labelledby="memory-details-heading">
            <h2 id="memory-details-heading">Details</h2>
            <dl className="facts">
              <dt>Id</dt>
              <dd>
                <code>{data.id}</code>
              </dd>
              <dt>State</dt>
              <dd>
                <Badge value={data.enabled ? 'enabled' : 'disabled'} />{' '}
                {data.enabled ? null : <span className="muted">(writes are refused)</span>}
              </dd>
              <dt>Memory provider</dt>
              <dd>
                <code>{data.providerId}</code>
              </dd>
              <dt>Embedding model</dt>
              <dd>
                {data.embeddingModel ? <code>{data.embeddingModel}</code> : <span className="muted">none: search is lexical only</span>}
              </dd>
              <dt>Labels</dt>
              <dd>
                <LabelList labels={data.labelList} />
              </dd>
              <dt>Version</dt>
              <dd>{data.version}</dd>
              <dt>Created</dt>
              <dd>
                <Time value={data.createdAt} /> by <code>{data.createdById}</code>
              </dd>
              <dt>Updated</dt>
              <dd>
                <Time value={data.updatedAt} /> by <code>{data.updatedById}</code>
              </dd>
            </dl>
          </section>
          <MemorySearch memoryId={data.id} />
          <MemoryRecords memoryId={data.id} />
        </>
      ) : null}
    </>
  );
}
