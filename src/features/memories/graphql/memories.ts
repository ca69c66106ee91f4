import { builder } from '../../../graphql/builder.js';
import { payloadOf } from '../../../graphql/modules/payloads.js';
import { resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, objectQuery } from '../../../graphql/modules/query-fields.js';
import { asNode } from '../../../graphql/modules/node.js';
import { connectionArgs, connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { nameAndLabelInputs, withNamedResourceFields } from '../../../graphql/modules/named-fields.js';
import { memoryConfig } from '../memory-embeddings.js';
import {
  loadMemories,
  createMemory,
  getMemory,
  listMemories,
  listRecords,
  searchRecords,
  updateMemory,
  writeRecord,
  type RecordView,
  type RecordWriterStamp,
  memoryRecordPages,
} from '../memories.js';
import { relationConnection } from '../../../graphql/modules/list-relations.js';

const MemoryRef = builder.prismaObject('Memory', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    providerId: t.exposeString('providerId'),
    embeddingModel: t.string({ nullable: true, resolve: (m) => memoryConfig(m).embedding_model ?? null }),
    enabled: t.exposeBoolean('enabled'),
  }),
});
asNode(MemoryRef, { kind: 'memory', load: loadMemories });
withNamedResourceFields(MemoryRef);

type Stamp = Partial<Record<keyof RecordWriterStamp, string | null>>;
const str = (value: unknown) => (typeof value === 'string' ? value : null);

const WriterStampRef = builder.objectRef<Stamp>('MemoryWriterStamp').implement({
  description: 'Who wrote a record and from where (a run and its tool call, when a run wrote it).',
  fields: (t) => ({
    principalId: t.string({ nullable: true, resolve: (w) => str(w.principal_id) }),
    principalName: t.string({
      nullable: true,
      description: "the principal's name at the time of the write",
      resolve: (w) => str(w.principal_name),
    }),
    confirmedAt: t.string({ nullable: true, description: 'when the write was confirmed (ISO 8601)', resolve: (w) => str(w.confirmed_at) }),
    runId: t.string({ nullable: true, resolve: (w) => str(w.run_id) }),
    attemptId: t.string({ nullable: true, resolve: (w) => str(w.attempt_id) }),
    toolCallId: t.string({ nullable: true, resolve: (w) => str(w.tool_call_id) }),
  }),
});

type ProvenanceView = { created?: Stamp | null; last_write?: Stamp | null; content_matches?: boolean };
const stampOf = (value: unknown): Stamp | null => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Stamp) : null);

const ProvenanceRef = builder.objectRef<ProvenanceView>('MemoryRecordProvenance').implement({
  description:
    "Who created the record and who wrote it last (null for records another tool wrote), and whether its text is still the text it was created with. A store's stamp may lack members (written by another tool): those are null.",
  fields: (t) => ({
    created: t.field({ type: WriterStampRef, nullable: true, resolve: (p) => stampOf(p.created) }),
    lastWrite: t.field({ type: WriterStampRef, nullable: true, resolve: (p) => stampOf(p.last_write) }),
    contentMatches: t.boolean({ resolve: (p) => p.content_matches === true }),
  }),
});

const MemoryRecordRef = builder.objectRef<RecordView>('MemoryRecord').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    text: t.exposeString('text'),
    score: t.float({
      description: 'similarity to the query in [0, 1] in search results; 0 elsewhere (lists and writes)',
      resolve: (r) => r.score ?? 0,
    }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    provenance: t.field({ type: ProvenanceRef, resolve: (r) => (r.provenance ?? {}) as ProvenanceView }),
    provenanceDocument: t.field({
      type: 'JSON',
      description: 'the provenance exactly as the REST view shows it (snake_case members); typed: `provenance`',
      resolve: (r) => r.provenance,
    }),
  }),
});

const MemoryConnection = connectionOf('Memory', MemoryRef);
export const MemoryRecordConnection = connectionOf('MemoryRecord', MemoryRecordRef);

const MemoryInput = builder.inputType('MemoryInput', {
  fields: (t) => ({
    ...nameAndLabelInputs(t),
    providerId: t.string({ description: 'a memory provider; default: the built-in one' }),
    embeddingModel: t.string({ description: 'a model key for embeddings (optional)' }),
    enabled: t.boolean(),
  }),
});

objectQuery('memory', MemoryRef, getMemory);
connectionQuery('memories', MemoryConnection, {
  description: 'At most 100 a page (default 50).',
  args: (arg) => ({ label: arg.stringList(), q: arg.string() }),
  list: listMemories,
});
connectionQuery('memoryRecords', MemoryRecordConnection, {
  description: "Records in the memory provider's order; the cursors wrap the provider's own. At most 100 a page (default 50).",
  args: (arg) => ({ memoryId: arg.id({ required: true }) }),
  list: (call, args) => listRecords(call, String(args.memoryId), args),
});

const memoryMutations = resourceMutations('memory', MemoryRef);
memoryMutations.create(MemoryInput, createMemory);
memoryMutations.update(MemoryInput, updateMemory);

builder.mutationFields((t) => ({
  addMemoryRecord: t.field({
    type: payloadOf('addMemoryRecord', 'record', MemoryRecordRef),
    args: { memoryId: t.arg.id({ required: true }), text: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => writeRecord(await ctx.call(), String(a.memoryId), null, a.text),
  }),
  replaceMemoryRecord: t.field({
    type: payloadOf('replaceMemoryRecord', 'record', MemoryRecordRef),
    description: 'Replaces (or creates) the record with this id; the last writer wins.',
    args: { memoryId: t.arg.id({ required: true }), recordId: t.arg.string({ required: true }), text: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => writeRecord(await ctx.call(), String(a.memoryId), a.recordId, a.text),
  }),
  searchMemoryRecords: t.field({
    type: builder.objectRef<RecordView[]>('SearchMemoryRecordsPayload').implement({
      description: 'The result of `searchMemoryRecords`.',
      fields: (p) => ({
        records: p.field({ type: [MemoryRecordRef], description: 'the records found, most similar first', resolve: (records) => records }),
      }),
    }),
    description:
      'Ordered by similarity, best first; each record has a score in [0, 1]. One page, not a connection: `limit` (1 to 100, default 10) is how many.',
    args: { memoryId: t.arg.id({ required: true }), query: t.arg.string({ required: true }), limit: t.arg.int(), minScore: t.arg.float() },
    resolve: async (_r, a, ctx) => searchRecords(await ctx.call(), String(a.memoryId), a),
  }),
}));

builder.objectField(MemoryRef, 'records', (t) =>
  t.field({
    type: MemoryRecordConnection,
    description:
      "The memory's records in its provider's order: `memoryRecords(memoryId:)` (its cursors too). At most 100 a page (default 50); the built-in provider's records of all the memories of a level in one statement, an external provider's with one request per memory.",
    args: connectionArgs(t.arg),
    resolve: (memory, args, ctx) => relationConnection(args, ctx, memory, 'memory-records', memoryRecordPages, {}),
  }),
);
