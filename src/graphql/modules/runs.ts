// Runs: one execution of an agent in a thread — start, read, list, lineage, label, cancel, resume,
// and the runStatus subscription. Items a run produces are in run-items.ts; deliveries in inbox.ts.
import type { AgentRevision } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { asNode, rowId } from './node.js';
import { loadRuns } from '../../services/nodes.js';
import { connectionArgs, connectionFrom, connectionOf, etagOf } from './common.js';
import { AgentRevisionRef } from './agents.js';
import { cancelRun, getRun, listRuns, runAgentView, runLineage, startRun, updateRunLabels } from '../../services/runs.js';
import { resumeRun } from '../../services/resume.js';
import { MAX_WAIT_SECONDS, checkWait, waitAfterListening, waitForRun, watchRun } from '../../services/run-watch.js';
import { RevisionSelectionEnum, RunLineageEnum, RunStatusEnum, RunTriggerEnum, WaitReasonEnum, storedValue } from './enums.js';

/** The `wait` argument of the run query and of the mutations that create runs (REST: `Prefer: wait=N`). */
export const WAIT_DESCRIPTION = `seconds to wait (at most ${MAX_WAIT_SECONDS}) for the run to be sealed or waiting; the run as it is when the time is up`;

export const RunRef = builder.prismaObject('Run', {
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    sessionId: t.exposeString('sessionId'),
    threadId: t.exposeString('threadId'),
    agentId: t.exposeString('agentId'),
    agentRevisionId: t.exposeString('agentRevisionId'),
    revisionSelection: t.field({ type: RevisionSelectionEnum, resolve: (r) => storedValue(RevisionSelectionEnum, r.revisionSelection) }),
    status: t.field({ type: RunStatusEnum, resolve: (r) => storedValue(RunStatusEnum, r.status) }),
    waitReason: t.field({ type: WaitReasonEnum, nullable: true, resolve: (r) => storedValue(WaitReasonEnum, r.waitReason) }),
    trigger: t.field({ type: RunTriggerEnum, resolve: (r) => storedValue(RunTriggerEnum, r.trigger) }),
    lineage: t.field({ type: RunLineageEnum, resolve: (r) => storedValue(RunLineageEnum, r.lineage) }),
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
asNode(RunRef, loadRuns, rowId);

export const RunConnection = connectionOf('Run', RunRef);

const RunAgentView = builder.objectRef<{ config: unknown; revision: AgentRevision }>('RunAgentView').implement({
  fields: (t) => ({
    config: t.field({
      type: 'JSON',
      description: "the revision's configuration with the run's overrides applied",
      resolve: (v) => v.config,
    }),
    revision: t.field({ type: AgentRevisionRef, resolve: (v) => v.revision }),
  }),
});

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
  run: t.field({
    type: RunRef,
    args: { id: t.arg.id({ required: true }), wait: t.arg.int({ description: WAIT_DESCRIPTION }) },
    resolve: async (_r, a, ctx) => {
      const wait = checkWait(a.wait);
      const call = await ctx.call();
      const id = String(a.id);
      return waitAfterListening(call, wait, ctx.signal, async (listening) => (await listening(id), getRun(call, id)));
    },
  }),
  runs: t.field({
    type: RunConnection,
    description: 'Newest first. At most 100 a page (default 50).',
    args: {
      agentId: t.arg.string(),
      sessionId: t.arg.string(),
      threadId: t.arg.string(),
      principalId: t.arg.string(),
      status: t.arg({ type: [RunStatusEnum] }),
      createdAfter: t.arg({ type: 'DateTime' }),
      createdBefore: t.arg({ type: 'DateTime' }),
      label: t.arg.stringList(),
      ...connectionArgs(t.arg),
    },
    resolve: async (_r, a, ctx) => connectionFrom(a, async (page) => listRuns(await ctx.call(), { ...a, ...page })),
  }),
  runLineage: t.field({
    type: RunConnection,
    description: 'The run and its ancestors, nearest first, across resume parents and fork origins. At most 100 a page (default 50).',
    args: { runId: t.arg.id({ required: true }), ...connectionArgs(t.arg) },
    resolve: async (_r, a, ctx) => connectionFrom(a, async (page) => runLineage(await ctx.call(), String(a.runId), page)),
  }),
  runAgent: t.field({
    type: RunAgentView,
    args: { runId: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => runAgentView(await ctx.call(), String(a.runId)),
  }),
}));

builder.mutationFields((t) => ({
  startRun: t.field({
    type: RunRef,
    description: 'Starts a run of an agent; opens a session and thread when none is named.',
    args: { input: t.arg({ type: StartRunInput, required: true }), wait: t.arg.int({ description: WAIT_DESCRIPTION }) },
    resolve: async (_r, a, ctx) => {
      const wait = checkWait(a.wait);
      const call = await ctx.call();
      return waitAfterListening(
        call,
        wait,
        ctx.signal,
        async (listening) => (await startRun(call, a.input, { beforeWrite: listening })).run,
      );
    },
  }),
  updateRun: t.field({
    type: RunRef,
    description: 'Changes labels only.',
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: UpdateRunInput, required: true }) },
    resolve: async (_r, a, ctx) => updateRunLabels(await ctx.call(), String(a.id), a.ifMatch, a.input.labels),
  }),
  cancelRun: t.field({
    type: RunRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => cancelRun(await ctx.call(), String(a.id)),
  }),
}));

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
      wait: t.arg.int({ description: WAIT_DESCRIPTION }),
    },
    resolve: async (_r, a, ctx) => {
      const wait = checkWait(a.wait);
      const call = await ctx.call();
      const successor = await resumeRun(call, String(a.runId), a.idempotencyKey, {
        approvals: a.approvals,
        calls: a.calls,
        input: a.input,
      });
      return waitForRun(call, successor, wait, ctx.signal);
    },
  }),
);

builder.subscriptionField('runStatus', (t) =>
  t.field({
    type: RunRef,
    description:
      'Emits the run as it is now, then whenever its row changes (status, pending, output); completes after the run is sealed or waiting (at once when it already is).',
    args: { runId: t.arg.id({ required: true }) },
    subscribe: async (_r, a, ctx) => watchRun(await ctx.call(), String(a.runId)),
    resolve: (run) => run,
  }),
);
