// Threads: conversations inside a session, carrying the committed message history runs continue from.
import { builder } from '../builder.js';
import { payloadOf } from './payloads.js';
import { asNode } from './node.js';
import { ID_PREFIX } from '../../lib/ids.js';
import { connectionArgs, connectionFrom, connectionOf, VersionedRef } from './common.js';
import { archiveThread, createThread, getThread, listThreads, loadThreads, updateThread } from '../../services/threads.js';
import { ThreadOriginEnum, storedValue } from './enums.js';
import { withLabelList } from './labels.js';
import { watchThread } from '../../services/thread-watch.js';
import { relation } from './relations.js';
import { childConnection } from './list-relations.js';
import { SessionRef } from './sessions.js';
import { sessionThreadPages } from '../../services/relation-pages.js';

export const ThreadRef = builder.prismaObject('Thread', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    sessionId: t.exposeString('sessionId'),
    currentRunId: t.exposeString('currentRunId', { nullable: true }),
    lastRunId: t.exposeString('lastRunId', { nullable: true }),
    origin: t.field({ type: ThreadOriginEnum, resolve: (r) => storedValue(ThreadOriginEnum, r.origin) }),
    originRunId: t.exposeString('originRunId', { nullable: true }),
    originThreadId: t.exposeString('originThreadId', { nullable: true }),
    originToolCallId: t.exposeString('originToolCallId', { nullable: true }),
    subagent: t.exposeString('subagent', { nullable: true }),
    labels: t.expose('labels', { type: 'JSON' }),
    mcpHeaders: t.expose('mcpHeaders', { type: 'JSON' }),
    messageHistory: t.expose('messageHistory', { type: 'JSON' }),
    archivedAt: t.expose('archivedAt', { type: 'DateTime', nullable: true }),
  }),
});
asNode(ThreadRef, { prefix: ID_PREFIX.thread, load: loadThreads });
withLabelList(ThreadRef);

export const ThreadConnection = connectionOf('Thread', ThreadRef);

const CreateThreadInput = builder.inputType('CreateThreadInput', {
  fields: (t) => ({ sessionId: t.string(), labels: t.field({ type: 'JSON' }), mcpHeaders: t.field({ type: 'JSON' }) }),
});
const UpdateThreadInput = builder.inputType('UpdateThreadInput', {
  fields: (t) => ({ labels: t.field({ type: 'JSON' }), mcpHeaders: t.field({ type: 'JSON' }) }),
});

builder.queryFields((t) => ({
  thread: t.field({
    type: ThreadRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => getThread(await ctx.call(), String(a.id)),
  }),
  threads: t.field({
    type: ThreadConnection,
    description: 'At most 100 a page (default 50).',
    args: { sessionId: t.arg.string(), label: t.arg.stringList(), archived: t.arg.boolean(), ...connectionArgs(t.arg) },
    resolve: async (_r, a, ctx) => connectionFrom(a, async (page) => listThreads(await ctx.call(), { ...a, ...page })),
  }),
}));

builder.mutationFields((t) => ({
  createThread: t.field({
    type: payloadOf('createThread', 'thread', ThreadRef),
    args: { input: t.arg({ type: CreateThreadInput, required: true }) },
    resolve: async (_r, a, ctx) => createThread(await ctx.call(), a.input),
  }),
  updateThread: t.field({
    type: payloadOf('updateThread', 'thread', ThreadRef),
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: UpdateThreadInput, required: true }) },
    resolve: async (_r, a, ctx) => updateThread(await ctx.call(), String(a.id), a.ifMatch, a.input),
  }),
  archiveThread: t.field({
    type: payloadOf('archiveThread', 'thread', ThreadRef),
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, a, ctx) => archiveThread(await ctx.call(), String(a.id), a.ifMatch),
  }),
}));

builder.subscriptionField('threadUpdated', (t) =>
  t.field({
    type: ThreadRef,
    description:
      'Emits the thread as it is now, then whenever its row changes (version, current or last run, history, archive) or its inbox changes (an entry delivered, edited, incorporated, turned into a run, finished). Read permission; a thread of another workspace is not found.',
    args: { threadId: t.arg.id({ required: true }) },
    subscribe: async (_r, a, ctx) => watchThread(await ctx.call(), String(a.threadId)),
    resolve: (thread) => thread,
  }),
);

// Relations between threads and sessions (threads.ts imports sessions.ts, so both directions are here).
relation(ThreadRef, 'session', {
  type: SessionRef,
  id: (thread) => thread.sessionId,
  description: 'the session the thread belongs to (sessionId)',
});

childConnection(SessionRef, 'threads', {
  type: ThreadConnection,
  pages: sessionThreadPages,
  description: "The session's threads, newest first: `threads(sessionId:)` (its cursors too).",
});
