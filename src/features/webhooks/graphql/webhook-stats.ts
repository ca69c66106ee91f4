// GraphQL `webhookStats`: the health of the workspace's webhook deliveries over a time range (the
// service: ../webhook-stats.ts).
import { builder } from '../../../graphql/builder.js';
import { MAX_BUCKETS, STATS_BUCKETS, STATS_MAX_RANGE_DAYS } from '../../../lib/stats-range.js';
import { webhookStats, type WebhookStats, type WebhookStatsBucket } from '../webhook-stats.js';

const WebhookStatsBucketRef = builder.objectRef<WebhookStatsBucket>('WebhookStatsBucket').implement({
  description: 'The deliveries made in one bucket (UTC), by their status now.',
  fields: (t) => ({
    start: t.field({ type: 'DateTime', resolve: (bucket) => bucket.start }),
    succeeded: t.exposeInt('succeeded'),
    failed: t.exposeInt('failed', { description: 'failed for good (retries spent)' }),
    pending: t.exposeInt('pending', { description: 'not settled yet (retrying or waiting)' }),
  }),
});

const WebhookStatsRef = builder.objectRef<WebhookStats>('WebhookStats').implement({
  fields: (t) => ({
    from: t.field({ type: 'DateTime', resolve: (stats) => stats.from }),
    to: t.field({ type: 'DateTime', resolve: (stats) => stats.to }),
    bucket: t.exposeString('bucket'),
    succeeded: t.exposeInt('succeeded'),
    failed: t.exposeInt('failed'),
    pending: t.exposeInt('pending'),
    failureRate: t.exposeFloat('failureRate', { nullable: true, description: 'failed among settled deliveries; null when none settled' }),
    latencyP50Ms: t.exposeFloat('latencyP50Ms', { nullable: true, description: "median latency of the deliveries' last attempt" }),
    latencyP95Ms: t.exposeFloat('latencyP95Ms', { nullable: true }),
    buckets: t.field({
      type: [WebhookStatsBucketRef],
      description: 'every bucket of the range in order, empty ones too',
      resolve: (s) => s.buckets,
    }),
  }),
});

builder.queryFields((t) => ({
  webhookStats: t.field({
    type: WebhookStatsRef,
    description: `Webhook deliveries made in [from, to) (at most ${STATS_MAX_RANGE_DAYS} days apart, at most ${MAX_BUCKETS} buckets) by UTC bucket and status.`,
    args: {
      from: t.arg({ type: 'DateTime', required: true }),
      to: t.arg({ type: 'DateTime', required: true }),
      bucket: t.arg.string({ description: `${STATS_BUCKETS.join(' | ')} (default: minute up to 2 hours, hour up to 8 days, then day)` }),
    },
    resolve: async (_root, args, ctx) => webhookStats(await ctx.call(), args),
  }),
}));
