// The embedding model of a memory: none (lexical search only) or a model whose provider type embeds
// text. A provider type that needs one (a vector database) marks the choice required.
import { Select } from '../../components/ui';
import type { ModelChoice } from './documents';

export function EmbeddingModelSelect({
  value,
  onChange,
  models,
  embeddingTypes,
  required,
}: {
  value: string;
  onChange(value: string): void;
  models: ModelChoice[];
  embeddingTypes: string[];
  required: boolean;
}) {
  const embedding = models.filter((model) => embeddingTypes.includes(model.provider.type));
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
