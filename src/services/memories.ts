// Memories: collections of text records kept by a memory provider (the built-in one by default).
// Records carry no version — the last writer wins — and a provenance of who wrote them.
import type { Memory, Provider } from '../generated/prisma/client.js';
import type { Prisma } from '../db.js';
import { canonicalize } from '../lib/canonical-json.js';
import { decodeCursor, pageSize, toPage } from '../lib/cursor.js';
import { AppError, invalidArgument, notFound } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { labelsWhere, parseLabelSelectors, validateLabels } from '../lib/labels.js';
import { recordAudit } from './audit.js';
import type { Actor, Deps } from './deps.js';
import { requirePermission } from './permissions.js';
import { changeVersioned } from './versioned.js';
import { embed } from 'ai';
import { VectorIndexCache, topK } from '../lib/vector-index.js';
import { providerForUse } from './providers.js';
import { providerType } from '../providers/index.js';

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

function validateName(name: unknown) {
  if (typeof name !== 'string' || !name.trim() || name.length > 200) throw invalidArgument('name must be 1 to 200 characters', 'name');
  return name;
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
      if (!provider || provider.workspaceId !== actor.workspaceId || provider.kind !== 'memory') throw new AppError('not_found', `memory provider ${JSON.stringify(input.providerId)} not found`, { field: 'provider_id' });
    } else provider = await builtinProvider(tx, actor);
    if (!provider.enabled) throw new AppError('disabled', 'the memory provider is disabled');
    if (!input.embeddingModel && providerType('memory', provider.type)?.records?.embeddingModelRequired) throw invalidArgument(`a ${provider.type} memory needs an embedding_model`, 'embedding_model');
    if (input.embeddingModel) await checkEmbeddingModel(tx, actor.workspaceId, input.embeddingModel);
    const id = newId('memory');
    const row = await tx.memory.create({
      data: {
        id, workspaceId: actor.workspaceId, providerId: provider.id, name, description: typeof input.description === 'string' ? input.description : '',
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
    if (patch.description !== undefined) data.description = typeof patch.description === 'string' ? patch.description : '';
    if (patch.labels !== undefined) data.labels = validateLabels(patch.labels ?? {});
    if (patch.enabled !== undefined && patch.enabled !== null) data.enabled = patch.enabled;
    if (patch.providerId !== undefined && patch.providerId !== row.providerId) throw invalidArgument('a memory stays with its provider', 'provider_id');
    if (patch.embeddingModel !== undefined) {
      if (patch.embeddingModel) await checkEmbeddingModel(tx, actor.workspaceId, patch.embeddingModel);
      else await requireEmbeddings(tx, row);
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
  const model = await deps.db.model.findUnique({ where: { workspaceId_key: { workspaceId: memory.workspaceId, key } } });
  if (!model) throw new AppError('failed_precondition', `the embedding model ${JSON.stringify(key)} is gone`);
  const provider = await deps.db.provider.findUniqueOrThrow({ where: { id: model.providerId } });
  const usable = providerForUse(deps, provider);
  if (!model.enabled) throw new AppError('disabled', `the embedding model ${JSON.stringify(key)} is disabled`);
  if (!usable.type.embeddingModel) throw new AppError('failed_precondition', `provider type ${provider.type} does not embed text`);
  const embeddingModel = usable.type.embeddingModel({ config: usable.config, credential: usable.credential, extraHeaders: usable.extraHeaders }, model);
  return async (text: string) => {
    const { embedding } = await embed({ model: embeddingModel, value: text, maxRetries: 1 });
    const norm = Math.hypot(...embedding) || 1;
    return embedding.map((value) => value / norm);
  };
}

/** Memories of external stores are searched by vector only: their embedding model stays. */
async function requireEmbeddings(tx: Tx, memory: Memory) {
  const provider = await tx.provider.findUniqueOrThrow({ where: { id: memory.providerId } });
  if (providerType('memory', provider.type)?.records?.embeddingModelRequired) throw invalidArgument(`a ${provider.type} memory needs an embedding_model`, 'embedding_model');
}

/** The provider row `usableMemory` read, so that the dispatch to a store needs no second read. */
const providerOfMemory = new WeakMap<Memory, Provider>();

/** The record store of a memory whose provider keeps records elsewhere; null for the built-in store. */
async function externalStore(deps: Deps, memory: Memory) {
  const provider = providerOfMemory.get(memory) ?? (await deps.db.provider.findUniqueOrThrow({ where: { id: memory.providerId } }));
  const records = providerType('memory', provider.type)?.records;
  if (!records) return null;
  const usable = providerForUse(deps, provider);
  const embed = await embedderFor(deps, memory);
  if (!embed) throw new AppError('failed_precondition', `a ${provider.type} memory needs an embedding_model`);
  return records.open({ config: usable.config, credential: usable.credential, extraHeaders: usable.extraHeaders, namespace: memory.namespace, cursorList: `records:${memory.id}`, embed });
}

async function checkEmbeddingModel(tx: Tx, workspaceId: string, key: string) {
  const model = await tx.model.findUnique({ where: { workspaceId_key: { workspaceId, key } } });
  if (!model) throw new AppError('not_found', `model ${JSON.stringify(key)} not found`, { field: 'embedding_model' });
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

function writerStamp(writer: Writer) {
  return {
    attempt_id: writer.attemptId ?? null, confirmed_at: new Date().toISOString(), principal_id: writer.principalId,
    principal_name: writer.principalName ?? null, run_id: writer.runId ?? null, tool_call_id: writer.toolCallId ?? null,
  };
}

export interface RecordView {
  id: string;
  text: string;
  score: number | null;
  updatedAt: Date;
  provenance: Record<string, unknown>;
}

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
  const provider = await deps.db.provider.findUniqueOrThrow({ where: { id: memory.providerId } });
  if (!provider.enabled || (write && !memory.enabled)) throw new AppError('disabled', 'the memory or its provider is disabled');
  if (provider.type !== 'builtin' && !providerType('memory', provider.type)?.records) throw new AppError('failed_precondition', `records of ${provider.type} memories are not served yet`);
  providerOfMemory.set(memory, provider);
  return memory;
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
  const stamp = writerStamp(writer ?? { principalId: actor.principalId });
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

export async function searchRecords(deps: Deps, actor: Actor, memoryId: string, args: { query?: unknown; limit?: number | null; minScore?: number | null }) {
  const memory = await usableMemory(deps, actor, memoryId, false);
  if (typeof args.query !== 'string' || !args.query.trim() || args.query.length > 10_000) throw invalidArgument('query must be 1 to 10000 characters', 'query');
  const limit = pageSize(args.limit, { default: 10, max: 100 });
  const minScore = args.minScore ?? 0.05;
  if (typeof minScore !== 'number' || minScore < 0 || minScore > 1) throw invalidArgument('min_score must be between 0 and 1', 'min_score');
  const external = await externalStore(deps, memory);
  if (external) return external.search(args.query, limit, minScore);
  const candidates = limit * 4;
  // Lexical score in [0, 1]: full-text rank (normalised rank/(rank+1)) and trigram similarity for
  // short or misspelled queries — whichever says more.
  const lexical = await deps.db.$queryRaw<{ id: string; score: number }[]>`
    SELECT id, greatest(ts_rank_cd(to_tsvector('simple', text), plainto_tsquery('simple', ${args.query}), 32), word_similarity(${args.query}, text)) AS score
    FROM memory_records
    WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace}
      AND (to_tsvector('simple', text) @@ plainto_tsquery('simple', ${args.query}) OR ${args.query} <% text)
    ORDER BY score DESC, id
    LIMIT ${candidates}`;
  const scores = new Map<string, number>(lexical.map((row) => [row.id, Number(row.score)]));
  const embedder = await embedderFor(deps, memory);
  if (embedder) {
    // Hybrid: exact cosine over the memory's vectors (in-process index), fused with the lexical
    // score as their mean, cosine clamped to [0, 1].
    const [freshness] = await deps.db.$queryRaw<{ count: number; latest: Date | null }[]>`
      SELECT count(*)::int AS count, max(updated_at) AS latest FROM memory_records WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace}`;
    let cache = vectorIndexes.get(deps);
    if (!cache) vectorIndexes.set(deps, (cache = new VectorIndexCache()));
    const index = await cache.get(`${memory.providerId}:${memory.namespace}`, `${freshness?.count ?? 0}:${freshness?.latest ? new Date(freshness.latest).toISOString() : ''}`, () =>
      deps.db.memoryRecord.findMany({ where: { providerId: memory.providerId, namespace: memory.namespace }, select: { id: true, embedding: true } }),
    );
    const vector = topK(index, await embedder(args.query), candidates);
    const fused = new Map<string, number>();
    for (const id of new Set([...scores.keys(), ...vector.map((v) => v.id)])) {
      const cosine = Math.max(0, vector.find((v) => v.id === id)?.cosine ?? 0);
      fused.set(id, ((scores.get(id) ?? 0) + cosine) / 2);
    }
    scores.clear();
    for (const [id, score] of fused) scores.set(id, score);
  }
  const best = [...scores.entries()].filter(([, score]) => score >= minScore).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
  const rows = await deps.db.memoryRecord.findMany({ where: { providerId: memory.providerId, namespace: memory.namespace, id: { in: best.map(([id]) => id) } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return {
    items: best.filter(([id]) => byId.has(id)).map(([id, score]) => view(byId.get(id)!, Math.round(score * 10_000) / 10_000)),
    nextCursor: null,
  };
}
