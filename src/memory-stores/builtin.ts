// The built-in record store: records in this service's database (`memory_records`, one namespace per
// memory), searched by a lexical score (PostgreSQL full text and trigram word similarity) and, when
// the memory has an embedding model, exact cosine similarity over an in-process vector index, fused
// as their mean. How and why: docs/api/memories.md, "Search on the built-in provider".
import { Prisma } from '../generated/prisma/client.js';
import { driverPoolOf, type Db } from '../db.js';
import { decodeCursor, mapPage, toPage, type Page } from '../lib/cursor.js';
import { AppError } from '../lib/errors.js';
import { IndexLoading, VectorIndexCache, type VectorIndex } from '../lib/vector-index.js';
import { createdProvenance, provenanceView, storedProvenance } from './provenance.js';
import { bestFirst, clampCosine, fusedScore } from './ranking.js';
import {
  roundScore,
  type RecordListing,
  type RecordStore,
  type RecordStoreContext,
  type StoredRecord,
  type VectorIndexBudget,
} from './record-store.js';

/** Full-text matches ranked per search at most (see docs/api/memories.md, "Search"). */
export const LEXICAL_CANDIDATE_CAP = 200;
/** Matches of the spelling-corrected query considered at most, when full text found fewer records than asked for. */
export const FUZZY_CANDIDATE_CAP = 200;
/** Candidates taken from each part (lexical, vector) per result asked for. */
const CANDIDATES_PER_RESULT = 4;

/** Where a memory's records are: the provider's rows, one namespace. */
export interface BuiltinNamespace {
  providerId: string;
  namespace: string;
}

interface RecordRow {
  id: string;
  text: string;
  updated_at: Date;
  provenance: unknown;
}
interface ScoredRow extends RecordRow {
  score: number;
}

function view(row: RecordRow, score: number | null = null): StoredRecord {
  return {
    id: row.id,
    text: row.text,
    score,
    updatedAt: row.updated_at,
    provenance: provenanceView(storedProvenance(row.provenance), row.text),
  };
}

/**
 * The first page of each of many memories' records (record id order, as `list`) in one statement:
 * a LATERAL subquery per namespace walks the primary key and stops after the page. A cursor names
 * one memory's list, so it is a problem for the others (their entry is the error).
 */
export async function listBuiltinPages(
  db: Db,
  listings: readonly RecordListing[],
  size: number,
  cursor: string | null | undefined,
): Promise<(Page<StoredRecord> | Error)[]> {
  const positions = listings.map((listing) => {
    try {
      return decodeCursor(listing.cursorList, cursor);
    } catch (error) {
      return error as Error;
    }
  });
  const readable = listings.flatMap((listing, index) => (positions[index] instanceof Error ? [] : [{ listing, index }]));
  const after = positions.find((position) => Array.isArray(position))?.[0] ?? null;
  const rows = readable.length
    ? await db.$queryRaw<(RecordRow & { listing: number })[]>`
        SELECT (n.listing)::int AS listing, r.id, r.text, r.updated_at, r.provenance
        FROM unnest(${readable.map((entry) => entry.listing.providerId)}::text[], ${readable.map((entry) => entry.listing.namespace)}::text[],
                    ${readable.map((entry) => entry.index)}::int[]) AS n(provider_id, namespace, listing)
        CROSS JOIN LATERAL (
          SELECT id, text, updated_at, provenance FROM memory_records m
          WHERE m.provider_id = n.provider_id AND m.namespace = n.namespace ${after === null ? Prisma.empty : Prisma.sql`AND m.id > ${String(after)}`}
          ORDER BY m.id LIMIT ${size + 1}
        ) r
        ORDER BY n.listing, r.id`
    : [];
  return listings.map((listing, index) => {
    const problem = positions[index];
    if (problem instanceof Error) return problem;
    const own = rows.filter((row) => row.listing === index);
    return mapPage(
      toPage(own, size, listing.cursorList, (row) => [row.id]),
      (row) => view(row),
    );
  });
}

export function openBuiltinStore(ctx: RecordStoreContext): RecordStore {
  const { db } = ctx;
  const where: BuiltinNamespace = { providerId: ctx.providerId, namespace: ctx.namespace };

  // One statement: concurrent writers of one id serialise on its row and the last one wins; the
  // `created` provenance (with the digest of the created text) stays, `last_write` moves.
  async function upsert(id: string, text: string, stamp: Parameters<RecordStore['add']>[2]): Promise<StoredRecord> {
    const embedding = ctx.embed ? await ctx.embed(text) : [];
    const created = JSON.stringify(createdProvenance(stamp, text));
    const stampJson = JSON.stringify(stamp);
    const [row] = await db.$queryRaw<RecordRow[]>`
      INSERT INTO memory_records (provider_id, namespace, id, workspace_id, text, embedding, provenance, created_at, updated_at)
      VALUES (${where.providerId}, ${where.namespace}, ${id}, ${ctx.workspaceId}, ${text}, ${embedding}::real[], ${created}::jsonb, now(), now())
      ON CONFLICT (provider_id, namespace, id) DO UPDATE SET text = EXCLUDED.text, embedding = EXCLUDED.embedding, updated_at = now(),
        provenance = memory_records.provenance || jsonb_build_object('last_write', ${stampJson}::jsonb)
      RETURNING id, text, updated_at, provenance`;
    return view(row!);
  }

  return {
    async list(size, cursor) {
      // The store's own cursor: the last record id (record id order).
      const after = decodeCursor(ctx.cursorList, cursor);
      const rows = await db.memoryRecord.findMany({
        where: { providerId: where.providerId, namespace: where.namespace, ...(after ? { id: { gt: String(after[0]) } } : {}) },
        select: { id: true, text: true, updatedAt: true, provenance: true },
        orderBy: { id: 'asc' },
        take: size + 1,
      });
      const page = toPage(rows, size, ctx.cursorList, (row) => [row.id]);
      return mapPage(page, (row) => view({ ...row, updated_at: row.updatedAt }));
    },

    async get(id) {
      const row = await db.memoryRecord.findUnique({
        where: { providerId_namespace_id: { providerId: where.providerId, namespace: where.namespace, id } },
        select: { id: true, text: true, updatedAt: true, provenance: true },
      });
      return row ? view({ ...row, updated_at: row.updatedAt }) : null;
    },

    add: upsert,
    replace: upsert,

    async search(query, { limit, minScore, mode = 'hybrid' }) {
      const candidates = limit * CANDIDATES_PER_RESULT;
      const lexicalToo = mode !== 'vector';
      const q = lexicalQuery(query);
      // Concurrently: the lexical query, and the vector part (embedding the query, the index's
      // freshness check, exact top-k in process, then the vector candidates' rows and lexical scores).
      const vectorPart = async () => {
        if (mode === 'lexical' || !ctx.embed) return null;
        const [vector, index] = await Promise.all([
          ctx.embed(query),
          vectorIndexFor(db, where, ctx.vectorIndexBudget),
          noteSearched(db, where),
        ]);
        const nearest = index.topK(vector, candidates);
        const rows = await scoredRows(
          db,
          where,
          lexicalToo ? q : null,
          nearest.map((v) => v.id),
        );
        return { index, vector, nearest, rows };
      };
      const [lexical, vector] = await Promise.all([lexicalToo ? lexicalCandidates(db, where, q, candidates, limit) : [], vectorPart()]);
      const rows = new Map<string, ScoredRow>(lexical.map((row) => [row.id, row]));
      let scored: { id: string; score: number }[];
      if (vector) {
        // Every candidate gets both parts exactly: vector candidates their lexical score by id,
        // lexical candidates their cosine from the index.
        for (const row of vector.rows) rows.set(row.id, row);
        const cosines = new Map(vector.nearest.map((v) => [v.id, v.cosine]));
        scored = [...rows.values()].map((row) => {
          const cosine = cosines.get(row.id) ?? vector.index.cosine(row.id, vector.vector);
          return { id: row.id, score: lexicalToo ? fusedScore(Number(row.score), cosine) : clampCosine(cosine) };
        });
      } else {
        scored = [...rows.values()].map((row) => ({ id: row.id, score: Number(row.score) }));
      }
      return bestFirst(scored, minScore, limit).map(({ id, score }) => view(rows.get(id)!, roundScore(score)));
    },
  };
}

// ── lexical part ──

// A search's text, and its distinct words for full text: plainto_tsquery ANDs every word, and a word
// repeated in the query makes the GIN index check it again for every match (`x x x` costs 3 × `x`).
interface LexicalQuery {
  text: string;
  words: string;
}
const lexicalQuery = (text: string): LexicalQuery => ({
  text,
  words: [...new Set(text.toLowerCase().split(/\s+/).filter(Boolean))].join(' '),
});

// The lexical score of a record in [0, 1]: for records that match the query's words (full text) or
// nearly match them (trigram word similarity ≥ pg_trgm.word_similarity_threshold), the greater of the
// normalised full-text rank (rank/(rank+1)) and the trigram word similarity; 0 for other records.
const lexicalScore = (q: LexicalQuery, table = '') => {
  const [tsv, text] = [Prisma.raw(`${table}tsv`), Prisma.raw(`${table}text`)];
  return Prisma.sql`CASE WHEN ${tsv} @@ plainto_tsquery('simple', ${q.words}) OR ${q.text} <% ${text}
    THEN greatest(ts_rank_cd(${tsv}, plainto_tsquery('simple', ${q.words}), 32), word_similarity(${q.text}, ${text})) ELSE 0 END`;
};

/**
 * The best `take` lexical candidates with their rows, bounded whatever the memory's size: at most
 * LEXICAL_CANDIDATE_CAP full-text matches taken from the GIN index are ranked by their stored
 * tsvector, and the best `take` of them get their full score. Only when full text found fewer than
 * `enough` records, the query's words are corrected against the memory's vocabulary (misspellings,
 * other word forms) and up to FUZZY_CANDIDATE_CAP records matching the corrected words are ranked
 * the same way.
 */
async function lexicalCandidates(db: Db, memory: BuiltinNamespace, q: LexicalQuery, take: number, enough: number): Promise<ScoredRow[]> {
  // For full-text matches the score is greatest(rank, word similarity) (see lexicalScore).
  const found = await db.$queryRaw<ScoredRow[]>`
    WITH fts AS MATERIALIZED (
      SELECT id, tsv FROM memory_records
      WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace} AND tsv @@ plainto_tsquery('simple', ${q.words})
      LIMIT ${LEXICAL_CANDIDATE_CAP}
    )
    SELECT r.id, r.text, r.updated_at, r.provenance, greatest(f.rank, word_similarity(${q.text}, r.text)) AS score
    FROM (SELECT id, ts_rank_cd(tsv, plainto_tsquery('simple', ${q.words}), 32) AS rank FROM fts ORDER BY rank DESC, id LIMIT ${take}) f
    JOIN memory_records r ON r.provider_id = ${memory.providerId} AND r.namespace = ${memory.namespace} AND r.id = f.id`;
  if (found.length >= enough) return found;
  // Too little: correct the query's words against the memory's vocabulary (trigram similarity among
  // its distinct words) and take the records matching the corrected words, still scored by the same
  // lexical score (so only records whose text is trigram-similar to the query count).
  const corrected = await correctedQuery(db, memory, q);
  if (!corrected) return found;
  const fuzzy = await db.$queryRaw<ScoredRow[]>`
    WITH fts AS MATERIALIZED (
      SELECT id, tsv FROM memory_records
      WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace} AND tsv @@ ${corrected}::tsquery
        AND id <> ALL(${found.map((row) => row.id)}::text[])
      LIMIT ${FUZZY_CANDIDATE_CAP}
    )
    SELECT id, text, updated_at, provenance, score FROM (
      SELECT r.id, r.text, r.updated_at, r.provenance, ${lexicalScore(q, 'r.')} AS score, f.rank
      FROM (SELECT id, ts_rank_cd(tsv, ${corrected}::tsquery, 32) AS rank FROM fts ORDER BY rank DESC, id LIMIT ${take}) f
      JOIN memory_records r ON r.provider_id = ${memory.providerId} AND r.namespace = ${memory.namespace} AND r.id = f.id
    ) scored
    WHERE score > 0`;
  return [...found, ...fuzzy];
}

/** Alternatives per query word looked up in the vocabulary. */
const WORD_ALTERNATIVES = 5;
const tsqueryLexeme = (word: string) => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * The query's words, each replaced by the alternation of the namespace's most similar words (pg_trgm
 * `<%`: trigram word similarity ≥ pg_trgm.word_similarity_threshold, 0.6 — the test the lexical score
 * applies to whole texts, here per word), as tsquery text; words with no similar word are dropped;
 * null when none is left.
 */
async function correctedQuery(db: Db, memory: BuiltinNamespace, q: LexicalQuery): Promise<string | null> {
  const rows = await db.$queryRaw<{ words: string[] }[]>`
    SELECT array_agg(v.word ORDER BY v.sim DESC, v.word) AS words
    FROM unnest(tsvector_to_array(to_tsvector('simple', ${q.words}))) AS q(w)
    CROSS JOIN LATERAL (
      SELECT word, word_similarity(q.w, word) AS sim FROM memory_record_words
      WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace} AND q.w <% word
      ORDER BY sim DESC, similarity(q.w, word) DESC, word LIMIT ${WORD_ALTERNATIVES}
    ) v
    GROUP BY q.w ORDER BY q.w`;
  if (rows.length === 0) return null;
  return rows.map((row) => `(${row.words.map(tsqueryLexeme).join(' | ')})`).join(' & ');
}

/** Rows of the given records with their lexical scores (0 without a query). */
async function scoredRows(db: Db, memory: BuiltinNamespace, q: LexicalQuery | null, ids: string[]) {
  if (ids.length === 0) return [];
  return db.$queryRaw<ScoredRow[]>`
    SELECT id, text, updated_at, provenance, ${q === null ? Prisma.sql`0` : lexicalScore(q)} AS score FROM memory_records
    WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace} AND id = ANY(${ids}::text[])`;
}

// ── vector part ──

/** One cache of vector indexes per database client (one per app; tests run several apps in a process). */
const vectorIndexes = new WeakMap<Db, VectorIndexCache>();

function cacheOf(db: Db, budget?: VectorIndexBudget): VectorIndexCache {
  let cache = vectorIndexes.get(db);
  if (!cache) vectorIndexes.set(db, (cache = new VectorIndexCache(budget)));
  return cache;
}

/**
 * The memory's in-process vector index, brought up to date with the table (see lib/vector-index.ts).
 * The cache is made with the budget of the first search (one configuration per app). With a budget,
 * a search waits at most `budget.waitMs` (MEMORY_INDEX_WAIT_MS) for a load: a longer one (the first
 * search of a large memory after a start) goes on in the background and the search answers 503
 * `unavailable` with `details.reason: "index_loading"` and Retry-After, never a 504 at the deadline.
 */
export async function vectorIndexFor(db: Db, memory: BuiltinNamespace, budget?: VectorIndexBudget): Promise<VectorIndex> {
  const cache = cacheOf(db, budget);
  const [counter] = await db.$queryRaw<{ version: bigint; reset_version: bigint }[]>`
    SELECT version, reset_version FROM memory_record_versions WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace}`;
  const changes = { version: Number(counter?.version ?? 0), resetVersion: Number(counter?.reset_version ?? 0) };
  const key = `${memory.providerId}:${memory.namespace}`;
  const load = (since: number, index: VectorIndex) => loadVectors(db, memory, since, index);
  if (budget?.waitMs === undefined) return cache.get(key, changes, load);
  try {
    return await cache.getWithin(key, changes, load, budget.waitMs);
  } catch (error) {
    if (!(error instanceof IndexLoading)) throw error;
    throw new AppError(
      'unavailable',
      `the memory's vector index is loading in the background (it is searched in process; a large memory loads for a while after a start); try again shortly`,
      { reason: 'index_loading' },
    );
  }
}

/** The memory namespaces (`provider:namespace`) whose indexes this client's cache holds (tests, diagnostics). */
export function heldVectorIndexes(db: Db): string[] {
  return vectorIndexes.get(db)?.keys() ?? [];
}

/**
 * Loads, one after another in the background, the vector indexes of the memories searched most
 * recently (by any instance) before this process started, so that their first searches find them
 * warm: at most `budget.maxMemories` memories, most recent first, skipping a memory whose index would
 * take the indexes past `budget.maxBytes`.
 * A load failure is reported and the next memory tried; a search of a memory being warmed waits for
 * that load like for its own (within MEMORY_INDEX_WAIT_MS).
 */
export async function warmVectorIndexes(
  db: Db,
  budget: VectorIndexBudget,
  options: { since: Date; onError?: (error: unknown, memory: BuiltinNamespace) => void; stopped?: () => boolean },
): Promise<{ warmed: number }> {
  const cache = cacheOf(db, budget);
  const recent = await db.$queryRaw<{ provider_id: string; namespace: string }[]>`
    SELECT provider_id, namespace FROM memory_record_versions
    WHERE searched_at >= ${options.since} ORDER BY searched_at DESC LIMIT ${budget.maxMemories}`;
  let warmed = 0;
  for (const memory of recent) {
    if (options.stopped?.()) break;
    const where = { providerId: memory.provider_id, namespace: memory.namespace };
    try {
      // A memory whose index would not fit beside those held is skipped: loading it would evict the
      // more recently searched ones warmed before it (least recently used first).
      if (cache.bytes + (await estimatedIndexBytes(db, where)) > budget.maxBytes) continue;
      await vectorIndexFor(db, where, { ...budget, waitMs: undefined });
      warmed++;
    } catch (error) {
      options.onError?.(error, where);
    }
  }
  return { warmed };
}

/** The bytes a memory's index would hold: its records times the packed size of one of its vectors. */
async function estimatedIndexBytes(db: Db, memory: BuiltinNamespace): Promise<number> {
  const [row] = await db.$queryRaw<{ records: bigint; vector_bytes: number | null }[]>`
    SELECT count(*) AS records,
      (SELECT octet_length(embedding_packed) FROM memory_records
       WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace} AND octet_length(embedding_packed) > 0 LIMIT 1) AS vector_bytes
    FROM memory_records WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace}`;
  return Number(row?.records ?? 0) * Number(row?.vector_bytes ?? 0);
}

/** How often one process records that a memory was searched (memory_record_versions.searched_at). */
const SEARCHED_AT_EVERY_MS = 10 * 60 * 1000;
const searchedRecorded = new WeakMap<Db, Map<string, number>>();

/**
 * Records, at most every ten minutes per memory and process, that the memory was searched: what the
 * warm-up at a later start orders memories by. Costs one small update per memory per ten minutes.
 */
export async function noteSearched(db: Db, memory: BuiltinNamespace, now = Date.now()): Promise<void> {
  let recorded = searchedRecorded.get(db);
  if (!recorded) searchedRecorded.set(db, (recorded = new Map()));
  const key = `${memory.providerId}:${memory.namespace}`;
  if (now - (recorded.get(key) ?? -Infinity) < SEARCHED_AT_EVERY_MS) return;
  recorded.set(key, now);
  await db.$executeRaw`
    UPDATE memory_record_versions SET searched_at = now() WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace}`;
}

/** Rows per page of a vector load: ~10 MB of vectors of 256 dimensions. */
export const VECTOR_LOAD_PAGE = 10_000;

/**
 * Applies the memory's records stamped after `since` to `index`, page by page in `(seq, id)` order,
 * so that a large memory is never held twice (rows and index). Vectors come packed
 * (`embedding_packed`: big-endian float4 values, no array header; empty without an embedding) and
 * are decoded into one scratch array reused for every row. A whole-memory load first sizes the
 * index to the memory's count.
 */
export async function loadVectors(
  db: Db,
  memory: BuiltinNamespace,
  since: number,
  index: VectorIndex,
  pageSize = VECTOR_LOAD_PAGE,
): Promise<void> {
  let expected = 0;
  if (since < 0) {
    const [counted] = await db.$queryRaw<{ count: bigint }[]>`
      SELECT count(*) AS count FROM memory_records WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace}`;
    expected = Number(counted?.count ?? 0);
  }
  let after: { seq: string; id: string } | null = null;
  let scratch = new Float32Array(0);
  for (;;) {
    const rows = await vectorPage(db, memory, since, after, pageSize);
    for (const row of rows) {
      const bytes = row.packed ?? Buffer.alloc(0);
      const dimensions = bytes.byteLength >> 2;
      if (dimensions > scratch.length) scratch = new Float32Array(dimensions);
      decodeBigEndianFloats(bytes, scratch, dimensions);
      if (expected > 0 && dimensions > 0) {
        index.reserve(expected, dimensions);
        expected = 0;
      }
      index.upsert(row.id, scratch.subarray(0, dimensions));
    }
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1]!;
    after = { seq: String(last.seq), id: last.id };
  }
}

/**
 * `dimensions` big-endian float4 values of `bytes` into `into`: one native byte swap of the row
 * (Buffer#swap32, in place: the row's buffer is read once) and a copy through a float view, instead of
 * a DataView read per value (~15 % less CPU: 44 against 52 ms per 100k rows of 256 dimensions; the
 * decoding is a small part of a load, most of it is the driver reading the hex text of the rows). A
 * row at an offset that is not a multiple of 4 is copied to an aligned buffer first (a float view
 * needs alignment).
 */
function decodeBigEndianFloats(bytes: Buffer, into: Float32Array, dimensions: number): void {
  const length = dimensions * 4;
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes);
  aligned.subarray(0, length).swap32();
  into.set(new Float32Array(aligned.buffer, aligned.byteOffset, dimensions));
}

/**
 * One page of packed vectors after `since` (or after the page ending at `after`), read through the
 * node-postgres pool under the client: Prisma's handling of raw rows cost ~8× its CPU here (762 ms
 * against 97 ms per 10,000 rows).
 */
async function vectorPage(
  db: Db,
  memory: BuiltinNamespace,
  since: number,
  after: { seq: string; id: string } | null,
  pageSize: number,
): Promise<{ id: string; seq: string; packed: Buffer | null }[]> {
  const pool = driverPoolOf(db);
  if (!pool) throw new Error('a database client not opened by openDatabase has no driver pool');
  const position = after ? 'AND (seq, id) > ($3::bigint, $4::text)' : 'AND seq > $3::bigint';
  const result = await pool.query<{ id: string; seq: string; packed: Buffer | null }>(
    `SELECT id, seq, embedding_packed AS packed FROM memory_records
     WHERE provider_id = $1 AND namespace = $2 ${position} ORDER BY seq, id LIMIT ${Math.trunc(pageSize)}`,
    after ? [memory.providerId, memory.namespace, after.seq, after.id] : [memory.providerId, memory.namespace, String(since)],
  );
  return result.rows;
}
