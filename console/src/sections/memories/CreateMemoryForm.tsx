// Making a memory: its name, description and labels, the memory provider that keeps its records (the
// built-in one unless the workspace has others) and, optionally, the model that embeds its records for
// vector search. The choices are the ones the API offers this workspace; the service has the last word.
import { ConsoleCreateMemoryDocument, ConsoleMemoryChoicesDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useMutation, useQuery } from '../../api';
import { Select } from '../../components/ui';
import { type MemoryInput } from './documents';
import { AcceptsWritesBox, MemoryFormPanel } from './MemoryFormParts';
import { EmbeddingModelSelect } from './EmbeddingModelSelect';

export function CreateMemoryForm({ onCancel }: { onCancel(): void }) {
  const navigate = useNavigate();
  const choices = useQuery(ConsoleMemoryChoicesDocument, {});
  const [create, state] = useMutation(ConsoleCreateMemoryDocument);
  const [providerId, setProviderId] = useState('');
  const [embeddingModel, setEmbeddingModel] = useState('');

  const providers = choices.data?.providers.nodes ?? [];
  const chosenType = providers.find((provider) => provider.id === providerId)?.type ?? 'builtin';

  return (
    <MemoryFormPanel
      title="New memory"
      choicesError={choices.error}
      choicesErrorTitle="Could not load the providers and models"
      state={state}
      errorTitle="Could not create the memory"
      busyLabel="Creating…"
      submitLabel="Create memory"
      onCancel={onCancel}
      onSubmit={async (fields) => {
        const input: MemoryInput = {
          ...fields,
          ...(providerId ? { providerId } : {}),
          ...(embeddingModel ? { embeddingModel } : {}),
        };
        const data = await create({ input });
        if (data) navigate(`/memories/${data.createMemory.memory.id}`);
      }}
    >
      <Select
        label="Memory provider"
        value={providerId}
        onValue={setProviderId}
        options={[
          { value: '', label: 'Built-in (this service’s database; the default)' },
          ...providers.map((provider) => ({
            value: provider.id,
            label: `${provider.name} (${choices.data?.memoryTypes.find((type) => type.type === provider.type)?.title ?? provider.type})${provider.enabled ? '' : ' — disabled'}`,
          })),
        ]}
      />
      <EmbeddingModelSelect value={embeddingModel} onChange={setEmbeddingModel} choices={choices.data} providerType={chosenType} />
      <AcceptsWritesBox id="new-memory-enabled" defaultChecked />
    </MemoryFormPanel>
  );
}
