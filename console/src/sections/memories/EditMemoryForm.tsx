// Changing a memory: name, description, labels, whether it takes writes, and its embedding model. The
// change carries the version the page showed (If-Match): when someone changed the memory since, the
// service refuses it and the page says so instead of overwriting their change.
import { ConsoleMemoryChoicesDocument, ConsoleUpdateMemoryDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { useMutation, useQuery } from '../../api';
import { type MemoryDetail } from './documents';
import { AcceptsWritesBox, MemoryFormPanel } from './MemoryFormParts';
import { EmbeddingModelSelect } from './EmbeddingModelSelect';

/** `onSaved` gets the memory as the service answered the change. */
export function EditMemoryForm({
  memory,
  onSaved,
  onCancel,
}: {
  memory: MemoryDetail;
  onSaved(saved: MemoryDetail): void;
  onCancel(): void;
}) {
  const choices = useQuery(ConsoleMemoryChoicesDocument, {});
  const [update, state] = useMutation(ConsoleUpdateMemoryDocument);
  const [embeddingModel, setEmbeddingModel] = useState(memory.embeddingModel ?? '');
  const providerType = choices.data?.providers.nodes.find((provider) => provider.id === memory.providerId)?.type;

  return (
    <MemoryFormPanel
      title="Edit memory"
      memory={memory}
      choicesError={choices.error}
      choicesErrorTitle="Could not load the models"
      state={state}
      errorTitle="Could not save the memory"
      busyLabel="Saving…"
      submitLabel="Save memory"
      onCancel={onCancel}
      onSubmit={async (fields) => {
        const data = await update({ id: memory.id, ifMatch: memory.etag, input: { ...fields, embeddingModel: embeddingModel || null } });
        if (data) onSaved(data.updateMemory.memory);
      }}
    >
      <EmbeddingModelSelect value={embeddingModel} onChange={setEmbeddingModel} choices={choices.data} providerType={providerType} />
      <AcceptsWritesBox id="edit-memory-enabled" defaultChecked={memory.enabled} />
      <p className="muted">Changing the embedding model does not embed the existing records again.</p>
    </MemoryFormPanel>
  );
}
