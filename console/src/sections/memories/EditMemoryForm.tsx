// Changing a memory: name, description, labels, whether it takes writes, and its embedding model. The
// change carries the version the page showed (If-Match): when someone changed the memory since, the
// service refuses it and the page says so instead of overwriting their change.
import { ConsoleMemoryChoicesDocument, ConsoleUpdateMemoryDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '../../api';
import { ErrorNotice, Field, TextArea } from '../../components/ui';
import { type MemoryDetail } from './documents';
import { formatLabels } from '../../lib/labels';
import { AcceptsWritesBox, readMemoryFields, SubmitOrCancel } from './MemoryFormParts';
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
  const [labelsProblem, setLabelsProblem] = useState<string | undefined>();
  const providerType = choices.data?.providers.nodes.find((provider) => provider.id === memory.providerId)?.type;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const read = readMemoryFields(form);
    setLabelsProblem('error' in read ? read.error : undefined);
    if ('error' in read) return;
    const data = await update({
      id: memory.id,
      ifMatch: memory.etag,
      input: {
        ...read.fields,
        embeddingModel: embeddingModel || null,
      },
    });
    if (data) onSaved(data.updateMemory.memory);
  }

  return (
    <section className="panel" aria-labelledby="edit-memory-heading">
      <h2 id="edit-memory-heading">Edit memory</h2>
      <form onSubmit={(event) => void submit(event)}>
        <Field label="Name" name="name" required defaultValue={memory.name} autoFocus />
        <TextArea label="Description" name="description" rows={2} defaultValue={memory.description} />
        <TextArea label="Labels" name="labels" rows={2} defaultValue={formatLabels(memory.labelList)} hint="One key=value a line" />
        <EmbeddingModelSelect value={embeddingModel} onChange={setEmbeddingModel} choices={choices.data} providerType={providerType} />
        <AcceptsWritesBox id="edit-memory-enabled" defaultChecked={memory.enabled} />
        <p className="muted">Changing the embedding model does not embed the existing records again.</p>
        <ErrorNotice error={choices.error} title="Could not load the models" />
        <ErrorNotice error={labelsProblem ? new Error(labelsProblem) : state.error} title="Could not save the memory" />
        <SubmitOrCancel busy={state.loading} busyLabel="Saving…" onCancel={onCancel}>
          Save memory
        </SubmitOrCancel>
      </form>
    </section>
  );
}
