// The shapes the memories pages read, derived from the types generated for
// console/src/graphql/memories.graphql (the pages import the documents themselves from console/generated).
import type {
  ConsoleMemoriesQueryVariables,
  ConsoleMemoryChoicesQuery,
  MemoryDetailFragment,
  MemoryInput,
  MemoryRecordFragment,
  MemorySummaryFragment,
} from '../../../generated/graphql';

export type MemorySummary = MemorySummaryFragment;

export type MemoryDetail = MemoryDetailFragment;

export type WriterStamp = NonNullable<MemoryRecord['provenance']['created']>;

export type MemoryRecord = MemoryRecordFragment;

export type MemoryListVariables = ConsoleMemoriesQueryVariables;

export type ProviderChoice = ConsoleMemoryChoicesQuery['providers']['nodes'][number];

export type MemoryProviderType = ConsoleMemoryChoicesQuery['memoryTypes'][number];
/** The memory choices as read (undefined until they arrive). */
export type MemoryChoices = ConsoleMemoryChoicesQuery | undefined;

/** The model provider types whose models can embed text (the embedding model choices). */
export function embeddingTypes(choices: MemoryChoices): string[] {
  return (choices?.modelTypes ?? []).filter((type) => 'embeddingsSupported' in type && type.embeddingsSupported).map((type) => type.type);
}

/** Whether a memory on a provider of this type needs an embedding model. */
export function needsEmbeddingModel(choices: MemoryChoices, providerType: string | undefined): boolean {
  const type = choices?.memoryTypes.find((candidate) => candidate.type === providerType);
  return Boolean(type && 'embeddingModelRequired' in type && type.embeddingModelRequired);
}

export type ModelChoice = ConsoleMemoryChoicesQuery['models']['nodes'][number];

export type { MemoryInput };
