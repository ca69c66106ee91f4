// Memories: collections of text records kept by a memory provider (the built-in one by default).
// Records carry no version — the last writer wins — and a provenance of who wrote them. This module
// keeps the memories (CRUD, permissions, audit) and picks the record store of a memory's provider;
// the stores themselves (built-in SQL and ranking, vector databases) are in src/memory-stores/.
import type { Prisma, Memory, Provider } from '../../generated/prisma/client.js';
import { pageSize, type Page } from '../../lib/cursor.js';
import { AppError, invalidArgument, notFound, quoteInput } from '../../lib/errors.js';
import { validateDescription, validateName } from '../../lib/text-fields.js';
import { newId } from '../../lib/ids.js';
import { validateLabels } from '../../lib/labels.js';
import { recordCreation } from '../audit/audit.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { namedPatchData } from '../../services/named-patch.js';
import { requirePermission } from '../access/permissions.js';
import { updateVersioned, type VersionedPatch, type VersionedTable } from '../../services/versioned.js';
import { providerForUse } from '../models/providers.js';
import { providerType } from '../../providers/index.js';
import type { RecordStore, SearchMode, StoredRecord, WriterStamp } from '../../memory-stores/record-store.js';
import { memoryConfig, memoryEmbedder } from './memory-embeddings.js';
import { principalName } from '../access/principals.js';
import { listQuery, NAME_AND_DESCRIPTION, newestFirst } from '../../services/list-query.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import { inCallersWorkspace } from '../../services/workspace-rows.js';

type Tx = Prisma.TransactionClient;

/** A memory's records list, as cursors name it. */
const recordsList = (memoryId: string) => `records:${memoryId}`;
const MAX_TEXT = 100_000;
const MAX_RECORD_ID = 256;

export async function getMemory(call: CallContext, id: string): Promise<Memory> {
  const { db, actor } = call;
  requirePermission(actor, 'read');
  return inCallersWorkspace(call, 'memory', id, await db.memory.findUnique({ where: { id } }));
}

/** The workspace's built-in memory provider, created on first need. */
async function builtinProvider(call: CallContext) {
  const { db: tx, actor } = call;
  const existing = await tx.provider.findFirst({
    where: { workspaceId: actor.workspaceId, kind: 'memory', type: 'builtin' },
    orderBy: { id: 'asc' },
  });
  if (existing) return existing;
  const created = await tx.provider.create({
    data: {
      id: newId('provider'),
      workspaceId: actor.workspaceId,
      kind: 'memory',
      type: 'builtin',
      name: 'Built-in memory',
      createdById: actor.principalId,
      updatedById: actor.principalId,
    },
  });
  await recordCreation(call, 'memory_provider', created.id, {});
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

export async function createMemory(call: CallContext, input: MemoryInput) {
  const { actor } = call;
  requirePermission(actor, 'write');
  const name = validateName(input.name);
  const labels = input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels);
  return inTransaction(call, async (bound) => {
    const tx = bound.db;
    let provider;
    if (input.providerId) {
      provider = await tx.provider.findUnique({ where: { id: input.providerId } });
      if (!provider || provider.workspaceId !== actor.workspaceId || provider.kind !== 'memory')
        throw new AppError('not_found', `memory provider ${quoteInput(input.providerId)} not found`, { field: 'provider_id' });
    } else provider = await builtinProvider(bound);
    if (!provider.enabled) throw new AppError('disabled', 'the memory provider is disabled');
    // A memory must be able to hold records: a provider of a type that serves none (Mem0, created while
    // that type was offered) takes no new memories.
    if (!providerType('memory', provider.type)?.records)
      throw invalidArgument(`${provider.type} memory providers do not serve records`, 'provider_id');
    if (!input.embeddingModel) refuseWithoutEmbeddings(provider);
    if (input.embeddingModel) await checkEmbeddingModel(tx, actor.workspaceId, input.embeddingModel);
    const id = newId('memory');
    const row = await tx.memory.create({
      data: {
        id,
        workspaceId: actor.workspaceId,
        providerId: provider.id,
        name,
        description: validateDescription(input.description),
        namespace: id,
        labels,
        config: input.embeddingModel ? { embedding_model: input.embeddingModel } : {},
        enabled: input.enabled ?? true,
        createdById: actor.principalId,
        updatedById: actor.principalId,
      },
    });
    await recordCreation(bound, 'memory', id, { name: { from: null, to: name }, provider_id: { from: null, to: provider.id } });
    return row;
  });
}

export async function listMemories(
  call: CallContext,
  args: { label?: readonly string[] | null; q?: string | null; limit?: number | null; cursor?: string | null },
) {
  const { actor } = call;
  requirePermission(actor, 'read');
  const query = listQuery(newestFirst('memories', { search: NAME_AND_DESCRIPTION }), call, args);
  const rows = await call.db.memory.findMany(query.findArgs());
  return query.page(rows);
}

const MEMORIES: VersionedTable<Memory> = { resourceKind: 'memory', read: getMemory, delegate: (bound) => bound.db.memory };

export const updateMemory: VersionedPatch<MemoryInput, Memory> = (call, id, ifMatch, patch) =>
  updateVersioned(call, MEMORIES, { permission: 'write', id, ifMatch }, async (bound, row) => {
    const tx = bound.db;
    const data = namedPatchData(patch);
    if (patch.providerId !== undefined && patch.providerId !== row.providerId)
      throw invalidArgument('a memory stays with its provider', 'provider_id');
    if (patch.embeddingModel !== undefined) {
      if (patch.embeddingModel) await checkEmbeddingModel(tx, bound.actor.workspaceId, patch.embeddingModel);
      else refuseWithoutEmbeddings(await tx.provider.findUniqueOrThrow({ where: { id: row.providerId } }));
      data.config = patch.embeddingModel ? { ...memoryConfig(row), embedding_model: patch.embeddingModel } : {};
    }
    return data;
  });

/** Memories of stores without a lexical part are searched by vector only: they need, and keep, an embedding model. */
function refuseWithoutEmbeddings(provider: Provider) {
  if (providerType('memory', provider.type)?.records?.embeddingModelRequired)
    throw invalidArgument(`a ${provider.type} memory needs an embedding_model`, 'embedding_model');
}

async function checkEmbeddingModel(tx: Tx, workspaceId: string, key: string) {
  const model = await tx.model.findUnique({ where: { workspaceId_key: { workspaceId, key } } });
  if (!model) throw new AppError('not_found', `model ${quoteInput(key)} not found`, { field: 'embedding_model' });
  const provider = await tx.provider.findUniqueOrThrow({ where: { id: model.providerId } });
  if (!providerType('model', provider.type)?.embeddingModel)
    throw invalidArgument(`provider type ${provider.type} does not embed text`, 'embedding_model');
}

// ── records: kept by the memory provider's record store (src/memory-stores/) ──

export interface Writer {
  principalId: string;
  principalName?: string | null;
  runId?: string | null;
  attemptId?: string | null;
  toolCallId?: string | null;
}

/** Run references stay null for writes that no run made; the principal's name is looked up when not given. */
async function writerStamp(call: CallContext, writer: Writer): Promise<WriterStamp> {
  return {
    attempt_id: writer.attemptId ?? null,
    confirmed_at: new Date().toISOString(),
    principal_id: writer.principalId,
    principal_name: writer.principalName ?? (await principalName(call, writer.principalId)),
    run_id: writer.runId ?? null,
    tool_call_id: writer.toolCallId ?? null,
  };
}

/** A record as every store returns it (the REST and GraphQL "Memory record"). */
export type RecordView = StoredRecord;
/** Who wrote a record: the `created` and `last_write` members of a record view's provenance. */
export type RecordWriterStamp = WriterStamp;

function validateText(text: unknown): string {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_TEXT)
    throw invalidArgument(`text must be 1 to ${MAX_TEXT} characters`, 'text');
  return text;
}

/**
 * The one dispatch: the record store of the memory's provider type, opened for the memory, once the
 * provider may be used (enabled; for writes the memory too) and serves records.
 */
async function recordStoreOf(call: CallContext, memory: Memory, write: boolean): Promise<RecordStore> {
  return storeOfProvider(call, memory, await call.db.provider.findUniqueOrThrow({ where: { id: memory.providerId } }), write);
}

/** `recordStoreOf` with the memory's provider row already read. */
function storeOfProvider(call: CallContext, memory: Memory, provider: Provider, write: boolean): RecordStore {
  if (!provider.enabled || (write && !memory.enabled)) throw new AppError('disabled', 'the memory or its provider is disabled');
  const records = providerType('memory', provider.type)?.records;
  if (!records) throw new AppError('failed_precondition', `records of ${provider.type} memories are not served yet`);
  const { deps } = call;
  const embed = memoryEmbedder(deps, memory);
  if (records.embeddingModelRequired && !embed)
    throw new AppError('failed_precondition', `a ${provider.type} memory needs an embedding_model`);
  const usable = providerForUse(deps, provider);
  return records.open({
    config: usable.config,
    credential: usable.credential,
    extraHeaders: usable.extraHeaders,
    fetch: usable.fetch,
    db: deps.db,
    providerId: provider.id,
    workspaceId: memory.workspaceId,
    namespace: memory.namespace,
    cursorList: recordsList(memory.id),
    embed,
    vectorIndexBudget: {
      maxMemories: deps.config.memoryIndexMaxMemories,
      maxBytes: deps.config.memoryIndexMaxBytes,
      waitMs: deps.config.memoryIndexWaitMs,
    },
  });
}

/** The memory (readable by the actor) and its record store. */
async function openRecords(call: CallContext, memoryId: string, write: boolean) {
  const memory = await getMemory(call, memoryId);
  if (write) requirePermission(call.actor, 'write');
  return recordStoreOf(call, memory, write);
}

export async function listRecords(call: CallContext, memoryId: string, args: { limit?: number | null; cursor?: string | null }) {
  const store = await openRecords(call, memoryId, false);
  return store.list(pageSize(args.limit, { default: 50, max: 100 }), args.cursor);
}

/**
 * `Memory.records` of many memories (rows already read, in the caller's workspace): their providers
 * in one statement, then the built-in provider's records of all of them in one more; an external
 * provider's memories one request each (a vector database lists one namespace at a time). Per memory,
 * in the order asked: its page, or why it has none (disabled, not served, a cursor of another memory).
 */
export async function memoryRecordPages(
  call: CallContext,
  memories: readonly Memory[],
  args: { limit?: number | null; cursor?: string | null },
): Promise<(Page<StoredRecord> | Error)[]> {
  requirePermission(call.actor, 'read');
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const providerIds = [...new Set(memories.map((memory) => memory.providerId))];
  const providers = new Map(
    (await call.db.provider.findMany({ where: { id: { in: providerIds }, workspaceId: call.actor.workspaceId } })).map((p) => [p.id, p]),
  );
  const pages: (Page<StoredRecord> | Error | undefined)[] = memories.map(() => undefined);
  const batched = new Map<NonNullable<NonNullable<ReturnType<typeof providerType>>['records']>, number[]>();
  const alone: Promise<void>[] = [];
  memories.forEach((memory, index) => {
    try {
      const provider = providers.get(memory.providerId);
      if (!provider) throw notFound('memory provider', memory.providerId);
      const records = providerType('memory', provider.type)?.records;
      if (records?.listMany && provider.enabled) {
        batched.set(records, [...(batched.get(records) ?? []), index]);
        return;
      }
      const store = storeOfProvider(call, memory, provider, false);
      alone.push(
        store.list(size, args.cursor).then(
          (page) => void (pages[index] = page),
          (error: Error) => void (pages[index] = error),
        ),
      );
    } catch (error) {
      pages[index] = error as Error;
    }
  });
  for (const [records, indexes] of batched) {
    const listings = indexes.map((index) => {
      const memory = memories[index]!;
      return { providerId: memory.providerId, namespace: memory.namespace, cursorList: recordsList(memory.id) };
    });
    const listed = await records.listMany!(call.deps.db, listings, size, args.cursor);
    indexes.forEach((index, at) => (pages[index] = listed[at]));
  }
  await Promise.all(alone);
  return pages as (Page<StoredRecord> | Error)[];
}

export async function writeRecord(call: CallContext, memoryId: string, recordId: string | null, text: unknown, writer?: Writer) {
  const { actor } = call;
  const store = await openRecords(call, memoryId, true);
  const value = validateText(text);
  const id = recordId ?? newId('memoryRecord');
  if (id.length === 0 || id.length > MAX_RECORD_ID) throw invalidArgument(`record ids are 1 to ${MAX_RECORD_ID} characters`, 'record_id');
  const stamp = await writerStamp(call, writer ?? { principalId: actor.principalId });
  return recordId === null ? store.add(id, value, stamp) : store.replace(id, value, stamp);
}

export interface SearchArgs {
  query?: unknown;
  limit?: number | null;
  minScore?: number | null;
  /** Internal (benchmark, diagnostics): rank by one part alone; default hybrid (lexical alone without an embedding model). */
  mode?: SearchMode;
}

export async function searchRecords(call: CallContext, memoryId: string, args: SearchArgs) {
  const memory = await getMemory(call, memoryId);
  if (typeof args.query !== 'string' || !args.query.trim() || args.query.length > 10_000)
    throw invalidArgument('query must be 1 to 10000 characters', 'query');
  const limit = pageSize(args.limit, { default: 10, max: 100 });
  const minScore = args.minScore ?? 0.05;
  if (typeof minScore !== 'number' || minScore < 0 || minScore > 1) throw invalidArgument('min_score must be between 0 and 1', 'min_score');
  const store = await recordStoreOf(call, memory, false);
  return store.search(args.query, { limit, minScore, mode: args.mode });
}

/** The names of the named memories of the caller's workspace, by id (memories of another workspace or gone are absent). */
export async function memoryNames(call: CallContext, ids: readonly string[]): Promise<Map<string, string>> {
  const memories = await call.db.memory.findMany({
    where: { workspaceId: call.actor.workspaceId, id: { in: [...ids] } },
    select: { id: true, name: true },
  });
  return new Map(memories.map((m) => [m.id, m.name]));
}
/** Memories by id for `node(id)` (src/services/nodes.ts). */
export const loadMemories: NodeRowsLoader<Memory> = (call, ids) => call.db.memory.findMany({ where: idsInWorkspace(call, ids) });
