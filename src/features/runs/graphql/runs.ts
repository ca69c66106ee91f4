// Runs: one execution of an agent in a thread — start, read, list, lineage, label, cancel, resume,
// and the runStatus subscription. Items a run produces are in run-items.ts; deliveries in inbox.ts.
import type { AgentRevision } from '../../../generated/prisma/client.js';
import { builder } from '../../../graphql/builder.js';
import './run-documents.js';
import { payloadOf } from '../../../graphql/modules/payloads.js';
import { resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, watchSubscription } from '../../../graphql/modules/query-fields.js';
import { asNode } from '../../../graphql/modules/node.js';
import { connectionOf, etagOf } from '../../../graphql/modules/common.js';
import { AgentRevisionRef, AgentRef } from '../../agents/graphql/agents.js';
import { AgentConfigurationRef, DOCUMENT_DESCRIPTION, RunOptionsRef } from '../../agents/graphql/agent-config.js';
import { withLabelList } from '../../../graphql/modules/labels.js';
import { runOptionsSchema, type AgentConfig } from '../../agents/documents/config-schema.js';
import { cancelRun, getRun, listRuns, loadRuns, runAgentView, runLineage, startRun, updateRunLabels } from '../runs.js';
import { resumeRun } from '../resume.js';
import { MAX_WAIT_SECONDS, checkWait, waitAfterListening, waitForRun, watchRun } from '../run-watch.js';
import { readEnvironmentMounts, readFailure, readMemoryMounts, readPending, readResume, readUsage } from '../run-members.js';
import { EnvironmentMountRef, FailureRef, MemoryMountRef, RunPendingRef, RunResumeRef, RunUsageRef } from './run-members.js';
import type { ResolvedSkill } from '../run-skills.js';
import { readDocument } from '../../../lib/json-documents.js';
import {
  SkillSourceEnum,
  RevisionSelectionEnum,
  RunLineageEnum,
  RunStatusEnum,
  RunTriggerEnum,
  WaitReasonEnum,
  storedValue,
} from '../../../graphql/modules/enums.js';
import { nullableRelations, relation } from '../../../graphql/modules/relations.js';
import { childConnection } from '../../../graphql/modules/list-relations.js';
import { SessionRef } from '../../threads/graphql/sessions.js';
import { ThreadRef } from '../../threads/graphql/threads.js';
import { threadRunPages } from '../../../services/relation-pages.js';

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
    failure: t.field({
      type: FailureRef,
      nullable: true,
      description: 'how the run failed or was cancelled; null otherwise',
      resolve: (r) => readFailure(r.failure),
    }),
    labels: t.expose('labels', { type: 'JSON' }),
    environmentMounts: t.field({ type: [EnvironmentMountRef], resolve: (r) => readEnvironmentMounts(r.environmentMounts) }),
    memoryMounts: t.field({
      type: [MemoryMountRef],
      description: 'empty until the first attempt resolved the mounts of the agent configuration',
      resolve: (r) => readMemoryMounts(r.memoryMounts),
    }),
    options: t.field({ type: RunOptionsRef, resolve: (r) => readDocument(runOptionsSchema, r.options, 'runs.options') }),
    optionsDocument: t.expose('options', { type: 'JSON', description: `the options: ${DOCUMENT_DESCRIPTION}` }),
    pending: t.field({ type: RunPendingRef, resolve: (r) => readPending(r.pending) }),
    pendingDocument: t.expose('pending', {
      type: 'JSON',
      description: 'the pending document as stored (`{}` until the run is sealed or waits), as the REST view shows it; typed: `pending`',
    }),
    resume: t.field({
      type: RunResumeRef,
      nullable: true,
      description: 'null unless a resume created the run',
      resolve: (r) => readResume(r.resume),
    }),
    resumeDocument: t.expose('resume', {
      type: 'JSON',
      nullable: true,
      description: 'the resume batch as stored (answers keyed by tool call id), as the REST view shows it; typed: `resume`',
    }),
    usageAtSeal: t.field({
      type: RunUsageRef,
      nullable: true,
      description: 'what the last attempt used; null until a worker sealed the run (a run cancelled before it ran has none)',
      resolve: (r) => readUsage(r.usageAtSeal),
    }),
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
asNode(RunRef, { kind: 'run', load: loadRuns });
withLabelList(RunRef);

export const RunConnection = connectionOf('Run', RunRef);

const ResolvedSkillRef = builder.objectRef<ResolvedSkill>('ResolvedSkill').implement({
  description: 'A skill a run uses, as resolved when its first attempt was prepared.',
  fields: (t) => ({
    source: t.field({ type: SkillSourceEnum, resolve: (s) => storedValue(SkillSourceEnum, s.source) }),
    skillId: t.string({ nullable: true, description: 'null for a built-in skill', resolve: (s) => s.skill_id }),
    revisionId: t.string({ nullable: true, description: 'null for a built-in skill', resolve: (s) => s.revision_id }),
    name: t.exposeString('name', { description: 'the name the model knows the skill by' }),
  }),
});

const RunAgentView = builder
  .objectRef<{ config: AgentConfig; revision: AgentRevision; resolvedSkills: ResolvedSkill[] | null }>('RunAgentView')
  .implement({
    fields: (t) => ({
      config: t.field({
        type: AgentConfigurationRef,
        description: "the revision's configuration with the run's overrides applied",
        resolve: (v) => v.config,
      }),
      configDocument: t.field({
        type: 'JSON',
        description: `the configuration with the overrides applied: ${DOCUMENT_DESCRIPTION}`,
        resolve: (v) => v.config,
      }),
      revision: t.field({ type: AgentRevisionRef, resolve: (v) => v.revision }),
      resolvedSkills: t.field({
        type: [ResolvedSkillRef],
        nullable: true,
        description:
          'the skills the run uses, as resolved when its first attempt was prepared; null while a run with skills has not started',
        resolve: (v) => v.resolvedSkills,
      }),
    }),
  });

const StartRunInput = builder.inputType('StartRunInput', {
  fields: (t) => ({
    agentId: t.string({ required: true }),
    agentRevisionId: t.string({ description: 'pin this revision instead of the default one' }),
    input: t.field({ type: 'MessageContent', required: true }),
    options: t.field({ type: 'RunOptionsDocument' }),
    sessionId: t.string({ description: 'start in a new thread of this session' }),
    threadId: t.string({ description: 'continue this thread' }),
    labels: t.field({ type: 'Labels' }),
    environmentMounts: t.field({ type: 'EnvironmentMounts' }),
  }),
});
// The answers are maps keyed by the tool call ids the run's pending approvals and calls name, so
// they stay JSON: the REST body sends the same maps, and the service checks each key and value.
const ResumeRunInput = builder.inputType('ResumeRunInput', {
  fields: (t) => ({
    approvals: t.field({ type: 'JSON', description: 'tool_call_id → {action: approve|deny}' }),
    calls: t.field({ type: 'JSON', description: 'tool_call_id → {status: returned|error, value}' }),
    input: t.field({ type: 'MessageContent', description: 'optional' }),
  }),
});
const UpdateRunInput = builder.inputType('UpdateRunInput', { fields: (t) => ({ labels: t.field({ type: 'Labels', required: true }) }) });

connectionQuery('runs', RunConnection, {
  description: 'Newest first. At most 100 a page (default 50).',
  args: (arg) => ({
    agentId: arg.string(),
    sessionId: arg.string(),
    threadId: arg.string(),
    principalId: arg.string(),
    status: arg({ type: [RunStatusEnum] }),
    createdAfter: arg({ type: 'DateTime' }),
    createdBefore: arg({ type: 'DateTime' }),
    label: arg.stringList(),
  }),
  list: listRuns,
});
connectionQuery('runLineage', RunConnection, {
  description: 'The run and its ancestors, nearest first, across resume parents and fork origins. At most 100 a page (default 50).',
  args: (arg) => ({ runId: arg.id({ required: true }) }),
  list: (call, args) => runLineage(call, String(args.runId), args),
});

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
  runAgent: t.field({
    type: RunAgentView,
    args: { runId: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => runAgentView(await ctx.call(), String(a.runId)),
  }),
}));

builder.mutationFields((t) => ({
  startRun: t.field({
    type: payloadOf('startRun', 'run', RunRef, 'the new run (after the wait, when one was asked for)'),
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
    type: payloadOf('updateRun', 'run', RunRef),
    description: 'Changes labels only.',
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: UpdateRunInput, required: true }) },
    resolve: async (_r, a, ctx) => updateRunLabels(await ctx.call(), String(a.id), a.ifMatch, a.input.labels),
  }),
}));

resourceMutations('run', RunRef).action('cancel', cancelRun);

builder.mutationField('resumeRun', (t) =>
  t.field({
    type: payloadOf('resumeRun', 'run', RunRef, 'the successor run (after the wait, when one was asked for)'),
    description: 'Answers every pending approval and call of the waiting run; returns the successor run. Idempotent by key.',
    args: {
      runId: t.arg.id({ required: true }),
      idempotencyKey: t.arg.string({ required: false, description: 'required; 1–512 printable ASCII characters' }),
      input: t.arg({ type: ResumeRunInput, required: true }),
      wait: t.arg.int({ description: WAIT_DESCRIPTION }),
    },
    resolve: async (_r, a, ctx) => {
      const wait = checkWait(a.wait);
      const call = await ctx.call();
      const successor = await resumeRun(call, String(a.runId), a.idempotencyKey, {
        approvals: a.input.approvals,
        calls: a.input.calls,
        input: a.input.input,
      });
      return waitForRun(call, successor, wait, ctx.signal);
    },
  }),
);

watchSubscription(
  'runStatus',
  RunRef,
  'runId',
  watchRun,
  'Emits the run as it is now, then whenever its row changes (status, pending, output); completes after the run is sealed or waiting (at once when it already is).',
);

// A run's relations, and the thread's relations to runs (runs.ts imports threads.ts, so they are here).
relation(RunRef, 'agent', { type: AgentRef, id: (run) => run.agentId, description: 'the agent the run executes (agentId)' });
relation(RunRef, 'revision', {
  type: AgentRevisionRef,
  id: (run) => run.agentRevisionId,
  description: 'the agent revision the run executes (agentRevisionId)',
});
relation(RunRef, 'thread', { type: ThreadRef, id: (run) => run.threadId, description: 'the thread the run belongs to (threadId)' });
relation(RunRef, 'session', { type: SessionRef, id: (run) => run.sessionId, description: "the session of the run's thread (sessionId)" });
nullableRelations(RunRef, RunRef, {
  parent: [
    (run) => run.parentRunId,
    'the run this one resumes, was forked from, or was delegated by as a subagent (parentRunId); null for a root run',
  ],
  resumedBy: [(run) => run.resumedById, 'the successor run that answered this waiting run (resumedById); null until it is resumed'],
});
nullableRelations(ThreadRef, RunRef, {
  currentRun: [(thread) => thread.currentRunId, 'the run working on the thread now (currentRunId); null when none is'],
  originRun: [
    (thread) => thread.originRunId,
    'the run the thread was forked from, or whose subagent call opened it (originRunId); null for a new thread',
  ],
});

childConnection(ThreadRef, 'runs', {
  type: RunConnection,
  pages: threadRunPages,
  description: "The thread's runs, newest first: `runs(threadId:)` (its cursors too).",
});
