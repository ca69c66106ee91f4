// Making a memory: its name, description and labels, the memory provider that keeps its records (the
// built-in one unless the workspace has others) and, optionally, the model that embeds its records for
// vector search. The choices are the ones the API offers this workspace; the service has the last word.
import { ConsoleCreateMemoryDocument, ConsoleMemoryChoicesDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useMutation, useQuery } from '../../api';
import { ErrorNotice, Field, Select, TextArea } from '../../components/ui';
import { type MemoryInput } from './documents';
import { AcceptsWritesBox, readMemoryFields, SubmitOrCancel } from './MemoryFormParts';
import { EmbeddingModelSelect } from './EmbeddingModelSelect';

export function CreateMemoryForm({ onCancel }: { onCancel(): void }) {
  const navigate = useNavigate();
  const choices = useQuery(ConsoleMemoryChoicesDocument, {});
  const [create, state] = useMutation(ConsoleCreateMemoryDocument);
  const [providerId, setProviderId] = useState('');
  const [embeddingModel, setEmbeddingModel] = useState('');
  const [labelsProblem, setLabelsProblem] = useState<string | undefined>();

  const providers = choices.data?.providers.nodes ?? [];
  const chosenType = providers.find((provider) => provider.id === providerId)?.type ?? 'builtin';

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const read = readMemoryFields(form);
    setLabelsProblem('error' in read ? read.error : undefined);
    if ('error' in read) return;
    const input: MemoryInput = {
      ...read.fields,
      ...(providerId ? { providerId } : {}),
      ...(embeddingModel ? { embeddingModel } : {}),
    };
    const data = await create({ input });
    if (data) navigate(`/memories/${data.createMemory.memory.id}`);
  }

  return (
    <section className="panel" aria-labelledby="new-memory-heading">
      <h2 id="new-memory-heading">New memory</h2>
      <form onSubmit={(event) => void submit(event)}>
        <Field label="Name" name="name" required autoFocus />
        <TextArea label="Description" name="description" rows={2} />
        <TextArea label="Labels" name="labels" rows={2} hint="One key=value a line" />
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
        <ErrorNotice error={choices.error} title="Could not load the providers and models" />
        <ErrorNotice error={labelsProblem ? new Error(labelsProblem) : state.error} title="Could not create the memory" />
        <SubmitOrCancel busy={state.loading} busyLabel="Creating…" onCancel={onCancel}>
          Create memory
        </SubmitOrCancel>
      </form>
    </section>
  );
}
