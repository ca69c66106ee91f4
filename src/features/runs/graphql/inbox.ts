// The inbox of a thread: deliveries (message, steer, queue, interrupt), edits of pending entries,
// and forks of a run into a new thread of its session.
import { builder } from '../../../graphql/builder.js';
import { payloadName } from '../../../graphql/modules/payloads.js';
import { asNode } from '../../../graphql/modules/node.js';
import { connectionArgs, connectionOf } from '../../../graphql/modules/common.js';
import { connectionQuery } from '../../../graphql/modules/query-fields.js';
import { RunRef, WAIT_DESCRIPTION } from './runs.js';
import { checkWait, waitForDelivery, type DeliveryAnswer } from '../run-watch.js';
import type { GraphQLContext } from '../../../graphql/context.js';
import type { CallContext } from '../../../services/call-context.js';
import { ThreadRef } from '../../threads/graphql/threads.js';
import {
  deliverToInbox,
  forkRun,
  getInboxEntry,
  listInbox,
  loadInboxEntries,
  updateInboxEntry,
  type DeliveryResult,
  type InboxEntryView,
} from '../inbox.js';
import { readFailure } from '../run-members.js';
import { FailureRef } from './run-members.js';
import { DOCUMENT_DESCRIPTION, RunOptionsRef } from '../../agents/graphql/agent-config.js';
import { runOptionsSchema } from '../../agents/documents/config-schema.js';
import { InboxDeliveryModeEnum, InboxEntryKindEnum, InboxEntryStatusEnum, storedValue } from '../../../graphql/modules/enums.js';
import { nullableRelations } from '../../../graphql/modules/relations.js';
import { byIds, relationConnection, RELATION_PAGE_DESCRIPTION } from '../../../graphql/modules/list-relations.js';
import { threadInboxPages } from '../../../services/relation-pages.js';
import { readDocument } from '../../../lib/json-documents.js';

export const InboxEntryRef = builder.prismaObject('InboxEntry', {
  fields: (t) => ({
    threadId: t.exposeString('threadId'),
    kind: t.field({ type: InboxEntryKindEnum, resolve: (r) => storedValue(InboxEntryKindEnum, r.kind) }),
    delivery: t.field({ type: InboxDeliveryModeEnum, resolve: (r) => storedValue(InboxDeliveryModeEnum, r.delivery) }),
    status: t.field({ type: InboxEntryStatusEnum, resolve: (r) => storedValue(InboxEntryStatusEnum, r.status) }),
    position: t.exposeInt('position'),
    payload: t.expose('payload', { type: 'JSON' }),
    options: t.field({
      type: RunOptionsRef,
      description: "the options the entry's run starts with",
      resolve: (e) => readDocument(runOptionsSchema, e.options, 'runs.options'),
    }),
    optionsDocument: t.expose('options', { type: 'JSON', description: `the options: ${DOCUMENT_DESCRIPTION}` }),
    agentId: t.exposeString('agentId', { nullable: true }),
    agentRevisionId: t.exposeString('agentRevisionId', { nullable: true }),
    assignedRunId: t.exposeString('assignedRunId', { nullable: true }),
    childRunId: t.exposeString('childRunId', { nullable: true }),
    originRunId: t.exposeString('originRunId', { nullable: true }),
    principalId: t.exposeString('principalId'),
    incorporatedCheckpointSeq: t.int({
      description:
        'the number of model requests the run had made when the entry joined it; 0 until the entry is incorporated (a steer joins at a model request after the first, so it is at least 1)',
      resolve: (entry) => entry.incorporatedCheckpointSeq ?? 0,
    }),
    failure: t.field({
      type: FailureRef,
      nullable: true,
      description: 'how the entry failed (its run failed, or it could not start one); null otherwise',
      resolve: (entry) => readFailure(entry.failure, 'inbox_entries.failure'),
    }),
    createdById: t.exposeString('principalId'),
    updatedById: t.exposeString('principalId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    // Every service path that returns entries attaches it (see InboxEntryView).
    threadEtag: t.string({
      description:
        "the ETag of the entry's thread: an edit of the entry names it in ifMatch (REST: the ETag header of GET …/inbox/{entry_id})",
      resolve: (entry) => (entry as InboxEntryView).threadEtag,
    }),
  }),
});
asNode(InboxEntryRef, { kind: 'inboxEntry', load: loadInboxEntries });
export const InboxEntryConnection = connectionOf('InboxEntry', InboxEntryRef);

// What a delivery, an edit of an entry and a fork answer: an interface (the REST views select it with
// one fragment), implemented by each mutation's own payload.
const InboxDeliveryRef = builder.interfaceRef<DeliveryAnswer>('InboxDelivery').implement({
  description: 'What a delivery to a thread answers: the entry, the run it started or joins, and the thread.',
  fields: (t) => ({
    waited: t.boolean({
      description:
        'whether the `wait` argument was applied: only a delivery that started a run of its own waits for it; one that queued, steered or interrupted answers at once',
      resolve: (r) => r.waited ?? false,
    }),
    entry: t.field({ type: InboxEntryRef, resolve: (r) => r.entry }),
    run: t.field({
      type: RunRef,
      nullable: true,
      description: 'the run the entry started, or the active run it joins or waits for',
      resolve: (r) => r.run,
    }),
    thread: t.field({ type: ThreadRef, resolve: (r) => r.thread }),
  }),
});

const DeliverInput = builder.inputType('DeliverInput', {
  fields: (t) => ({
    kind: t.field({ type: InboxEntryKindEnum, description: 'message (default)' }),
    delivery: t.field({ type: InboxDeliveryModeEnum, description: 'queue (default)' }),
    payload: t.field({ type: 'MessageContent', required: true }),
    agentId: t.string({ description: "default: the thread's last run's agent" }),
    agentRevisionId: t.string(),
    options: t.field({ type: 'RunOptionsDocument' }),
  }),
});
const UpdateEntryInput = builder.inputType('UpdateInboxEntryInput', {
  fields: (t) => ({
    payload: t.field({ type: 'MessageContent' }),
    options: t.field({ type: 'RunOptionsDocument' }),
    delivery: t.field({ type: InboxDeliveryModeEnum }),
  }),
});
const ForkInput = builder.inputType('ForkRunInput', {
  fields: (t) => ({
    agentId: t.string(),
    payload: t.field({ type: 'MessageContent', required: true }),
    options: t.field({ type: 'RunOptionsDocument' }),
  }),
});

connectionQuery('inboxEntries', InboxEntryConnection, {
  description: 'In inbox order. At most 100 a page (default 50).',
  args: (arg) => ({ threadId: arg.id({ required: true }), status: arg({ type: [InboxEntryStatusEnum] }) }),
  list: (call, args) => listInbox(call, String(args.threadId), args),
});

builder.queryFields((t) => ({
  inboxEntry: t.field({
    type: InboxEntryRef,
    args: { threadId: t.arg.id({ required: true }), entryId: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => getInboxEntry(await ctx.call(), String(a.threadId), String(a.entryId)),
  }),
}));

/** The payload of one of the mutations that answer a delivery. */
const deliveryPayload = (mutation: string) =>
  builder.objectRef<DeliveryAnswer>(payloadName(mutation)).implement({
    description: `The result of \`${mutation}\`.`,
    interfaces: [InboxDeliveryRef],
  });

/**
 * Checks the `wait` argument (before anything is written), makes the delivery with the caller's call
 * context, then answers it after waiting for its run as `wait` asks.
 */
async function deliverThenWait(
  ctx: GraphQLContext,
  waitArgument: number | null | undefined,
  deliver: (call: CallContext) => Promise<DeliveryResult>,
): Promise<DeliveryAnswer> {
  const wait = checkWait(waitArgument);
  const call = await ctx.call();
  return waitForDelivery(call, await deliver(call), wait, ctx.signal);
}

builder.mutationFields((t) => ({
  deliverToInbox: t.field({
    type: deliveryPayload('deliverToInbox'),
    args: {
      threadId: t.arg.id({ required: true }),
      idempotencyKey: t.arg.string(),
      input: t.arg({ type: DeliverInput, required: true }),
      wait: t.arg.int({ description: WAIT_DESCRIPTION }),
    },
    resolve: async (_r, a, ctx) =>
      deliverThenWait(ctx, a.wait, (call) => deliverToInbox(call, String(a.threadId), a.input, a.idempotencyKey)),
  }),
  updateInboxEntry: t.field({
    type: deliveryPayload('updateInboxEntry'),
    description: "Edits a pending entry; ifMatch names the thread's ETag.",
    args: {
      threadId: t.arg.id({ required: true }),
      entryId: t.arg.id({ required: true }),
      ifMatch: t.arg.string(),
      input: t.arg({ type: UpdateEntryInput, required: true }),
    },
    resolve: async (_r, a, ctx) => updateInboxEntry(await ctx.call(), String(a.threadId), String(a.entryId), a.ifMatch, a.input),
  }),
  forkRun: t.field({
    type: deliveryPayload('forkRun'),
    description: "A new thread of the run's session continuing from its committed history.",
    args: {
      runId: t.arg.id({ required: true }),
      idempotencyKey: t.arg.string(),
      input: t.arg({ type: ForkInput, required: true }),
      wait: t.arg.int({ description: WAIT_DESCRIPTION }),
    },
    resolve: async (_r, a, ctx) => deliverThenWait(ctx, a.wait, (call) => forkRun(call, String(a.runId), a.idempotencyKey, a.input)),
  }),
}));

nullableRelations(InboxEntryRef, RunRef, {
  assignedRun: [(entry) => entry.assignedRunId, 'the run the entry was assigned to (assignedRunId); null while it waits in the queue'],
  childRun: [(entry) => entry.childRunId, "the latest subagent run the entry's run started (childRunId); null when it delegated nothing"],
});

builder.objectField(ThreadRef, 'inbox', (t) =>
  t.field({
    type: InboxEntryConnection,
    description: `The thread's inbox in inbox order: \`inboxEntries(threadId:)\` (its cursors too). ${RELATION_PAGE_DESCRIPTION}`,
    args: { status: t.arg({ type: [InboxEntryStatusEnum] }), ...connectionArgs(t.arg) },
    resolve: (thread, args, ctx) =>
      relationConnection(args, ctx, thread, 'thread-inbox', byIds(threadInboxPages), { status: args.status ? [...args.status] : null }),
  }),
);
