// GraphQL `usage`: the usage ledger summed by a grouping (the service: ../usage.ts).
import { builder } from '../../../graphql/builder.js';
import { usageReport, USAGE_GROUPS, MAX_RANGE_DAYS, type UsageItem } from '../usage.js';
import { CostRef } from './run-members.js';

const UsageItemRef = builder.objectRef<UsageItem>('UsageItem').implement({
  description: 'What the requests of one group consumed. Token sums are Float (exact to 2^53), as they outgrow Int.',
  fields: (t) => ({
    key: t.exposeString('key', {
      description: 'the agent id, model key, API key (or user) id, UTC day (2026-11-27) or UTC hour (2026-11-27T20:00:00Z)',
    }),
    requests: t.exposeInt('requests', { description: 'model requests that reported usage' }),
    inputTokens: t.exposeFloat('inputTokens'),
    outputTokens: t.exposeFloat('outputTokens'),
    cachedInputTokens: t.exposeFloat('cachedInputTokens', { description: 'of the input tokens, those read from the provider cache' }),
    reasoningTokens: t.exposeFloat('reasoningTokens', { description: 'of the output tokens, those spent reasoning' }),
    cost: t.field({ type: CostRef, resolve: (item) => item.cost }),
  }),
});

const UsageReportRef = builder.objectRef<{ items: UsageItem[] }>('UsageReport').implement({
  fields: (t) => ({ items: t.field({ type: [UsageItemRef], resolve: (report) => report.items }) }),
});

builder.queryFields((t) => ({
  usage: t.field({
    type: UsageReportRef,
    description: `Usage of sealed runs in [from, to) (default: the last 30 days; at most ${MAX_RANGE_DAYS} days), one item per group, in key order.`,
    args: {
      from: t.arg({ type: 'DateTime', description: 'inclusive; default: 30 days before `to`' }),
      to: t.arg({ type: 'DateTime', description: 'exclusive; default: now' }),
      groupBy: t.arg.string({ description: `${USAGE_GROUPS.join(' | ')} (default day)` }),
      agentId: t.arg.string(),
      model: t.arg.string({ description: 'a model key' }),
    },
    resolve: async (_root, args, ctx) => usageReport(await ctx.call(), args),
  }),
}));
