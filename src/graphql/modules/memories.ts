import { builder } from '../builder.js';
import { payloadOf } from './payloads.js';
import { asNode, rowId } from './node.js';
import { loadMemories } from '../../services/nodes.js';
import { pageOf, VersionedRef } from './common.js';
import { withLabelList } from './labels.js';
import {
  createMemory,
  getMemory,
  listMemories,
  listRecords,
  searchRecords,
  updateMemory,
  writeRecord,
  type RecordView,
} from '../../services/memories.js';

const MemoryRef = builder.prismaObject('Memory', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    providerId: t.exposeString('providerId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    labels: t.expose('labels', { type: 'JSON' }),
    embeddingModel: t.string({ nullable: true, resolve: (m) => (m.config as { embedding_model?: string }).embedding_model ?? null }),
    enabled: t.exposeBoolean('enabled'),
  }),
});
asNode(MemoryRef, loadMemories, rowId);
withLabelList(MemoryRef);

const MemoryRecordRef = builder.objectRef<RecordView>('MemoryRecord').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    text: t.exposeString('text'),
    score: t.float({
      description: 'similarity to the query in [0, 1] in search results; 0 elsewhere (lists and writes)',
      resolve: (r) => r.score ?? 0,
    }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    provenance: t.field({ type: 'JSON', resolve: (r) => r.provenance }),
  }),
});

const MemoryPage = pageOf('MemoryPage', MemoryRef);
const MemoryRecordPage = pageOf('MemoryRecordPage', MemoryRecordRef);

const MemoryInput = builder.inputType('MemoryInput', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    labels: t.field({ type: 'JSON' }),
    providerId: t.string({ description: 'a memory provider; default: the built-in one' }),
    embeddingModel: t.string({ description: 'a model key for embeddings (optional)' }),
    enabled: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  memory: t.field({
    type: MemoryRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => getMemory(await ctx.call(), String(a.id)),
  }),
  memories: t.field({
    type: MemoryPage,
    args: { label: t.arg.stringList(), q: t.arg.string(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, a, ctx) => listMemories(await ctx.call(), a),
  }),
  memoryRecords: t.field({
    type: MemoryRecordPage,
    description: "Records in the memory provider's order; the cursor is the provider's own.",
    args: { memoryId: t.arg.id({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, a, ctx) => listRecords(await ctx.call(), String(a.memoryId), a),
  }),
}));

builder.mutationFields((t) => ({
  createMemory: t.field({
    type: payloadOf('createMemory', 'memory', MemoryRef),
    args: { input: t.arg({ type: MemoryInput, required: true }) },
    resolve: async (_r, a, ctx) => createMemory(await ctx.call(), a.input),
  }),
  updateMemory: t.field({
    type: payloadOf('updateMemory', 'memory', MemoryRef),
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: MemoryInput, required: true }) },
    resolve: async (_r, a, ctx) => updateMemory(await ctx.call(), String(a.id), a.ifMatch, a.input),
  }),
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
    type: payloadOf('searchMemoryRecords', 'records', MemoryRecordPage, 'the records found, most similar first'),
    description: 'Ordered by similarity; each record has a score in [0, 1].',
    args: { memoryId: t.arg.id({ required: true }), query: t.arg.string({ required: true }), limit: t.arg.int(), minScore: t.arg.float() },
    resolve: async (_r, a, ctx) => searchRecords(await ctx.call(), String(a.memoryId), a),
  }),
}));
