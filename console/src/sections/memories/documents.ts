// The GraphQL documents of the memories pages and the shapes they answer.
import {
  ConsoleAddMemoryRecordDocument,
  ConsoleCreateMemoryDocument,
  ConsoleMemoriesDocument,
  ConsoleMemoryChoicesDocument,
  ConsoleMemoryDocument,
  ConsoleMemoryRecordsDocument,
  ConsoleReplaceMemoryRecordDocument,
  ConsoleSearchMemoryRecordsDocument,
  ConsoleUpdateMemoryDocument,
} from '../../../generated/graphql';
import type {
  ConsoleMemoriesQueryVariables,
  ConsoleMemoryChoicesQuery,
  ConsoleMemoryQuery,
  MemoryInput,
  MemoryRecordFragment,
  MemorySummaryFragment,
} from '../../../generated/graphql';

export type MemorySummary = MemorySummaryFragment;

export type MemoryDetail = ConsoleMemoryQuery['memory'];

export type WriterStamp = NonNullable<MemoryRecord['provenance']['created']>;

export type MemoryRecord = MemoryRecordFragment;

export type MemoryListVariables = ConsoleMemoriesQueryVariables;

export const MEMORIES = ConsoleMemoriesDocument;

export const MEMORY = ConsoleMemoryDocument;

export type ProviderChoice = ConsoleMemoryChoicesQuery['providers']['nodes'][number];

export type MemoryProviderType = ConsoleMemoryChoicesQuery['memoryTypes'][number];
type MemoryChoices = ConsoleMemoryChoicesQuery | undefined;

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

/**
 * What a memory can be made on: the workspace's memory providers and their types (whether a type needs
 * an embedding model), and the models whose provider type can embed text.
 */
export const MEMORY_CHOICES = ConsoleMemoryChoicesDocument;

export type { MemoryInput };

export const CREATE_MEMORY = ConsoleCreateMemoryDocument;

export const UPDATE_MEMORY = ConsoleUpdateMemoryDocument;

export const MEMORY_RECORDS = ConsoleMemoryRecordsDocument;

export const ADD_MEMORY_RECORD = ConsoleAddMemoryRecordDocument;

export const REPLACE_MEMORY_RECORD = ConsoleReplaceMemoryRecordDocument;

export const SEARCH_MEMORY_RECORDS = ConsoleSearchMemoryRecordsDocument;
