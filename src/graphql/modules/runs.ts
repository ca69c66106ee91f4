import { builder } from '../builder.js';
import { etagOf, pageOf, VersionedRef } from './common.js';
import { AgentRevisionRef } from './agents.js';
import { cancelRun, getRun, listRuns, runAgentView, runLineage, startRun, updateRunLabels } from '../../services/runs.js';
import {
  archiveThread, createSession, createThread, getSession, getThread, listSessions, listThreads, updateSession, updateThread,
} from '../../services/threads.js';
import { requirePermission } from '../../services/permissions.js';
import { listRunItems, streamRunItems, type ItemView } from '../../services/run-items.js';
import { resumeRun } from '../../services/resume.js';
import { deliverToInbox, forkRun, getInboxEntry, listInbox, updateInboxEntry, type DeliveryResult, type InboxEntryView } from '../../services/inbox.js';

export const SessionRef = builder.prismaObject('Session', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    id: t.exposeID('id'),
    workspaceId: t.exposeString('workspaceId'),
    title: t.exposeString('title'),
    labels: t.expose('labels', { type: 'JSON' }),
      }),
});

export const ThreadRef = builder.prismaObject('Thread', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    id: t.exposeID('id'),
    workspaceId: t.exposeString('workspaceId'),
    sessionId: t.exposeString('sessionId'),
    currentRunId: t.exposeString('currentRunId', { nullable: true }),
    lastRunId: t.exposeString('lastRunId', { nullable: true }),
    origin: t.exposeString('origin'),
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

export const RunRef = builder.prismaObject('Run', {
  fields: (t) => ({
    id: t.exposeID('id'),
    workspaceId: t.exposeString('workspaceId'),
    sessionId: t.exposeString('sessionId'),
    threadId: t.exposeString('threadId'),
    agentId: t.exposeString('agentId'),
    agentRevisionId: t.exposeString('agentRevisionId'),
    revisionSelection: t.exposeString('revisionSelection'),
    status: t.exposeString('status'),
    waitReason: t.exposeString('waitReason', { nullable: true }),
    trigger: t.exposeString('trigger'),
    lineage: t.exposeString('lineage'),
    parentRunId: t.exposeString('parentRunId', { nullable: true }),
    sourceEntryId: t.exposeString('sourceEntryId', { nullable: true }),
    principalId: t.exposeString('principalId'),
    resumedById: t.exposeString('resumedById', { nullable: true }),
    attempts: t.exposeInt('attempts'),
    maxAttempts: t.exposeInt('maxAttempts'),
    currentAttemptId: t.exposeString('currentAttemptId', { nullable: true }),
    displayPosition: t.exposeString('displayPosition'),
    input: t.expose('input', { type: 'JSON' }),
    output: t.expose('output', { type: 'JSON', nullable: true }),
    failure: t.expose('failure', { type: 'JSON', nullable: true }),
    labels: t.expose('labels', { type: 'JSON' }),
    environmentMounts: t.expose('environmentMounts', { type: 'JSON' }),
    memoryMounts: t.expose('memoryMounts', { type: 'JSON' }),
    options: t.expose('options', { type: 'JSON' }),
    pending: t.expose('pending', { type: 'JSON' }),
    resume: t.expose('resume', { type: 'JSON', nullable: true }),
    usageAtSeal: t.expose('usageAtSeal', { type: 'JSON', nullable: true }),
    version: t.exposeInt('version'),
    etag: t.string({ resolve: etagOf }),
    createdById: t.exposeString('principalId'),
    updatedById: t.exposeString('principalId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    sealedAt: t.expose('sealedAt', { type: 'DateTime', nullable: true }),
    cancelRequestedAt: t.expose('cancelRequestedAt', { type: 'DateTime', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const SessionPage = pageOf('SessionPage', SessionRef);
const ThreadPage = pageOf('ThreadPage', ThreadRef);
const RunPage = pageOf('RunPage', RunRef);

const RunAgentView = builder.objectRef<{ config: unknown; revision: any }>('RunAgentView').implement({
  fields: (t) => ({
    config: t.field({ type: 'JSON', description: "the revision's configuration with the run's overrides applied", resolve: (v) => v.config }),
    revision: t.field({ type: AgentRevisionRef, resolve: (v) => v.revision }),
  }),
});

const SessionInput = builder.inputType('SessionInput', { fields: (t) => ({ title: t.string(), labels: t.field({ type: 'JSON' }) }) });
const CreateThreadInput = builder.inputType('CreateThreadInput', {
  fields: (t) => ({ sessionId: t.string(), labels: t.field({ type: 'JSON' }), mcpHeaders: t.field({ type: 'JSON' }) }),
});
const UpdateThreadInput = builder.inputType('UpdateThreadInput', { fields: (t) => ({ labels: t.field({ type: 'JSON' }), mcpHeaders: t.field({ type: 'JSON' }) }) });
const StartRunInput = builder.inputType('StartRunInput', {
  fields: (t) => ({
    agentId: t.string({ required: true }),
    agentRevisionId: t.string({ description: 'pin this revision instead of the default one' }),
    input: t.field({ type: 'JSON', required: true, description: '{"content": [{"type": "text", "text": "…"}]}' }),
    options: t.field({ type: 'JSON', description: 'run options: configuration, labels, max_usage, overrides' }),
    sessionId: t.string({ description: 'start in a new thread of this session' }),
    threadId: t.string({ description: 'continue this thread' }),
    labels: t.field({ type: 'JSON' }),
  }),
});
const UpdateRunInput = builder.inputType('UpdateRunInput', { fields: (t) => ({ labels: t.field({ type: 'JSON', required: true }) }) });

builder.queryFields((t) => ({
  session: t.field({ type: SessionRef, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, a, ctx) => getSession(ctx.deps, await ctx.actor(), String(a.id)) }),
  sessions: t.field({
    type: SessionPage, args: { label: t.arg.stringList(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, a, ctx) => listSessions(ctx.deps, await ctx.actor(), a),
  }),
  thread: t.field({ type: ThreadRef, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, a, ctx) => getThread(ctx.deps, await ctx.actor(), String(a.id)) }),
  threads: t.field({
    type: ThreadPage, args: { sessionId: t.arg.string(), label: t.arg.stringList(), archived: t.arg.boolean(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, a, ctx) => listThreads(ctx.deps, await ctx.actor(), a),
  }),
  run: t.field({ type: RunRef, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, a, ctx) => getRun(ctx.deps.db, await ctx.actor(), String(a.id)) }),
  runs: t.field({
    type: RunPage,
    args: {
      agentId: t.arg.string(), sessionId: t.arg.string(), threadId: t.arg.string(), principalId: t.arg.string(), status: t.arg.stringList(),
      createdAfter: t.arg({ type: 'DateTime' }), createdBefore: t.arg({ type: 'DateTime' }), label: t.arg.stringList(), limit: t.arg.int(), cursor: t.arg.string(),
    },
    resolve: async (_r, a, ctx) => listRuns(ctx.deps, await ctx.actor(), a),
  }),
  runLineage: t.field({
    type: RunPage, description: 'The run and its ancestors, nearest first, across resume parents and fork origins.',
    args: { runId: t.arg.id({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, a, ctx) => runLineage(ctx.deps, await ctx.actor(), String(a.runId), a),
  }),
  runAgent: t.field({ type: RunAgentView, args: { runId: t.arg.id({ required: true }) }, resolve: async (_r, a, ctx) => runAgentView(ctx.deps, await ctx.actor(), String(a.runId)) }),
}));

builder.mutationFields((t) => ({
  createSession: t.field({ type: SessionRef, args: { input: t.arg({ type: SessionInput, required: true }) }, resolve: async (_r, a, ctx) => createSession(ctx.deps, await ctx.actor(), a.input) }),
  updateSession: t.field({
    type: SessionRef, args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: SessionInput, required: true }) },
    resolve: async (_r, a, ctx) => updateSession(ctx.deps, await ctx.actor(), String(a.id), a.ifMatch, a.input),
  }),
  createThread: t.field({ type: ThreadRef, args: { input: t.arg({ type: CreateThreadInput, required: true }) }, resolve: async (_r, a, ctx) => createThread(ctx.deps, await ctx.actor(), a.input) }),
  updateThread: t.field({
    type: ThreadRef, args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: UpdateThreadInput, required: true }) },
    resolve: async (_r, a, ctx) => updateThread(ctx.deps, await ctx.actor(), String(a.id), a.ifMatch, a.input),
  }),
  archiveThread: t.field({
    type: ThreadRef, args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, a, ctx) => archiveThread(ctx.deps, await ctx.actor(), String(a.id), a.ifMatch),
  }),
  startRun: t.field({
    type: RunRef, description: 'Starts a run of an agent; opens a session and thread when none is named.',
    args: { input: t.arg({ type: StartRunInput, required: true }) },
    resolve: async (_r, a, ctx) => (await startRun(ctx.deps, await ctx.actor(), a.input, ctx.requestId)).run,
  }),
  updateRun: t.field({
    type: RunRef, description: 'Changes labels only.', args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: UpdateRunInput, required: true }) },
    resolve: async (_r, a, ctx) => updateRunLabels(ctx.deps, await ctx.actor(), String(a.id), a.ifMatch, a.input.labels),
  }),
  cancelRun: t.field({ type: RunRef, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, a, ctx) => cancelRun(ctx.deps, await ctx.actor(), String(a.id)) }),
}));

builder.subscriptionField('runStatus', (t) =>
  t.field({
    type: RunRef,
    description: 'Emits the run whenever its row changes (status, pending, output).',
    args: { runId: t.arg.id({ required: true }) },
    subscribe: async (_r, a, ctx) => {
      const actor = await ctx.actor();
      requirePermission(actor, 'read');
      await getRun(ctx.deps.db, actor, String(a.runId));
      return ctx.deps.events.subscribe('runChanged', String(a.runId));
    },
    resolve: (run) => run,
  }),
);

const RunItemRef = builder.objectRef<ItemView>('RunItem').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    ordinal: t.exposeInt('ordinal'),
    kind: t.exposeString('kind'),
    state: t.exposeString('state'),
    content: t.field({ type: 'JSON', resolve: (item) => item.content }),
    contentRefs: t.field({ type: 'JSON', resolve: (item) => item.contentRefs }),
    firstStreamId: t.exposeString('firstStreamId', { nullable: true }),
    lastStreamId: t.exposeString('lastStreamId', { nullable: true }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
  }),
});

const RunItemsResponse = builder.objectRef<Awaited<ReturnType<typeof listRunItems>>>('RunItemsResponse').implement({
  fields: (t) => ({
    baseline: t.exposeBoolean('baseline'),
    complete: t.exposeBoolean('complete'),
    items: t.field({ type: [RunItemRef], resolve: (r) => r.items }),
    position: t.exposeString('position'),
    resumeAfter: t.exposeString('resumeAfter'),
    run: t.field({ type: RunRef, resolve: (r) => r.run }),
    continuation: t.field({ type: 'JSON', resolve: (r) => r.continuation }),
  }),
});

builder.queryField('runItems', (t) =>
  t.field({
    type: RunItemsResponse,
    description: 'Items by ordinal. With neither before nor after: the newest items, always with the live tail.',
    args: { runId: t.arg.id({ required: true }), before: t.arg.int(), after: t.arg.int(), limit: t.arg.int() },
    resolve: async (_r, a, ctx) => listRunItems(ctx.deps, await ctx.actor(), String(a.runId), a),
  }),
);

builder.subscriptionField('runItems', (t) =>
  t.field({
    type: RunItemRef,
    description: 'Replays items after `after` (an ordinal), then live changes; completes when the run is sealed or waiting. Reconnect with `position` (the highest lastStreamId received) to get every later change exactly once.',
    args: { runId: t.arg.id({ required: true }), after: t.arg.int(), position: t.arg.string() },
    subscribe: async (_r, a, ctx) => streamRunItems(ctx.deps, await ctx.actor(), String(a.runId), a.after ?? 0, a.position ?? null),
    resolve: (item) => item,
  }),
);

builder.mutationField('resumeRun', (t) =>
  t.field({
    type: RunRef,
    description: 'Answers every pending approval and call of the waiting run; returns the successor run. Idempotent by key.',
    args: {
      runId: t.arg.id({ required: true }),
      idempotencyKey: t.arg.string({ required: false, description: 'required; 1–512 printable ASCII characters' }),
      approvals: t.arg({ type: 'JSON', description: 'tool_call_id → {action: approve|deny}' }),
      calls: t.arg({ type: 'JSON', description: 'tool_call_id → {status: returned|error, value}' }),
      input: t.arg({ type: 'JSON', description: 'optional {content: [{type: text, text}]}' }),
    },
    resolve: async (_r, a, ctx) => resumeRun(ctx.deps, await ctx.actor(), String(a.runId), a.idempotencyKey, { approvals: a.approvals, calls: a.calls, input: a.input }),
  }),
);

const InboxEntryRef = builder.prismaObject('InboxEntry', {
  fields: (t) => ({
    id: t.exposeID('id'),
    threadId: t.exposeString('threadId'),
    kind: t.exposeString('kind'),
    delivery: t.exposeString('delivery'),
    status: t.exposeString('status'),
    position: t.exposeInt('position'),
    payload: t.expose('payload', { type: 'JSON' }),
    options: t.expose('options', { type: 'JSON' }),
    agentId: t.exposeString('agentId', { nullable: true }),
    agentRevisionId: t.exposeString('agentRevisionId', { nullable: true }),
    assignedRunId: t.exposeString('assignedRunId', { nullable: true }),
    childRunId: t.exposeString('childRunId', { nullable: true }),
    originRunId: t.exposeString('originRunId', { nullable: true }),
    principalId: t.exposeString('principalId'),
    incorporatedCheckpointSeq: t.int({
      description: 'the number of model requests the run had made when the entry joined it; 0 until the entry is incorporated (a steer joins at a model request after the first, so it is at least 1)',
      resolve: (entry) => entry.incorporatedCheckpointSeq ?? 0,
    }),
    failure: t.expose('failure', { type: 'JSON', nullable: true }),
    createdById: t.exposeString('principalId'),
    updatedById: t.exposeString('principalId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    // Every service path that returns entries attaches it (see InboxEntryView).
    threadEtag: t.string({
      description: "the ETag of the entry's thread: an edit of the entry names it in ifMatch (REST: the ETag header of GET …/inbox/{entry_id})",
      resolve: (entry) => (entry as InboxEntryView).threadEtag,
    }),
  }),
});
const InboxEntryPage = pageOf('InboxEntryPage', InboxEntryRef);

const DeliveryResultRef = builder.objectRef<DeliveryResult>('InboxDelivery').implement({
  fields: (t) => ({
    entry: t.field({ type: InboxEntryRef, resolve: (r) => r.entry }),
    run: t.field({ type: RunRef, nullable: true, description: 'the run the entry started, or the active run it joins or waits for', resolve: (r) => r.run }),
    thread: t.field({ type: ThreadRef, resolve: (r) => r.thread }),
  }),
});

const DeliverInput = builder.inputType('DeliverInput', {
  fields: (t) => ({
    kind: t.string({ description: 'message (default)' }),
    delivery: t.string({ description: 'steer | queue (default) | interrupt' }),
    payload: t.field({ type: 'JSON', required: true, description: '{"content": [{"type": "text", "text": "…"}]}' }),
    agentId: t.string({ description: "default: the thread's last run's agent" }),
    agentRevisionId: t.string(),
    options: t.field({ type: 'JSON' }),
  }),
});
const UpdateEntryInput = builder.inputType('UpdateInboxEntryInput', {
  fields: (t) => ({ payload: t.field({ type: 'JSON' }), options: t.field({ type: 'JSON' }), delivery: t.string() }),
});
const ForkInput = builder.inputType('ForkRunInput', {
  fields: (t) => ({ agentId: t.string(), payload: t.field({ type: 'JSON', required: true }), options: t.field({ type: 'JSON' }) }),
});

builder.queryFields((t) => ({
  inboxEntries: t.field({
    type: InboxEntryPage, description: 'In inbox order.',
    args: { threadId: t.arg.id({ required: true }), status: t.arg.stringList(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, a, ctx) => listInbox(ctx.deps, await ctx.actor(), String(a.threadId), a),
  }),
  inboxEntry: t.field({
    type: InboxEntryRef, args: { threadId: t.arg.id({ required: true }), entryId: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => getInboxEntry(ctx.deps, await ctx.actor(), String(a.threadId), String(a.entryId)),
  }),
}));

builder.mutationFields((t) => ({
  deliverToInbox: t.field({
    type: DeliveryResultRef,
    args: { threadId: t.arg.id({ required: true }), idempotencyKey: t.arg.string(), input: t.arg({ type: DeliverInput, required: true }) },
    resolve: async (_r, a, ctx) => deliverToInbox(ctx.deps, await ctx.actor(), String(a.threadId), a.input, a.idempotencyKey),
  }),
  updateInboxEntry: t.field({
    type: DeliveryResultRef, description: "Edits a pending entry; ifMatch names the thread's ETag.",
    args: { threadId: t.arg.id({ required: true }), entryId: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: UpdateEntryInput, required: true }) },
    resolve: async (_r, a, ctx) => updateInboxEntry(ctx.deps, await ctx.actor(), String(a.threadId), String(a.entryId), a.ifMatch, a.input),
  }),
  forkRun: t.field({
    type: DeliveryResultRef, description: "A new thread of the run's session continuing from its committed history.",
    args: { runId: t.arg.id({ required: true }), idempotencyKey: t.arg.string(), input: t.arg({ type: ForkInput, required: true }) },
    resolve: async (_r, a, ctx) => forkRun(ctx.deps, await ctx.actor(), String(a.runId), a.idempotencyKey, a.input),
  }),
}));
