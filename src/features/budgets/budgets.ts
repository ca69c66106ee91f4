// Budgets: spending limits of a workspace, of one of its agents or of one of its API keys, over a
// calendar period in UTC. A live resource (changed in place with If-Match, removed by DELETE); every
// operation, reads included, needs `admin`. What the runs spent is kept per period in
// `budget_periods` (budget-counters.ts) and shown beside the budget as `spent`.
import type { Budget } from '../../generated/prisma/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { checkIfMatch } from '../../lib/etag.js';
import { AppError, invalidArgument, notFound, quoteInput } from '../../lib/errors.js';
import { looksLikeId, newId } from '../../lib/ids.js';
import { validateName } from '../../lib/text-fields.js';
import { recordAudit, recordCreation } from '../audit/audit.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { listQuery, newestFirst } from '../../services/list-query.js';
import { updateVersioned, type VersionedPatch, type VersionedTable } from '../../services/versioned.js';
import type { NodeRowsLoader } from '../../services/nodes.js';
import { requirePermission } from '../access/permissions.js';
import { parseCostLimit } from './budget-amounts.js';
import { BUDGET_PERIODS, periodStart, type BudgetPeriodKind } from './budget-periods.js';

export const RESOURCE_KIND = 'budget';
export const BUDGET_SCOPES = ['workspace', 'agent', 'api_key'] as const;
export const BUDGET_ACTIONS = ['block', 'notify'] as const;
export const MAX_THRESHOLDS = 10;
/** The largest token limit: exact in a JSON number and in GraphQL's Float. */
const MAX_TOKENS = Number.MAX_SAFE_INTEGER;
const CURRENCY = /^[A-Z]{3}$/;

export interface BudgetInput {
  name?: unknown;
  scope?: { kind?: unknown; id?: unknown } | null;
  period?: unknown;
  limit?: { cost?: unknown; tokens?: unknown; currency?: unknown } | null;
  action?: unknown;
  notifyAt?: unknown;
}

/** A budget with what its runs spent in the period in effect now. */
export type BudgetView = Budget & {
  spentPicos: bigint;
  spentTokens: bigint;
  inFlight: number;
  periodStartedAt: Date;
  /** The `notify_at` thresholds announced (budget.threshold_reached) in the current period, ascending. */
  notified: number[];
  /** When the current period's `budget.exceeded` was announced; null while it was not. */
  exceededAt: Date | null;
};

function oneOf<T extends readonly string[]>(values: T, value: unknown, field: string): T[number] {
  if (typeof value !== 'string' || !values.includes(value)) throw invalidArgument(`${field} must be one of ${values.join(', ')}`, field);
  return value;
}

/** The scope's columns; an agent or API key must be of the caller's workspace (another's reads as unknown). */
async function validateScope(call: CallContext, scope: BudgetInput['scope']) {
  if (scope === null || typeof scope !== 'object' || Array.isArray(scope)) throw invalidArgument('scope must be an object', 'scope');
  const kind = oneOf(BUDGET_SCOPES, scope.kind, 'scope.kind');
  const id = scope.id ?? null;
  if (kind === 'workspace') {
    if (id !== null && id !== call.actor.workspaceId)
      throw invalidArgument('scope.id must be absent (or the workspace id) for kind workspace', 'scope.id');
    return { scopeKind: kind, scopeId: null };
  }
  if (typeof id !== 'string' || id.length === 0) throw invalidArgument(`scope.id must name the ${kind.replace('_', ' ')}`, 'scope.id');
  const where = { id, workspaceId: call.actor.workspaceId };
  const found =
    kind === 'agent'
      ? looksLikeId('agent', id) && (await call.db.agent.findFirst({ where, select: { id: true } }))
      : looksLikeId('apiKey', id) && (await call.db.apiKey.findFirst({ where, select: { id: true } }));
  if (!found) throw invalidArgument(`scope.id: no ${kind.replace('_', ' ')} ${quoteInput(id)} in this workspace`, 'scope.id');
  return { scopeKind: kind, scopeId: id };
}

function validateLimit(limit: BudgetInput['limit']) {
  if (limit === null || typeof limit !== 'object' || Array.isArray(limit)) throw invalidArgument('limit must be an object', 'limit');
  const cost = limit.cost === undefined || limit.cost === null ? null : parseCostLimit(limit.cost, 'limit.cost');
  let tokens: number | null = null;
  if (limit.tokens !== undefined && limit.tokens !== null) {
    if (typeof limit.tokens !== 'number' || !Number.isInteger(limit.tokens) || limit.tokens <= 0 || limit.tokens > MAX_TOKENS)
      throw invalidArgument(`limit.tokens must be a whole number from 1 to ${MAX_TOKENS}`, 'limit.tokens');
    tokens = limit.tokens;
  }
  if (cost === null && tokens === null) throw invalidArgument('limit must set cost, tokens or both', 'limit');
  const currency = limit.currency ?? 'USD';
  if (typeof currency !== 'string' || !CURRENCY.test(currency))
    throw invalidArgument('limit.currency must be an ISO 4217 code of three capital letters, such as USD', 'limit.currency');
  return {
    limitCostPicos: cost === null ? null : new Prisma.Decimal(cost.toString()),
    limitTokens: tokens === null ? null : new Prisma.Decimal(tokens),
    currency,
  };
}

/** Fractions in (0, 1], at most MAX_THRESHOLDS, kept ascending without repeats. */
function validateThresholds(value: unknown): number[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_THRESHOLDS)
    throw invalidArgument(`notify_at must be a list of at most ${MAX_THRESHOLDS} fractions`, 'notify_at');
  for (const [i, t] of value.entries())
    if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0 || t > 1)
      throw invalidArgument('notify_at: every threshold must be a number more than 0 and at most 1', `notify_at[${i}]`);
  return [...new Set(value as number[])].sort((a, b) => a - b);
}

export async function createBudget(call: CallContext, input: BudgetInput): Promise<BudgetView> {
  const { actor } = call;
  requirePermission(actor, 'admin');
  const name = validateName(input.name);
  const scope = await validateScope(call, input.scope);
  const period = oneOf(BUDGET_PERIODS, input.period, 'period');
  const limit = validateLimit(input.limit);
  const action = oneOf(BUDGET_ACTIONS, input.action, 'action');
  const notifyAt = validateThresholds(input.notifyAt);
  const row = await inTransaction(call, async (bound) => {
    const created = await bound.db.budget.create({
      data: {
        id: newId('budget'),
        workspaceId: actor.workspaceId,
        name,
        ...scope,
        period,
        ...limit,
        action,
        notifyAt,
        createdById: actor.principalId,
        updatedById: actor.principalId,
      },
    });
    await recordCreation(bound, RESOURCE_KIND, created.id, {
      name: { from: null, to: name },
      scope_kind: { from: null, to: scope.scopeKind },
      scope_id: { from: null, to: scope.scopeId },
      period: { from: null, to: period },
      limit_cost_picos: { from: null, to: limit.limitCostPicos?.toString() ?? null },
      limit_tokens: { from: null, to: limit.limitTokens?.toString() ?? null },
      currency: { from: null, to: limit.currency },
      action: { from: null, to: action },
      notify_at: { from: null, to: notifyAt },
    });
    return created;
  });
  return (await withSpending(call, [row]))[0]!;
}

async function budgetRow(call: CallContext, id: string): Promise<Budget> {
  const row = looksLikeId('budget', id) ? await call.db.budget.findUnique({ where: { id } }) : null;
  if (!row || row.workspaceId !== call.actor.workspaceId) throw notFound('budget', id);
  return row;
}

export async function getBudget(call: CallContext, id: string): Promise<BudgetView> {
  requirePermission(call.actor, 'admin');
  return (await withSpending(call, [await budgetRow(call, id)]))[0]!;
}

export async function listBudgets(
  call: CallContext,
  args: { q?: string | null; scopeKind?: string | null; limit?: number | null; cursor?: string | null },
) {
  requirePermission(call.actor, 'admin');
  const query = listQuery(newestFirst('budgets', { search: ['name'] }), call, args);
  const scopeKind = args.scopeKind == null ? null : oneOf(BUDGET_SCOPES, args.scopeKind, 'scope_kind');
  const rows = await call.db.budget.findMany(query.findArgs(scopeKind ? { scopeKind } : {}));
  const page = query.page(rows);
  return { ...page, items: await withSpending(call, page.items) };
}

const BUDGETS: VersionedTable<Budget> = { resourceKind: RESOURCE_KIND, read: budgetRow, delegate: (bound) => bound.db.budget };

/** PATCH: If-Match required; members left out keep their values (a `limit` given replaces the whole limit). */
export const updateBudget: VersionedPatch<BudgetInput, BudgetView> = async (call, id, ifMatch, patch) => {
  const updated = await updateVersioned(call, BUDGETS, { permission: 'admin', id, ifMatch }, async (bound) => {
    const data: Record<string, unknown> = {};
    if (patch.name !== undefined && patch.name !== null) data.name = validateName(patch.name);
    if (patch.scope !== undefined && patch.scope !== null) Object.assign(data, await validateScope(bound, patch.scope));
    if (patch.period !== undefined && patch.period !== null) data.period = oneOf(BUDGET_PERIODS, patch.period, 'period');
    if (patch.limit !== undefined && patch.limit !== null) Object.assign(data, validateLimit(patch.limit));
    if (patch.action !== undefined && patch.action !== null) data.action = oneOf(BUDGET_ACTIONS, patch.action, 'action');
    if (patch.notifyAt !== undefined && patch.notifyAt !== null) data.notifyAt = validateThresholds(patch.notifyAt);
    return data;
  });
  return (await withSpending(call, [updated]))[0]!;
};

/** DELETE: the budget and its period counters. If-Match is optional. */
export async function deleteBudget(call: CallContext, id: string, ifMatch: string | null | undefined): Promise<boolean> {
  requirePermission(call.actor, 'admin');
  return inTransaction(call, async (bound) => {
    const row = await budgetRow(bound, id);
    checkIfMatch(ifMatch, row.id, row.version, false);
    const deleted = await bound.db.budget.deleteMany({ where: { id: row.id, version: row.version } });
    if (deleted.count !== 1) throw new AppError('precondition_failed', 'the resource was changed concurrently; read it again');
    await bound.db.budgetPeriod.deleteMany({ where: { budgetId: row.id } });
    await recordAudit(bound, { action: 'delete', resourceKind: RESOURCE_KIND, resourceId: row.id, version: row.version });
    return true;
  });
}

/** Budgets by id for `node(id)`: `admin` only, so for other callers they load as unknown ids. */
export const loadBudgets: NodeRowsLoader<BudgetView> = async (call, ids) => {
  if (!call.actor.permissions.has('admin')) return [];
  const rows = await call.db.budget.findMany({ where: { id: { in: [...ids] }, workspaceId: call.actor.workspaceId } });
  return withSpending(call, rows);
};

/** Each budget with its current period's counters: one statement for any number of budgets. */
async function withSpending(call: CallContext, rows: Budget[]): Promise<BudgetView[]> {
  if (rows.length === 0) return [];
  const now = new Date();
  const starts = rows.map((row) => periodStart(row.period as BudgetPeriodKind, now));
  const counters = await call.db.$queryRaw<
    { budget_id: string; spent_picos: string; spent_tokens: string; in_flight: number; notified: number[]; exceeded_at: Date | null }[]
  >`
    SELECT p.budget_id, p.spent_picos::text AS spent_picos, p.spent_tokens::text AS spent_tokens, p.in_flight, p.notified, p.exceeded_at
    FROM budget_periods p
    JOIN unnest(${rows.map((row) => row.id)}::text[], ${starts}::timestamptz[]) AS k(budget_id, period_start)
      ON p.budget_id = k.budget_id AND p.period_start = k.period_start`;
  const byId = new Map(counters.map((c) => [c.budget_id, c]));
  return rows.map((row, i) => {
    const c = byId.get(row.id);
    return {
      ...row,
      spentPicos: c ? BigInt(c.spent_picos) : 0n,
      spentTokens: c ? BigInt(c.spent_tokens) : 0n,
      inFlight: c?.in_flight ?? 0,
      periodStartedAt: starts[i]!,
      notified: [...(c?.notified ?? [])].sort((a, b) => a - b),
      exceededAt: c?.exceeded_at ?? null,
    };
  });
}
