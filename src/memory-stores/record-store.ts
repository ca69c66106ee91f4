// The record store of a memory: what every memory provider that serves records implements — the
// built-in store (builtin.ts, records in this service's database) and external vector databases
// (pinecone.ts). The memory service validates arguments, checks permissions and picks the store;
// a store keeps records, ranks them and reports their provenance.
import Type, { type Static } from 'typebox';
import type { Db } from '../db.js';
import type { Page } from '../lib/cursor.js';

/** A record as the memory services return it (the REST and GraphQL "Memory record"). */
export interface StoredRecord {
  id: string;
  text: string;
  /** Similarity to the query in [0, 1] (4 decimals) in search results; null elsewhere. */
  score: number | null;
  updatedAt: Date;
  /** `{created, last_write, content_matches}` (see provenance.ts). */
  provenance: Record<string, unknown>;
}

/** Who wrote a record: `created` and `last_write` of its provenance (stored as JSON: a schema, the type derived). */
export const WriterStamp = Type.Object({
  attempt_id: Type.Union([Type.String(), Type.Null()]),
  confirmed_at: Type.String(),
  principal_id: Type.String(),
  /** The principal's name at the time of the write (see services/principals.ts). */
  principal_name: Type.String(),
  run_id: Type.Union([Type.String(), Type.Null()]),
  tool_call_id: Type.Union([Type.String(), Type.Null()]),
});
export type WriterStamp = Static<typeof WriterStamp>;

/** Internal (benchmark, diagnostics): rank by one part alone; stores without a lexical part rank by vector whatever is asked. */
export type SearchMode = 'hybrid' | 'lexical' | 'vector';

export interface SearchOptions {
  limit: number;
  /** Results score at least this, in [0, 1]. */
  minScore: number;
  mode?: SearchMode;
}

/** One memory's records (validated arguments in, views out). */
export interface RecordStore {
  /** One page in the provider's order; `cursor` wraps the provider's own position (opaque to clients). */
  list(size: number, cursor: string | null | undefined): Promise<Page<StoredRecord>>;
  /** One record, or null when the id is unknown. */
  get(id: string): Promise<StoredRecord | null>;
  /** A record under a freshly generated id (nothing to keep). */
  add(id: string, text: string, stamp: WriterStamp): Promise<StoredRecord>;
  /** Upsert: the text is replaced (or the record created); `created` provenance stays; the last writer wins. */
  replace(id: string, text: string, stamp: WriterStamp): Promise<StoredRecord>;
  /** By similarity, best first (ties: id), scores in [0, 1] rounded by `roundScore`, at least `minScore`, at most `limit`. */
  search(query: string, options: SearchOptions): Promise<StoredRecord[]>;
}

/** One memory's records to list along with others' (`listMany`): where they are and the memory's list name in cursors. */
export interface RecordListing {
  providerId: string;
  namespace: string;
  cursorList: string;
}

/** What a store is opened with, for one memory. */
export interface RecordStoreContext {
  /** The memory provider's configuration and decrypted credential. */
  config: Record<string, unknown>;
  credential: Record<string, unknown> | null;
  extraHeaders: Record<string, string>;
  /** The outbound policy's fetch: every request to the provider goes through it. */
  fetch: typeof fetch;
  /** This service's database (the built-in store keeps its records there). */
  db: Db;
  providerId: string;
  workspaceId: string;
  /** The memory's namespace at the provider. */
  namespace: string;
  /** Names the memory in cursors, so that one memory's cursor is refused by another. */
  cursorList: string;
  /** The memory's embedding model (unit vectors); null when the memory has none. */
  embed: ((text: string) => Promise<number[]>) | null;
  /** How many in-process vector indexes the built-in store keeps (MEMORY_INDEX_MAX_MEMORIES, MEMORY_INDEX_MAX_MB). */
  vectorIndexBudget: VectorIndexBudget;
}

export interface VectorIndexBudget {
  maxMemories: number;
  maxBytes: number;
  /** How long a search waits for its memory's index to load (MEMORY_INDEX_WAIT_MS); unset: as long as the load takes. */
  waitMs?: number;
}

/** What a store that keeps records outside this service's database is opened with. */
export type ExternalStoreContext = Omit<RecordStoreContext, 'db' | 'providerId' | 'workspaceId' | 'vectorIndexBudget'>;

/** Scores leave every store with 4 decimals. */
export const roundScore = (score: number) => Math.round(score * 10_000) / 10_000;
