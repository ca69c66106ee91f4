// The GraphQL documents of the memories pages and the shapes they answer.
import { gql } from '../../api';
import type { Connection } from '../../lib/usePagedQuery';

export interface MemorySummary {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  embeddingModel: string | null;
  providerId: string;
  labelList: { key: string; value: string }[];
  updatedAt: string;
}

export interface MemoryDetail extends MemorySummary {
  labels: Record<string, string>;
  version: number;
  etag: string;
  createdAt: string;
  createdById: string;
  updatedById: string;
}

export interface WriterStamp {
  principalName: string | null;
  principalId: string | null;
  runId: string | null;
  toolCallId: string | null;
  confirmedAt: string | null;
}

export interface MemoryRecord {
  id: string;
  text: string;
  score: number;
  updatedAt: string;
  provenance: { contentMatches: boolean; created: WriterStamp | null; lastWrite: WriterStamp | null };
}

const SUMMARY_FIELDS = `id name description enabled embeddingModel providerId labelList { key value } updatedAt`;
const RECORD_FIELDS = `id text score updatedAt provenance {
  contentMatches
  created { principalName principalId runId toolCallId confirmedAt }
  lastWrite { principalName principalId runId toolCallId confirmedAt }
}`;

export interface MemoryListVariables {
  q?: string | null;
  label?: string[] | null;
  first?: number;
  after?: string | null;
}

export const MEMORIES = gql<{ memories: Connection<MemorySummary> }, MemoryListVariables>(`
  query ConsoleMemories($q: String, $label: [String!], $first: Int, $after: String) {
    memories(q: $q, label: $label, first: $first, after: $after) {
      nodes { ${SUMMARY_FIELDS} }
      pageInfo { hasNextPage endCursor }
    }
  }`);

export const MEMORY = gql<{ memory: MemoryDetail }, { id: string }>(`
  query ConsoleMemory($id: ID!) {
    memory(id: $id) { ${SUMMARY_FIELDS} labels version etag createdAt createdById updatedById }
  }`);

export interface ProviderChoice {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
}

export interface MemoryProviderType {
  type: string;
  title: string;
  embeddingModelRequired?: boolean;
}

export interface ModelChoice {
  key: string;
  name: string;
  enabled: boolean;
  provider: { type: string };
}

/**
 * What a memory can be made on: the workspace's memory providers and their types (whether a type needs
 * an embedding model), and the models whose provider type can embed text.
 */
export const MEMORY_CHOICES = gql<{
  providers: { nodes: ProviderChoice[] };
  memoryTypes: MemoryProviderType[];
  modelTypes: { type: string; embeddingsSupported?: boolean }[];
  models: { nodes: ModelChoice[] };
}>(`
  query ConsoleMemoryChoices {
    providers(kind: "memory", first: 100) { nodes { id name type enabled } }
    memoryTypes: providerTypes(kind: "memory") { type title ... on MemoryProviderType { embeddingModelRequired } }
    modelTypes: providerTypes(kind: "model") { type ... on ModelProviderType { embeddingsSupported } }
    models(first: 100) { nodes { key name enabled provider { type } } }
  }`);

export interface MemoryInput {
  name?: string;
  description?: string;
  labels?: Record<string, string>;
  providerId?: string | null;
  embeddingModel?: string | null;
  enabled?: boolean;
}

export const CREATE_MEMORY = gql<{ createMemory: { memory: { id: string } } }, { input: MemoryInput }>(`
  mutation ConsoleCreateMemory($input: MemoryInput!) {
    createMemory(input: $input) { memory { id } }
  }`);

export const UPDATE_MEMORY = gql<{ updateMemory: { memory: MemoryDetail } }, { id: string; ifMatch: string; input: MemoryInput }>(`
  mutation ConsoleUpdateMemory($id: ID!, $ifMatch: String, $input: MemoryInput!) {
    updateMemory(id: $id, ifMatch: $ifMatch, input: $input) {
      memory { ${SUMMARY_FIELDS} labels version etag createdAt createdById updatedById }
    }
  }`);

export const MEMORY_RECORDS = gql<
  { memoryRecords: Connection<MemoryRecord> },
  { memoryId: string; first?: number; after?: string | null }
>(`
  query ConsoleMemoryRecords($memoryId: ID!, $first: Int, $after: String) {
    memoryRecords(memoryId: $memoryId, first: $first, after: $after) {
      nodes { ${RECORD_FIELDS} }
      pageInfo { hasNextPage endCursor }
    }
  }`);

export const ADD_MEMORY_RECORD = gql<{ addMemoryRecord: { record: MemoryRecord } }, { memoryId: string; text: string }>(`
  mutation ConsoleAddMemoryRecord($memoryId: ID!, $text: String!) {
    addMemoryRecord(memoryId: $memoryId, text: $text) { record { ${RECORD_FIELDS} } }
  }`);

export const REPLACE_MEMORY_RECORD = gql<
  { replaceMemoryRecord: { record: MemoryRecord } },
  { memoryId: string; recordId: string; text: string }
>(`
  mutation ConsoleReplaceMemoryRecord($memoryId: ID!, $recordId: String!, $text: String!) {
    replaceMemoryRecord(memoryId: $memoryId, recordId: $recordId, text: $text) { record { ${RECORD_FIELDS} } }
  }`);

export const SEARCH_MEMORY_RECORDS = gql<
  { searchMemoryRecords: { records: MemoryRecord[] } },
  { memoryId: string; query: string; limit?: number | null; minScore?: number | null }
>(`
  mutation ConsoleSearchMemoryRecords($memoryId: ID!, $query: String!, $limit: Int, $minScore: Float) {
    searchMemoryRecords(memoryId: $memoryId, query: $query, limit: $limit, minScore: $minScore) { records { ${RECORD_FIELDS} } }
  }`);
