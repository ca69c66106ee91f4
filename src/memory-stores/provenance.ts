// Provenance of a record, the same in every store: who created it, who wrote it last, and a SHA-256
// of the text it was created with — the view's `content_matches` says whether the text is still that.
import { sha256Hex } from '../lib/canonical-json.js';
import Type, { type Static } from 'typebox';
import { readDocument } from '../lib/json-documents.js';
import { WriterStamp } from './record-store.js';

/** Provenance as a store keeps it (the built-in store: `memory_records.provenance`; Pinecone: a metadata member). */
export const StoredProvenance = Type.Object({
  created: Type.Optional(WriterStamp),
  last_write: Type.Optional(WriterStamp),
  created_text_sha256: Type.Optional(Type.String()),
});
export type StoredProvenance = Static<typeof StoredProvenance>;

/** The provenance column of a built-in record: this service is its only writer, so it is checked. */
export const storedProvenance = (value: unknown): StoredProvenance => readDocument(StoredProvenance, value, 'memory_records.provenance');

/** The provenance of a new record. */
export function createdProvenance(stamp: WriterStamp, text: string): StoredProvenance {
  return { created: stamp, last_write: stamp, created_text_sha256: sha256Hex(text) };
}

/** The provenance after a replacement: `created` (and its text digest) stays, `last_write` moves. */
export function replacedProvenance(previous: StoredProvenance, stamp: WriterStamp, text: string): StoredProvenance {
  return previous.created
    ? { created: previous.created, last_write: stamp, created_text_sha256: previous.created_text_sha256 }
    : createdProvenance(stamp, text);
}

/** The record view's provenance; records written by other tools show what they have (nulls). */
export function provenanceView(stored: StoredProvenance | null | undefined, text: string): Record<string, unknown> {
  return {
    created: stored?.created ?? null,
    last_write: stored?.last_write ?? null,
    content_matches: stored?.created_text_sha256 === sha256Hex(text),
  };
}
