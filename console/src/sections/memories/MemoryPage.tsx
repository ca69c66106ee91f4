// One memory: what it is (and its edit form), its records page by page with the forms that add and
// replace them, and search over them with the scores the service gives.
import { ConsoleMemoryDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { useParams } from 'react-router';
import { DetailNotice, DetailPage, useDetailQuery } from '../../components/DetailPage';
import { ChangedBy, Facts } from '../../components/Facts';
import { Badge } from '../../components/ui';

import { LabelList } from './LabelList';
import { EditMemoryForm } from './EditMemoryForm';
import { MemoryRecords } from './MemoryRecords';
import { MemorySearch } from './MemorySearch';

export function MemoryPage() {
  const { memoryId = '' } = useParams();
  const detail = useDetailQuery(ConsoleMemoryDocument, { id: memoryId }, (data) => data.memory, { skip: !memoryId });
  const [editing, setEditing] = useState(false);
  const memory = detail.item;

  return (
    <DetailPage
      detail={detail}
      title={memory ? `Memory: ${memory.name}` : 'Memory'}
      description={memory?.description}
      actions={() => (
        <button
          type="button"
          aria-expanded={editing}
          onClick={() => {
            setEditing((open) => !open);
            detail.setNotice('');
          }}
        >
          {editing ? 'Close the edit form' : 'Edit memory'}
        </button>
      )}
    >
      {(memory) => (
        <>
          <DetailNotice detail={detail} />
          {editing ? (
            <EditMemoryForm
              memory={memory}
              onCancel={() => setEditing(false)}
              onSaved={(saved) => {
                setEditing(false);
                void detail.saved(`Memory saved (version ${saved.version}).`);
              }}
            />
          ) : null}
          <section aria-labelledby="memory-details-heading">
            <h2 id="memory-details-heading">Details</h2>
            <Facts
              facts={[
                ['Id', <code>{memory.id}</code>],
                [
                  'State',
                  <>
                    <Badge value={memory.enabled ? 'enabled' : 'disabled'} />{' '}
                    {memory.enabled ? null : <span className="muted">(writes are refused)</span>}
                  </>,
                ],
                ['Memory provider', <code>{memory.providerId}</code>],
                [
                  'Embedding model',
                  memory.embeddingModel ? (
                    <code>{memory.embeddingModel}</code>
                  ) : (
                    <span className="muted">none: search is lexical only</span>
                  ),
                ],
                ['Labels', <LabelList labels={memory.labelList} />],
                ['Version', memory.version],
                ['Created', <ChangedBy at={memory.createdAt} by={memory.createdById} />],
                ['Updated', <ChangedBy at={memory.updatedAt} by={memory.updatedById} />],
              ]}
            />
          </section>
          <MemorySearch memoryId={memory.id} />
          <MemoryRecords memoryId={memory.id} />
        </>
      )}
    </DetailPage>
  );
}
