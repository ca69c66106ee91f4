// GraphQL `runStats` (the dashboards' run aggregates; the service: ../run-stats.ts) and `runsChanged`
// (every run of the caller's workspace as it is accepted or changes: the dashboard's live runs).
import { builder } from '../../../graphql/builder.js';
import { requirePermission } from '../../access/permissions.js';
import { MAX_BUCKETS, STATS_BUCKETS, STATS_MAX_RANGE_DAYS } from '../../../lib/stats-range.js';
import { runStats, TOP_AGENTS, TOP_CODES, type RunStats, type RunStatsBucket, type StatusCount } from '../run-stats.js';
import { RunRef } from './runs.js';

const StatusCountRef = builder.objectRef<StatusCount>('RunStatusCount').implement({
  fields: (t) => ({ status: t.exposeString('status'), runs: t.exposeInt('runs') }),
});

const RunStatsBucketRef = builder.objectRef<RunStatsBucket>('RunStatsBucket').implement({
  description: 'The runs created in one bucket (UTC).',
  fields: (t) => ({
    start: t.field({ type: 'DateTime', resolve: (bucket) => bucket.start }),
    runs: t.exposeInt('runs'),
    statuses: t.field({
      type: [StatusCountRef],
      description: 'runs by status now, statuses without runs left out',
      resolve: (b) => b.statuses,
    }),
    durationP50Ms: t.exposeFloat('durationP50Ms', { nullable: true, description: 'median duration (start to seal) of its sealed runs' }),
    durationP95Ms: t.exposeFloat('durationP95Ms', { nullable: true }),
  }),
});

const FailureCodeRef = builder.objectRef<RunStats['failureCodes'][number]>('RunFailureCodeCount').implement({
  fields: (t) => ({ code: t.exposeString('code'), runs: t.exposeInt('runs') }),
});

const AgentCountRef = builder.objectRef<RunStats['busiestAgents'][number]>('RunAgentCount').implement({
  fields: (t) => ({
    agentId: t.exposeID('agentId'),
    name: t.exposeString('name'),
    runs: t.exposeInt('runs'),
    failed: t.exposeInt('failed'),
  }),
});

const RunStatsRef = builder.objectRef<RunStats>('RunStats').implement({
  description: 'Runs of the workspace over a time range, computed in SQL.',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', resolve: (stats) => stats.from }),
    to: t.field({ type: 'DateTime', resolve: (stats) => stats.to }),
    bucket: t.exposeString('bucket', { description: STATS_BUCKETS.join(' | ') }),
    runs: t.exposeInt('runs'),
    statuses: t.field({ type: [StatusCountRef], resolve: (stats) => stats.statuses }),
    failureRate: t.exposeFloat('failureRate', { nullable: true, description: 'failed runs among sealed ones; null when none sealed' }),
    durationP50Ms: t.exposeFloat('durationP50Ms', { nullable: true }),
    durationP95Ms: t.exposeFloat('durationP95Ms', { nullable: true }),
    buckets: t.field({
      type: [RunStatsBucketRef],
      description: 'every bucket of the range in order, empty ones too',
      resolve: (s) => s.buckets,
    }),
    failureCodes: t.field({
      type: [FailureCodeRef],
      description: `the ${TOP_CODES} most frequent failure codes`,
      resolve: (s) => s.failureCodes,
    }),
    busiestAgents: t.field({
      type: [AgentCountRef],
      description: `the ${TOP_AGENTS} agents with most runs`,
      resolve: (s) => s.busiestAgents,
    }),
  }),
});

builder.queryFields((t) => ({
  runStats: t.field({
    type: RunStatsRef,
    description:
      `Runs created in [from, to) (at most ${STATS_MAX_RANGE_DAYS} days apart), counted by UTC bucket and status, with duration ` +
      `percentiles, failure codes and the busiest agents. With agentId, that agent's runs; with model, those of the runs ` +
      `whose sealed attempts used the model. At most ${MAX_BUCKETS} buckets.`,
    args: {
      from: t.arg({ type: 'DateTime', required: true }),
      to: t.arg({ type: 'DateTime', required: true }),
      bucket: t.arg.string({ description: `${STATS_BUCKETS.join(' | ')} (default: minute up to 2 hours, hour up to 8 days, then day)` }),
      agentId: t.arg.id(),
      model: t.arg.string({ description: 'a model key' }),
    },
    resolve: async (_root, args, ctx) =>
      runStats(await ctx.call(), { ...args, agentId: args.agentId == null ? null : String(args.agentId) }),
  }),
}));

builder.subscriptionField('runsChanged', (t) =>
  t.field({
    type: RunRef,
    description: "Emits each run of the caller's workspace when it is accepted and whenever its row changes (status, pending, output).",
    subscribe: async (_root, _args, ctx) => {
      const actor = await ctx.actor();
      requirePermission(actor, 'read');
      return ctx.deps.events.subscribe('workspaceRunChanged', actor.workspaceId);
    },
    resolve: (run) => run,
  }),
);
