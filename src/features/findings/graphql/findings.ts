// Finding analyses and findings (docs/api/findings.md): start an analysis (Idempotency-Key), list
// analyses, list/read findings, and a reviewer's PATCH of a finding under If-Match.
import { builder } from '../../../graphql/builder.js';
import { asNode } from '../../../graphql/modules/node.js';
import { connectionArgs, connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { payloadOf } from '../../../graphql/modules/payloads.js';
import { resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, objectQuery } from '../../../graphql/modules/query-fields.js';
import { getFindingAnalysis, listFindingAnalyses, loadFindingAnalyses, startFindingAnalysis } from '../finding-analyses.js';
import { getFinding, listFindings, loadFindings, updateFinding } from '../findings.js';
import { byIds, relationConnection, RELATION_PAGE_DESCRIPTION } from '../../../graphql/modules/list-relations.js';
import { analysisFindingPages } from '../../../services/relation-pages.js';
import { analysisSelectedTraces, analysisSelection, findingEvidence, type Evidence, type Selection } from '../finding-documents.js';

const FindingEvidenceRef = builder.objectRef<Evidence>('FindingEvidence').implement({
  description: 'Where a finding was seen: a run, its trace and the spans that show the problem.',
  fields: (t) => ({
    runId: t.exposeString('run_id'),
    traceId: t.exposeString('trace_id'),
    spanIds: t.exposeStringList('span_ids'),
  }),
});

const FindingRef = builder.prismaObject('Finding', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    analysisId: t.exposeString('analysisId', { description: 'the analysis that last found it' }),
    agentId: t.exposeString('agentId'),
    agentRevisionId: t.exposeString('agentRevisionId', { nullable: true }),
    sourceRunId: t.exposeString('sourceRunId', { nullable: true }),
    sourceKey: t.exposeString('sourceKey', { description: 'names the problem: the same problem found again updates this finding' }),
    title: t.exposeString('title'),
    explanation: t.exposeString('explanation'),
    suggestion: t.exposeString('suggestion'),
    limitations: t.exposeString('limitations', { description: 'empty when unset' }),
    category: t.exposeString('category'),
    severity: t.exposeString('severity', { description: 'critical | high | medium | low | info' }),
    assessment: t.exposeString('assessment', { description: 'unreviewed | confirmed | not_a_problem | fixed | wont_fix' }),
    assessmentNote: t.exposeString('assessmentNote'),
    closed: t.exposeBoolean('closed'),
    evidence: t.field({ type: [FindingEvidenceRef], resolve: findingEvidence }),
  }),
});
asNode(FindingRef, { kind: 'finding', load: loadFindings });

export const FindingConnection = connectionOf('Finding', FindingRef);

const SelectedTraceRef = builder.objectRef<{ run_id: string; trace_id: string }>('SelectedTrace').implement({
  fields: (t) => ({ runId: t.exposeString('run_id'), traceId: t.exposeString('trace_id') }),
});

const FindingSelectionRef = builder.objectRef<Selection>('FindingSelection').implement({
  description: 'What an analysis read: the agent (as resolved), a trace, how many traces at most, the presets and the start bounds.',
  fields: (t) => ({
    agentId: t.string({ nullable: true, resolve: (s) => s.agent_id }),
    traceId: t.string({ nullable: true, resolve: (s) => s.trace_id }),
    maxTraces: t.int({ resolve: (s) => s.max_traces }),
    presets: t.stringList({ resolve: (s) => s.presets }),
    startedAfter: t.field({ type: 'DateTime', nullable: true, resolve: (s) => (s.started_after ? new Date(s.started_after) : null) }),
    startedBefore: t.field({ type: 'DateTime', nullable: true, resolve: (s) => (s.started_before ? new Date(s.started_before) : null) }),
  }),
});

export const FindingAnalysisRef = builder.prismaObject('FindingAnalysis', {
  fields: (t) => ({
    agentId: t.exposeString('agentId', { nullable: true, description: 'null when the workspace had no traced run to analyse' }),
    sessionId: t.exposeString('sessionId', { nullable: true, description: "the analysis agent's run; null when no agent ran" }),
    threadId: t.exposeString('threadId', { nullable: true }),
    runId: t.exposeString('runId', { nullable: true }),
    runStatus: t.exposeString('runStatus', { nullable: true }),
    findingCount: t.exposeInt('findingCount', { description: 'findings created or updated' }),
    citedTraceCount: t.exposeInt('citedTraceCount'),
    readTraceIds: t.exposeStringList('readTraceIds'),
    selectedTraces: t.field({ type: [SelectedTraceRef], resolve: analysisSelectedTraces }),
    selection: t.field({ type: FindingSelectionRef, resolve: analysisSelection }),
    selectionTruncated: t.exposeBoolean('selectionTruncated', { description: 'more traces matched than max_traces' }),
    createdById: t.exposeString('createdById'),
    updatedById: t.exposeString('updatedById'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});
asNode(FindingAnalysisRef, { kind: 'findingAnalysis', load: loadFindingAnalyses });

const FindingAnalysisConnection = connectionOf('FindingAnalysis', FindingAnalysisRef);

const StartFindingAnalysisInput = builder.inputType('StartFindingAnalysisInput', {
  description: 'Every member is optional; the empty object analyses the most recently active agent.',
  fields: (t) => ({
    agentId: t.string({ description: 'the agent whose runs to read' }),
    traceId: t.string({ description: 'read only this trace (32 hexadecimal digits)' }),
    maxTraces: t.int({ description: 'at most this many traces, newest first (1 to 100, default 10)' }),
    presets: t.stringList({ description: 'detector sets: execution (default), performance, all' }),
    startedAfter: t.field({ type: 'DateTime', description: 'only runs started after this (exclusive)' }),
    startedBefore: t.field({ type: 'DateTime', description: 'only runs started before this (exclusive)' }),
  }),
});

const UpdateFindingInput = builder.inputType('UpdateFindingInput', {
  fields: (t) => ({
    assessment: t.string({ description: 'unreviewed | confirmed | not_a_problem | fixed | wont_fix' }),
    assessmentNote: t.string({ description: 'at most 4000 characters; null clears it' }),
    closed: t.boolean(),
  }),
});

connectionQuery('findingAnalyses', FindingAnalysisConnection, {
  description: 'Newest first; first 1 to 100 (default 20).',
  list: listFindingAnalyses,
});
objectQuery('findingAnalysis', FindingAnalysisRef, getFindingAnalysis);
connectionQuery('findings', FindingConnection, {
  description: 'Newest first; first 1 to 100 (default 50). Filters must all match.',
  args: (arg) => ({ agentId: arg.string(), severity: arg.string(), category: arg.string(), closed: arg.boolean() }),
  list: listFindings,
});
objectQuery('finding', FindingRef, getFinding);

resourceMutations('finding', FindingRef).update(UpdateFindingInput, updateFinding, {
  description: "A reviewer's assessment, note and closed flag; If-Match required.",
});

builder.mutationField('startFindingAnalysis', (t) =>
  t.field({
    type: payloadOf('startFindingAnalysis', 'findingAnalysis', FindingAnalysisRef),
    description: 'Reads traces of an agent and records findings. Needs `write`; idempotent by key (required).',
    args: {
      idempotencyKey: t.arg.string({ description: 'required; 1–512 printable ASCII characters' }),
      input: t.arg({ type: StartFindingAnalysisInput }),
    },
    resolve: async (_r, a, ctx) => startFindingAnalysis(await ctx.call(), a.idempotencyKey, a.input ?? {}),
  }),
);

builder.objectField(FindingAnalysisRef, 'findings', (t) =>
  t.field({
    type: FindingConnection,
    description: `The findings this analysis created or updated, exactly, as they are now (a finding found again later names the later analysis in \`analysisId\` but stays listed here); newest first. ${RELATION_PAGE_DESCRIPTION}`,
    args: {
      change: t.arg.string({ description: 'created | updated: only the findings this analysis created, or only those it found again' }),
      ...connectionArgs(t.arg),
    },
    resolve: (analysis, args, ctx) =>
      relationConnection(args, ctx, analysis, 'analysis-findings', byIds(analysisFindingPages), { change: args.change ?? null }),
  }),
);
