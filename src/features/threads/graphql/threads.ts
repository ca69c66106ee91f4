// Threads: conversations inside a session, carrying the committed message history runs continue from.
import { builder } from '../../../graphql/builder.js';
import { documentScalar } from '../../../graphql/document-scalars.js';
import { resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, objectQuery, watchSubscription } from '../../../graphql/modules/query-fields.js';
import { asNode } from '../../../graphql/modules/node.js';
import { connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { archiveThread, createThread, getThread, listThreads, loadThreads, updateThread, validateMcpHeaders } from '../threads.js';

// A thread's headers for its MCP connections, checked as the service checks them (document-scalars.ts).
documentScalar('McpHeaders', {
  description: 'Headers a thread sends to MCP connections: connection id → header name → value.',
  check: validateMcpHeaders,
  field: 'mcp_headers',
});
import { ThreadOriginEnum, storedValue } from '../../../graphql/modules/enums.js';
import { withLabelList } from '../../../graphql/modules/labels.js';
import { watchThread } from '../thread-watch.js';
import { relation } from '../../../graphql/modules/relations.js';
import { childConnection } from '../../../graphql/modules/list-relations.js';
import { SessionRef } from './sessions.js';
import { sessionThreadPages } from '../../../services/relation-pages.js';

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
asNode(ThreadRef, { kind: 'thread', load: loadThreads });
withLabelList(ThreadRef);

export const ThreadConnection = connectionOf('Thread', ThreadRef);

const CreateThreadInput = builder.inputType('CreateThreadInput', {
  fields: (t) => ({ sessionId: t.string(), labels: t.field({ type: 'Labels' }), mcpHeaders: t.field({ type: 'McpHeaders' }) }),
});
const UpdateThreadInput = builder.inputType('UpdateThreadInput', {
  fields: (t) => ({ labels: t.field({ type: 'Labels' }), mcpHeaders: t.field({ type: 'McpHeaders' }) }),
});

objectQuery('thread', ThreadRef, getThread);
connectionQuery('threads', ThreadConnection, {
  description: 'At most 100 a page (default 50).',
  args: (arg) => ({ sessionId: arg.string(), label: arg.stringList(), archived: arg.boolean() }),
  list: listThreads,
});

const threadMutations = resourceMutations('thread', ThreadRef);
threadMutations.create(CreateThreadInput, createThread);
threadMutations.update(UpdateThreadInput, updateThread);
threadMutations.versionedAction('archive', archiveThread);

watchSubscription(
  'threadUpdated',
  ThreadRef,
  'threadId',
  watchThread,
  'Emits the thread as it is now, then whenever its row changes (version, current or last run, history, archive) or its inbox changes (an entry delivered, edited, incorporated, turned into a run, finished). Read permission; a thread of another workspace is not found.',
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
