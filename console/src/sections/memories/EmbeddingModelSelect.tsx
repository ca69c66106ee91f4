// The embedding model of a memory: none (lexical search only) or a model whose provider type embeds
// text. A provider type that needs one (a vector database) marks the choice required.
import { Select } from '../../components/ui';
import { embeddingTypes, needsEmbeddingModel, type MemoryChoices } from './documents';

/** `choices` are the memory choices as read (the models, and which provider types embed text); `providerType` the memory's provider's. */
export function EmbeddingModelSelect({
  value,
  onChange,
  choices,
  providerType,
}: {
  value: string;
  onChange(value: string): void;
  choices: MemoryChoices;
  providerType: string | undefined;
}) {
  const required = needsEmbeddingModel(choices, providerType);
  const types = embeddingTypes(choices);
  const embedding = (choices?.models.nodes ?? []).filter((model) => types.includes(model.provider.type));
  // Keep the current value listed even when the model no longer qualifies (disabled, removed from the first page).
  const listed = value && !embedding.some((model) => model.key === value) ? [{ value, label: value }] : [];
  return (
    <Select
      label={required ? 'Embedding model (required by this provider)' : 'Embedding model'}
      value={value}
      required={required}
      onValue={onChange}
      options={[
        { value: '', label: required ? 'Choose a model' : 'None: lexical search only' },
        ...listed,
        ...embedding.map((model) => ({
          value: model.key,
          label: `${model.name || model.key} (${model.key}, ${model.provider.type})${model.enabled ? '' : ' — disabled'}`,
        })),
      ]}
    />
  );
}
