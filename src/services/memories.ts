// Memories: collections of text records kept by a memory provider (the built-in one by default).
// Records carry no version — the last writer wins — and a provenance of who wrote them.
import { Prisma, type Memory, type Provider } from '../generated/prisma/client.js';
import { canonicalize } from '../lib/canonical-json.js';
import { decodeCursor, pageSize, toPage } from '../lib/cursor.js';
import { AppError, invalidArgument, notFound, quoteInput } from '../lib/errors.js';
import { validateDescription, validateName } from '../lib/text-fields.js';
import { newId } from '../lib/ids.js';
import { labelsWhere, parseLabelSelectors, validateLabels } from '../lib/labels.js';
import { recordAudit } from './audit.js';
import type { Actor, Deps } from './deps.js';
import { requirePermission } from './permissions.js';
import { changeVersioned } from './versioned.js';
import { embed } from 'ai';
import { VectorIndexCache, decodeFloat4Array, type VectorIndex } from '../lib/vector-index.js';
import { providerForUse } from './providers.js';
import { providerType } from '../providers/index.js';
import { usableModel } from './usable-models.js';
import type { StoredRecord, WriterStamp } from '../providers/registry.js';
import { principalName } from './principals.js';

type Tx = Prisma.TransactionClient;
const MAX_TEXT = 100_000;
const MAX_RECORD_ID = 256;

export async function getMemory(db: Deps['db'] | Tx, actor: Actor, id: string): Promise<Memory> {
  requirePermission(actor, 'read');
  const row = await db.memory.findUnique({ where: { id } });
  if (!row || row.workspaceId !== actor.workspaceId) throw notFound('memory', id);
  return row;
}

/** The workspace's built-in memory provider, created on first need. */
async function builtinProvider(tx: Tx, actor: Actor) {
  const existing = await tx.provider.findFirst({ where: { workspaceId: actor.workspaceId, kind: 'memory', type: 'builtin' }, orderBy: { id: 'asc' } });
  if (existing) return existing;
  const created = await tx.provider.create({ data: { id: newId('provider'), workspaceId: actor.workspaceId, kind: 'memory', type: 'builtin', name: 'Built-in memory', createdById: actor.principalId, updatedById: actor.principalId } });
  await recordAudit(tx, { workspaceId: actor.workspaceId, principalId: actor.principalId, action: 'create', resourceKind: 'memory_provider', resourceId: created.id, version: 1 });
  return created;
}

export interface MemoryInput {
  name?: unknown;
  description?: unknown;
  labels?: unknown;
  providerId?: string | null;
  embeddingModel?: string | null;
  enabled?: boolean | null;
}

export async function createMemory(deps: Deps, actor: Actor, input: MemoryInput) {
  requirePermission(actor, 'write');
  const name = validateName(input.name);
  const labels = input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels);
  return deps.db.$transaction(async (tx) => {
    let provider;
    if (input.providerId) {
      provider = await tx.provider.findUnique({ where: { id: input.providerId } });
      if (!provider || provider.workspaceId !== actor.workspaceId || provider.kind !== 'memory') throw new AppError('not_found', `memory provider ${quoteInput(input.providerId)} not found`, { field: 'provider_id' });
    } else provider = await builtinProvider(tx, actor);
    if (!provider.enabled) throw new AppError('disabled', 'the memory provider is disabled');
    if (!input.embeddingModel) refuseWithoutEmbeddings(provider);
    if (input.embeddingModel) await checkEmbeddingModel(tx, actor.workspaceId, input.embeddingModel);
    const id = newId('memory');
    const row = await tx.memory.create({
      data: {
        id, workspaceId: actor.workspaceId, providerId: provider.id, name, description: validateDescription(input.description),
        namespace: id, labels, config: input.embeddingModel ? { embedding_model: input.embeddingModel } : {}, enabled: input.enabled ?? true,
        createdById: actor.principalId, updatedById: actor.principalId,
      },
    });
    await recordAudit(tx, { workspaceId: actor.workspaceId, principalId: actor.principalId, action: 'create', resourceKind: 'memory', resourceId: id, version: 1, changes: { name: { from: null, to: name }, provider_id: { from: null, to: provider.id } } });
    return row;
  });
}

export async function listMemories(deps: Deps, actor: Actor, args: { label?: readonly string[] | null; q?: string | null; limit?: number | null; cursor?: string | null }) {
  requirePermission(actor, 'read');
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const after = decodeCursor('memories', args.cursor);
  const q = args.q?.trim();
  const rows = await deps.db.memory.findMany({
    where: {
      workspaceId: actor.workspaceId, ...labelsWhere(parseLabelSelectors(args.label)), ...(after ? { id: { lt: String(after[0]) } } : {}),
      ...(q ? { OR: [{ name: { contains: q, mode: 'insensitive' } }, { description: { contains: q, mode: 'insensitive' } }] } : {}),
    },
    orderBy: { id: 'desc' }, take: size + 1,
  });
  return toPage(rows, size, 'memories', (row) => [row.id]);
}

export async function updateMemory(deps: Deps, actor: Actor, id: string, ifMatch: string | null | undefined, patch: MemoryInput) {
  requirePermission(actor, 'write');
  return deps.db.$transaction(async (tx) => {
    const row = await getMemory(tx, actor, id);
    const data: Record<string, unknown> = {};
    if (patch.name !== undefined) data.name = validateName(patch.name);
    if (patch.description !== undefined) data.description = validateDescription(patch.description);
    if (patch.labels !== undefined) data.labels = validateLabels(patch.labels ?? {});
    if (patch.enabled !== undefined && patch.enabled !== null) data.enabled = patch.enabled;
    if (patch.providerId !== undefined && patch.providerId !== row.providerId) throw invalidArgument('a memory stays with its provider', 'provider_id');
    if (patch.embeddingModel !== undefined) {
      if (patch.embeddingModel) await checkEmbeddingModel(tx, actor.workspaceId, patch.embeddingModel);
      else refuseWithoutEmbeddings(await tx.provider.findUniqueOrThrow({ where: { id: row.providerId } }));
      data.config = patch.embeddingModel ? { ...(row.config as object), embedding_model: patch.embeddingModel } : {};
    }
    return changeVersioned({ tx, actor, delegate: tx.memory, row, ifMatch, resourceKind: 'memory', action: 'update', data });
  });
}

// ── embeddings ──

const vectorIndexes = new WeakMap<object, VectorIndexCache>();

/** The memory's embedding model, when it has one (AI SDK embedding model of the model's provider). */
async function embedderFor(deps: Deps, memory: Memory) {
  const key = (memory.config as { embedding_model?: string }).embedding_model;
  if (!key) return null;
  const found = await usableModel(deps, memory.workspaceId, key, 'embedding model');
  if (!found) throw new AppError('failed_precondition', `the embedding model ${quoteInput(key)} is gone`);
  const { model, provider, usable } = found;
  if (!usable.type.embeddingModel) throw new AppError('failed_precondition', `provider type ${provider.type} does not embed text`);
  const embeddingModel = usable.type.embeddingModel({ config: usable.config, credential: usable.credential, extraHeaders: usable.extraHeaders }, model);
  return async (text: string) => {
    const { embedding } = await embed({ model: embeddingModel, value: text, maxRetries: 1 });
    const norm = Math.hypot(...embedding) || 1;
    return embedding.map((value) => value / norm);
  };
}

/** Memories of external stores are searched by vector only: they need, and keep, an embedding model. */
function refuseWithoutEmbeddings(provider: Provider) {
  if (providerType('memory', provider.type)?.records?.embeddingModelRequired) throw invalidArgument(`a ${provider.type} memory needs an embedding_model`, 'embedding_model');
}

/** The provider row read for a memory in this request, so that checks and the dispatch to a store read it once. */
const providerOfMemory = new WeakMap<Memory, Provider>();

/** The record store of a memory whose provider keeps records elsewhere; null for the built-in store. */
async function externalStore(deps: Deps, memory: Memory) {
  const provider = providerOfMemory.get(memory) ?? (await deps.db.provider.findUniqueOrThrow({ where: { id: memory.providerId } }));
  providerOfMemory.set(memory, provider);
  const records = providerType('memory', provider.type)?.records;
  if (!records) return null;
  const usable = providerForUse(deps, provider);
  const embed = await embedderFor(deps, memory);
  if (!embed) throw new AppError('failed_precondition', `a ${provider.type} memory needs an embedding_model`);
  return records.open({ config: usable.config, credential: usable.credential, extraHeaders: usable.extraHeaders, namespace: memory.namespace, cursorList: `records:${memory.id}`, embed });
}

async function checkEmbeddingModel(tx: Tx, workspaceId: string, key: string) {
  const model = await tx.model.findUnique({ where: { workspaceId_key: { workspaceId, key } } });
  if (!model) throw new AppError('not_found', `model ${quoteInput(key)} not found`, { field: 'embedding_model' });
  const provider = await tx.provider.findUniqueOrThrow({ where: { id: model.providerId } });
  if (!providerType('model', provider.type)?.embeddingModel) throw invalidArgument(`provider type ${provider.type} does not embed text`, 'embedding_model');
}

// ── records (the built-in provider; other providers plug in behind the same functions) ──

export interface Writer {
  principalId: string;
  principalName?: string | null;
  runId?: string | null;
  attemptId?: string | null;
  toolCallId?: string | null;
}

/** Run references stay null for writes that no run made; the principal's name is looked up when not given. */
async function writerStamp(deps: Deps, writer: Writer): Promise<WriterStamp> {
  return {
    attempt_id: writer.attemptId ?? null, confirmed_at: new Date().toISOString(), principal_id: writer.principalId,
    principal_name: writer.principalName ?? (await principalName(deps.db, writer.principalId)), run_id: writer.runId ?? null, tool_call_id: writer.toolCallId ?? null,
  };
}

/** A record as every store returns it (the REST and GraphQL "Memory record"). */
export type RecordView = StoredRecord;

function view(row: { id: string; text: string; updatedAt: Date; provenance: unknown }, score: number | null = null): RecordView {
  const provenance = (row.provenance ?? {}) as { created?: unknown; last_write?: unknown; created_text_digest?: string };
  const { created_text_digest: digest, ...rest } = provenance;
  return { id: row.id, text: row.text, score, updatedAt: row.updatedAt, provenance: { ...rest, content_matches: digest === canonicalize(row.text) } };
}

function validateText(text: unknown): string {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_TEXT) throw invalidArgument(`text must be 1 to ${MAX_TEXT} characters`, 'text');
  return text;
}

async function usableMemory(deps: Deps, actor: Actor, memoryId: string, write: boolean) {
  const memory = await getMemory(deps.db, actor, memoryId);
  if (write) requirePermission(actor, 'write');
  await checkProvider(deps, memory, write);
  return memory;
}

async function checkProvider(deps: Deps, memory: Memory, write: boolean) {
  const provider = providerOfMemory.get(memory) ?? (await deps.db.provider.findUniqueOrThrow({ where: { id: memory.providerId } }));
  if (!provider.enabled || (write && !memory.enabled)) throw new AppError('disabled', 'the memory or its provider is disabled');
  if (provider.type !== 'builtin' && !providerType('memory', provider.type)?.records) throw new AppError('failed_precondition', `records of ${provider.type} memories are not served yet`);
  providerOfMemory.set(memory, provider);
}

export async function listRecords(deps: Deps, actor: Actor, memoryId: string, args: { limit?: number | null; cursor?: string | null }) {
  const memory = await usableMemory(deps, actor, memoryId, false);
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const external = await externalStore(deps, memory);
  if (external) return external.list(size, args.cursor);
  // The provider's own cursor, handed through opaquely: for the built-in store, the last record id.
  const after = decodeCursor(`records:${memory.id}`, args.cursor);
  const rows = await deps.db.memoryRecord.findMany({
    where: { providerId: memory.providerId, namespace: memory.namespace, ...(after ? { id: { gt: String(after[0]) } } : {}) },
    orderBy: { id: 'asc' }, take: size + 1,
  });
  const page = toPage(rows, size, `records:${memory.id}`, (row) => [row.id]);
  return { items: page.items.map((row) => view(row)), nextCursor: page.nextCursor };
}

export async function writeRecord(deps: Deps, actor: Actor, memoryId: string, recordId: string | null, text: unknown, writer?: Writer) {
  const memory = await usableMemory(deps, actor, memoryId, true);
  const value = validateText(text);
  const id = recordId ?? newId('memoryRecord');
  if (id.length === 0 || id.length > MAX_RECORD_ID) throw invalidArgument(`record ids are 1 to ${MAX_RECORD_ID} characters`, 'record_id');
  const stamp = await writerStamp(deps, writer ?? { principalId: actor.principalId });
  const external = await externalStore(deps, memory);
  if (external) return external.write(id, value, stamp, recordId === null);
  const stampJson = JSON.stringify(stamp);
  const embedder = await embedderFor(deps, memory);
  const embedding = embedder ? await embedder(value) : [];
  // One statement: concurrent writers of one id serialise on its row and the last one wins; the
  // `created` provenance stays, `last_write` moves.
  const [row] = await deps.db.$queryRaw<{ id: string; text: string; updated_at: Date; provenance: unknown }[]>`
    INSERT INTO memory_records (provider_id, namespace, id, workspace_id, text, embedding, provenance, created_at, updated_at)
    VALUES (${memory.providerId}, ${memory.namespace}, ${id}, ${memory.workspaceId}, ${value}, ${embedding}::real[],
      jsonb_build_object('created', ${stampJson}::jsonb, 'last_write', ${stampJson}::jsonb, 'created_text_digest', ${canonicalize(value)}::text), now(), now())
    ON CONFLICT (provider_id, namespace, id) DO UPDATE SET text = EXCLUDED.text, embedding = EXCLUDED.embedding, updated_at = now(),
      provenance = memory_records.provenance || jsonb_build_object('last_write', ${stampJson}::jsonb)
    RETURNING id, text, updated_at, provenance`;
  return view({ id: row!.id, text: row!.text, updatedAt: row!.updated_at, provenance: row!.provenance });
}

/** Full-text matches ranked per search at most (see docs/api/memories.md, "Search"). */
export const LEXICAL_CANDIDATE_CAP = 200;
/** Matches of the spelling-corrected query considered at most, when full text found fewer records than asked for. */
export const FUZZY_CANDIDATE_CAP = 200;

type SearchMemory = Pick<Memory, 'providerId' | 'namespace'>;
interface ScoredRow {
  id: string;
  text: string;
  updated_at: Date;
  provenance: unknown;
  score: number;
}

// A search's text, and its distinct words for full text: plainto_tsquery ANDs every word, and a word
// repeated in the query makes the GIN index check it again for every match (`x x x` costs 3 × `x`).
interface LexicalQuery {
  text: string;
  words: string;
}
const lexicalQuery = (text: string): LexicalQuery => ({ text, words: [...new Set(text.toLowerCase().split(/\s+/).filter(Boolean))].join(' ') });

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
async function lexicalCandidates(deps: Deps, memory: SearchMemory, q: LexicalQuery, take: number, enough: number): Promise<ScoredRow[]> {
  // For full-text matches the score is greatest(rank, word similarity) (see lexicalScore).
  const found = await deps.db.$queryRaw<ScoredRow[]>`
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
  const corrected = await correctedQuery(deps, memory, q);
  if (!corrected) return found;
  const fuzzy = await deps.db.$queryRaw<ScoredRow[]>`
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
async function correctedQuery(deps: Deps, memory: SearchMemory, q: LexicalQuery): Promise<string | null> {
  const rows = await deps.db.$queryRaw<{ words: string[] }[]>`
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
async function scoredRows(deps: Deps, memory: SearchMemory, q: LexicalQuery | null, ids: string[]) {
  if (ids.length === 0) return [];
  return deps.db.$queryRaw<ScoredRow[]>`
    SELECT id, text, updated_at, provenance, ${q === null ? Prisma.sql`0` : lexicalScore(q)} AS score FROM memory_records
    WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace} AND id = ANY(${ids}::text[])`;
}

/** The memory's in-process vector index, brought up to date with the table (see lib/vector-index.ts). */
export async function vectorIndexFor(deps: Deps, memory: SearchMemory): Promise<VectorIndex> {
  let cache = vectorIndexes.get(deps);
  if (!cache) vectorIndexes.set(deps, (cache = new VectorIndexCache()));
  const [counter] = await deps.db.$queryRaw<{ version: bigint; reset_version: bigint }[]>`
    SELECT version, reset_version FROM memory_record_versions WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace}`;
  const changes = { version: Number(counter?.version ?? 0), resetVersion: Number(counter?.reset_version ?? 0) };
  return cache.get(`${memory.providerId}:${memory.namespace}`, changes, async (since) => {
    // Binary arrays: ~1.7× faster to load than real[] parsed from text (100k × 256: ~2 s, not ~3.5 s).
    const rows = await deps.db.$queryRaw<{ id: string; embedding: Uint8Array }[]>`
      SELECT id, array_send(embedding) AS embedding FROM memory_records
      WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace} AND seq > ${since}
      ORDER BY seq`;
    return rows.map((row) => ({ id: row.id, embedding: decodeFloat4Array(row.embedding) ?? [] }));
  });
}

export interface SearchArgs {
  query?: unknown;
  limit?: number | null;
  minScore?: number | null;
  /** Internal (benchmark, diagnostics): rank by one part alone; default hybrid (lexical alone without an embedding model). */
  mode?: 'hybrid' | 'lexical' | 'vector';
}

export async function searchRecords(deps: Deps, actor: Actor, memoryId: string, args: SearchArgs) {
  const memory = await getMemory(deps.db, actor, memoryId);
  if (typeof args.query !== 'string' || !args.query.trim() || args.query.length > 10_000) throw invalidArgument('query must be 1 to 10000 characters', 'query');
  const query = args.query;
  const limit = pageSize(args.limit, { default: 10, max: 100 });
  const minScore = args.minScore ?? 0.05;
  if (typeof minScore !== 'number' || minScore < 0 || minScore > 1) throw invalidArgument('min_score must be between 0 and 1', 'min_score');
  const external = await externalStore(deps, memory);
  if (external) {
    await checkProvider(deps, memory, false);
    return external.search(args.query, limit, minScore);
  }
  const candidates = limit * 4;
  const lexicalToo = args.mode !== 'vector';
  // Concurrently: the provider check, the lexical query, and the vector part (embedding the query,
  // the index's freshness check, exact top-k in process).
  const q = lexicalQuery(query);
  const vectorPart = async () => {
    if (args.mode === 'lexical') return null;
    const [embedder, index] = await Promise.all([embedderFor(deps, memory), vectorIndexFor(deps, memory)]);
    if (!embedder) return null;
    const vector = await embedder(query);
    const nearest = index.topK(vector, candidates);
    // The vector candidates' rows and lexical scores, while the lexical query may still be running.
    const rows = await scoredRows(deps, memory, lexicalToo ? q : null, nearest.map((v) => v.id));
    return { index, vector, nearest, rows };
  };
  const [, lexical, vector] = await Promise.all([
    checkProvider(deps, memory, false),
    lexicalToo ? lexicalCandidates(deps, memory, q, candidates, limit) : [],
    vectorPart(),
  ]);
  const rows = new Map<string, ScoredRow>(lexical.map((row) => [row.id, row]));
  let ranked: [string, number][];
  if (vector) {
    // Hybrid: the mean of the lexical score and the cosine similarity (clamped to [0, 1]), both exact
    // for every candidate: vector candidates get their lexical score by id, lexical candidates their
    // cosine from the index.
    for (const row of vector.rows) rows.set(row.id, row);
    const cosines = new Map(vector.nearest.map((v) => [v.id, v.cosine]));
    ranked = [...rows.values()].map((row) => {
      const cosine = Math.max(0, cosines.get(row.id) ?? vector.index.cosine(row.id, vector.vector));
      return [row.id, lexicalToo ? (Number(row.score) + cosine) / 2 : cosine];
    });
  } else {
    ranked = [...rows.values()].map((row) => [row.id, Number(row.score)]);
  }
  const best = ranked.filter(([, score]) => score >= minScore).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
  return {
    items: best.map(([id, score]) => {
      const row = rows.get(id)!;
      return view({ id, text: row.text, updatedAt: row.updated_at, provenance: row.provenance }, Math.round(score * 10_000) / 10_000);
    }),
    nextCursor: null,
  };
}
