// Budgets (every operation needs `admin`): a limit on what a workspace, one of its agents or one of
// its API keys spends on model requests per UTC day, week or month, with what was spent so far.
import { builder } from '../../../graphql/builder.js';
import { closedSet } from '../../../graphql/modules/enums.js';
import { connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { flagPayload } from '../../../graphql/modules/payloads.js';
import { resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, objectQuery } from '../../../graphql/modules/query-fields.js';
import { asNode } from '../../../graphql/modules/node.js';
import { formatAmount } from '../../../lib/cost.js';
import {
  BUDGET_ACTIONS,
  BUDGET_SCOPES,
  createBudget,
  deleteBudget,
  getBudget,
  listBudgets,
  loadBudgets,
  updateBudget,
  type BudgetView,
} from '../budgets.js';
import { BUDGET_PERIODS } from '../budget-periods.js';

const BudgetScopeKindEnum = closedSet(
  'BudgetScopeKind',
  BUDGET_SCOPES,
  'What a budget limits: the whole workspace, one agent or one API key.',
);
const BudgetPeriodEnum = closedSet(
  'BudgetPeriod',
  BUDGET_PERIODS,
  'The calendar period (UTC) a budget is counted over; weeks start on Monday.',
);
const BudgetActionEnum = closedSet(
  'BudgetAction',
  BUDGET_ACTIONS,
  'What happens once a budget is spent: `block` refuses, `notify` only tells.',
);

const BudgetScopeRef = builder.objectRef<BudgetView>('BudgetScope').implement({
  fields: (t) => ({
    kind: t.field({ type: BudgetScopeKindEnum, resolve: (b) => b.scopeKind as (typeof BUDGET_SCOPES)[number] }),
    id: t.string({ nullable: true, description: 'the agent or API key id; null for the workspace', resolve: (b) => b.scopeId }),
  }),
});

const BudgetLimitRef = builder.objectRef<BudgetView>('BudgetLimit').implement({
  fields: (t) => ({
    cost: t.string({
      nullable: true,
      description: 'the cost limit in `currency` (6 decimals); null: no cost limit',
      resolve: (b) => (b.limitCostPicos === null ? null : formatAmount(BigInt(b.limitCostPicos.toFixed(0)))),
    }),
    currency: t.exposeString('currency', { description: 'only requests priced in this currency count against `cost`' }),
    tokens: t.float({
      nullable: true,
      description: 'the limit on input + output tokens; null: no token limit',
      resolve: (b) => (b.limitTokens === null ? null : b.limitTokens.toNumber()),
    }),
  }),
});

const BudgetSpentRef = builder.objectRef<BudgetView>('BudgetSpent').implement({
  fields: (t) => ({
    cost: t.string({
      description: 'the cost counted in the current period, in `limit.currency` (6 decimals)',
      resolve: (b) => formatAmount(b.spentPicos),
    }),
    tokens: t.float({ description: 'input + output tokens counted in the current period', resolve: (b) => Number(b.spentTokens) }),
  }),
});

const BudgetRef = builder.objectRef<BudgetView>('Budget').implement({
  description: 'A spending limit over a UTC calendar period (docs/api/budgets.md). Needs `admin`.',
  interfaces: [VersionedRef],
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    name: t.exposeString('name'),
    scope: t.field({ type: BudgetScopeRef, resolve: (b) => b }),
    period: t.field({ type: BudgetPeriodEnum, resolve: (b) => b.period as (typeof BUDGET_PERIODS)[number] }),
    limit: t.field({ type: BudgetLimitRef, resolve: (b) => b }),
    action: t.field({ type: BudgetActionEnum, resolve: (b) => b.action as (typeof BUDGET_ACTIONS)[number] }),
    notifyAt: t.floatList({
      description: 'fractions of the limit at which `budget.threshold_reached` is sent, ascending',
      resolve: (b) => b.notifyAt,
    }),
    spent: t.field({ type: BudgetSpentRef, resolve: (b) => b }),
    periodStartedAt: t.field({ type: 'DateTime', description: 'the start of the current period (UTC)', resolve: (b) => b.periodStartedAt }),
    inFlight: t.int({
      description: 'model requests admitted in the current period whose usage is not counted yet (at most the overspend, in requests)',
      resolve: (b) => b.inFlight,
    }),
    notified: t.floatList({
      description: 'the `notify_at` thresholds announced (`budget.threshold_reached`) in the current period, ascending',
      resolve: (b) => b.notified,
    }),
    exceededAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: "when the current period's `budget.exceeded` was announced; null while the limit was not reached",
      resolve: (b) => b.exceededAt,
    }),
  }),
});
asNode(BudgetRef, { kind: 'budget', load: loadBudgets });

const BudgetConnection = connectionOf('Budget', BudgetRef);

const BudgetScopeInput = builder.inputType('BudgetScopeInput', {
  fields: (t) => ({
    kind: t.field({ type: BudgetScopeKindEnum, required: true }),
    id: t.id({ description: 'the agent or API key (of this workspace); absent for the workspace' }),
  }),
});
const BudgetLimitInput = builder.inputType('BudgetLimitInput', {
  fields: (t) => ({
    cost: t.string({ description: 'a decimal string such as "10.00" (at most 6 decimals)' }),
    tokens: t.float({ description: 'a whole number of input + output tokens, at least 1' }),
    currency: t.string({ description: 'ISO 4217, default USD' }),
  }),
});
const budgetInputFields = (required: boolean) =>
  builder.inputType(required ? 'CreateBudgetInput' : 'UpdateBudgetInput', {
    fields: (t) => ({
      name: t.string({ required }),
      scope: t.field({ type: BudgetScopeInput, required }),
      period: t.field({ type: BudgetPeriodEnum, required }),
      limit: t.field({ type: BudgetLimitInput, required, description: 'cost, tokens or both; replaces the whole limit' }),
      action: t.field({ type: BudgetActionEnum, required }),
      notifyAt: t.floatList({ description: 'fractions in (0, 1], at most 10' }),
    }),
  });

connectionQuery('budgets', BudgetConnection, {
  description: "The workspace's budgets, newest first. Needs `admin`.",
  args: (arg) => ({ q: arg.string(), scopeKind: arg({ type: BudgetScopeKindEnum }) }),
  list: listBudgets,
});
objectQuery('budget', BudgetRef, getBudget, 'Needs `admin`.');

const budgetMutations = resourceMutations('budget', BudgetRef);
budgetMutations.create(budgetInputFields(true), createBudget, { description: 'Needs `admin`.' });
budgetMutations.update(budgetInputFields(false), updateBudget, { description: 'Needs `admin` and If-Match.' });

builder.mutationField('deleteBudget', (t) =>
  t.field({
    type: flagPayload('deleteBudget', 'deleted', 'true: the budget and its period counters are gone'),
    description: 'Needs `admin`. If-Match is optional.',
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, a, ctx) => deleteBudget(await ctx.call(), String(a.id), a.ifMatch),
  }),
);
