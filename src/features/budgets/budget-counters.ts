// Enforcing budgets: which budgets apply to a run, the one statement that admits a model request
// under them, and the refusal of new runs under a spent `block` budget.
//
// A run is under every budget of its workspace, of its agent and of the API key that created it
// (its principal). What they spend is kept per budget and period in a counter row
// (`budget_periods`), changed only by single statements: the row lock orders concurrent requests,
// so each sees what the ones before it added. Before each model request of a run, one statement
// adds what the run used since its last statement (tokens and cost, to the period its previous
// request was admitted in) and admits the new request (`in_flight` + 1 in the current period),
// answering every counter; a spent `block` budget then stops the run. A request is therefore
// refused once the budget is spent, and the overspend is bounded by the requests admitted before
// that — those in flight when it was spent. When the attempt ends the rest is added and its
// admissions released. Which budgets exist is remembered per workspace (configuration cache:
// invalidated on any change, in every process), so a workspace without budgets pays no statement.
import type { Budget } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { formatAmount } from '../../lib/cost.js';
import { configGeneration, GenerationCache } from '../../services/config-cache.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { recordAudit } from '../audit/audit.js';
import { enqueueWebhookEvent } from '../webhooks/webhook-events.js';
import { periodStart, type BudgetPeriodKind } from './budget-periods.js';

/** A budget as enforcement reads it. */
export interface ActiveBudget {
  id: string;
  workspaceId: string;
  name: string;
  scopeKind: string;
  scopeId: string | null;
  period: BudgetPeriodKind;
  limitCostPicos: bigint | null;
  currency: string;
  limitTokens: bigint | null;
  action: string;
  notifyAt: number[];
}

/** Who a run (or a new run) spends for. */
export interface Spender {
  workspaceId: string;
  agentId: string;
  principalId: string;
}

/** What a run used since its last charge: tokens (input + output) and cost in `currency`. */
export interface Charge {
  tokens: number;
  picos: bigint;
  currency: string | null;
}

/** A budget's counters in one period, as the statements answer them. */
export interface PeriodCounters {
  budgetId: string;
  periodStart: Date;
  spentPicos: bigint;
  spentTokens: bigint;
  inFlight: number;
  notified: number[];
  exceeded: boolean;
}

const workspaceBudgetsCache = new GenerationCache<ActiveBudget[]>(10_000);

function activeBudget(row: Budget): ActiveBudget {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    scopeKind: row.scopeKind,
    scopeId: row.scopeId,
    period: row.period as BudgetPeriodKind,
    limitCostPicos: row.limitCostPicos === null ? null : BigInt(row.limitCostPicos.toFixed(0)),
    currency: row.currency,
    limitTokens: row.limitTokens === null ? null : BigInt(row.limitTokens.toFixed(0)),
    action: row.action,
    notifyAt: row.notifyAt,
  };
}

/** The workspace's budgets: read once per configuration generation (no statement while cached). */
export async function workspaceBudgets(call: CallContext, workspaceId: string): Promise<ActiveBudget[]> {
  const cached = workspaceBudgetsCache.get(workspaceId);
  if (cached) return cached;
  const generation = configGeneration();
  const rows = await call.deps.db.budget.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } });
  const budgets = rows.map(activeBudget);
  workspaceBudgetsCache.set(workspaceId, budgets, generation);
  return budgets;
}

/** The budgets of the workspace that apply to this spender. */
export async function budgetsFor(call: CallContext, spender: Spender): Promise<ActiveBudget[]> {
  const budgets = await workspaceBudgets(call, spender.workspaceId);
  return budgets.filter(
    (b) =>
      b.scopeKind === 'workspace' ||
      (b.scopeKind === 'agent' && b.scopeId === spender.agentId) ||
      (b.scopeKind === 'api_key' && b.scopeId === spender.principalId),
  );
}

/** How much of its limit a budget has spent: the larger of its cost and token fractions. */
export function spentFraction(budget: ActiveBudget, counters: Pick<PeriodCounters, 'spentPicos' | 'spentTokens'>): number {
  const cost = budget.limitCostPicos ? Number(counters.spentPicos) / Number(budget.limitCostPicos) : 0;
  const tokens = budget.limitTokens ? Number(counters.spentTokens) / Number(budget.limitTokens) : 0;
  return Math.max(cost, tokens);
}

/** Spent: a limit reached (exactly, in integers). */
export function isSpent(budget: ActiveBudget, counters: Pick<PeriodCounters, 'spentPicos' | 'spentTokens'>): boolean {
  return (
    (budget.limitCostPicos !== null && counters.spentPicos >= budget.limitCostPicos) ||
    (budget.limitTokens !== null && counters.spentTokens >= budget.limitTokens)
  );
}

export function budgetExceeded(budget: ActiveBudget): AppError {
  return new AppError('budget_exceeded', `the budget "${budget.name}" (${budget.id}) is spent for this ${budget.period}`, {
    budget_id: budget.id,
  });
}

/**
 * New runs (a start, an inbox delivery, a resume, a fork) are refused under a spent `block` budget:
 * 429 `budget_exceeded` naming it. No statement when no `block` budget applies, else one read.
 */
export async function assertWithinBudgets(call: CallContext, agentId: string): Promise<void> {
  const budgets = (await budgetsFor(call, { workspaceId: call.actor.workspaceId, agentId, principalId: call.actor.principalId })).filter(
    (b) => b.action === 'block',
  );
  if (budgets.length === 0) return;
  const now = new Date();
  const rows = await call.db.$queryRaw<{ budget_id: string; spent_picos: string; spent_tokens: string }[]>`
    SELECT p.budget_id, p.spent_picos::text AS spent_picos, p.spent_tokens::text AS spent_tokens
    FROM budget_periods p
    JOIN unnest(${budgets.map((b) => b.id)}::text[], ${budgets.map((b) => periodStart(b.period, now))}::timestamptz[]) AS k(budget_id, period_start)
      ON p.budget_id = k.budget_id AND p.period_start = k.period_start`;
  for (const row of rows) {
    const budget = budgets.find((b) => b.id === row.budget_id)!;
    if (isSpent(budget, { spentPicos: BigInt(row.spent_picos), spentTokens: BigInt(row.spent_tokens) })) throw budgetExceeded(budget);
  }
}

/** One counter change: a budget's period, what to add to it, and the change of its admitted requests. */
export interface CounterChange {
  budgetId: string;
  periodStart: Date;
  picos: bigint;
  tokens: number;
  inFlight: number;
}

/**
 * Applies counter changes in one statement (each row created on first use) and answers the rows
 * after the change. Rows are changed in key order, so two runs' statements never wait for each
 * other in a cycle; a deleted budget's changes are dropped.
 */
export async function changeCounters(call: CallContext, changes: CounterChange[]): Promise<PeriodCounters[]> {
  if (changes.length === 0) return [];
  const sorted = [...changes].sort((a, b) => a.budgetId.localeCompare(b.budgetId) || a.periodStart.getTime() - b.periodStart.getTime());
  const rows = await call.db.$queryRaw<
    {
      budget_id: string;
      period_start: Date;
      spent_picos: string;
      spent_tokens: string;
      in_flight: number;
      notified: number[];
      exceeded: boolean;
    }[]
  >`
    INSERT INTO budget_periods AS p (budget_id, period_start, workspace_id, spent_picos, spent_tokens, in_flight)
    SELECT u.budget_id, u.period_start, b.workspace_id, u.picos, u.tokens, u.in_flight
    FROM unnest(${sorted.map((c) => c.budgetId)}::text[], ${sorted.map((c) => c.periodStart)}::timestamptz[],
      ${sorted.map((c) => c.picos.toString())}::numeric[], ${sorted.map((c) => c.tokens)}::bigint[], ${sorted.map((c) => c.inFlight)}::int[])
      WITH ORDINALITY AS u(budget_id, period_start, picos, tokens, in_flight, n)
    JOIN budgets b ON b.id = u.budget_id
    ORDER BY u.n
    ON CONFLICT (budget_id, period_start) DO UPDATE SET
      spent_picos = p.spent_picos + EXCLUDED.spent_picos,
      spent_tokens = p.spent_tokens + EXCLUDED.spent_tokens,
      in_flight = greatest(p.in_flight + EXCLUDED.in_flight, 0)
    RETURNING p.budget_id, p.period_start, p.spent_picos::text AS spent_picos, p.spent_tokens::text AS spent_tokens, p.in_flight,
      p.notified, p.exceeded_at IS NOT NULL AS exceeded`;
  return rows.map((r) => ({
    budgetId: r.budget_id,
    periodStart: r.period_start,
    spentPicos: BigInt(r.spent_picos),
    spentTokens: BigInt(r.spent_tokens),
    inFlight: r.in_flight,
    notified: r.notified ?? [],
    exceeded: r.exceeded,
  }));
}

/**
 * The events a change made due: each `notify_at` threshold reached and not yet announced this
 * period, and the limit reached. Each is claimed on its counter row first (a compare-and-set), so
 * of several runs that see the same crossing exactly one sends it; the claim, the audit row and the
 * webhook event commit together. Rare: at most one statement group per threshold per period.
 */
export async function announceCrossings(call: CallContext, budgets: ActiveBudget[], counters: PeriodCounters[], runId: string) {
  for (const c of counters) {
    const budget = budgets.find((b) => b.id === c.budgetId);
    if (!budget) continue;
    const fraction = spentFraction(budget, c);
    const due = budget.notifyAt.filter((t) => fraction >= t && !c.notified.includes(t));
    const exceeded = !c.exceeded && isSpent(budget, c);
    for (const threshold of due) await announce(call, budget, c, runId, threshold);
    if (exceeded) await announce(call, budget, c, runId, null);
  }
}

async function announce(call: CallContext, budget: ActiveBudget, c: PeriodCounters, runId: string, threshold: number | null) {
  await inTransaction(call, async (bound) => {
    const claimed =
      threshold === null
        ? await bound.db.$executeRaw`UPDATE budget_periods SET exceeded_at = now()
            WHERE budget_id = ${c.budgetId} AND period_start = ${c.periodStart} AND exceeded_at IS NULL`
        : await bound.db.$executeRaw`UPDATE budget_periods SET notified = array_append(notified, ${threshold}::float8)
            WHERE budget_id = ${c.budgetId} AND period_start = ${c.periodStart} AND NOT (${threshold}::float8 = ANY(notified))`;
    if (claimed !== 1) return;
    const kind = threshold === null ? 'budget.exceeded' : 'budget.threshold_reached';
    const spent = { cost: formatAmount(c.spentPicos), tokens: Number(c.spentTokens) };
    await recordAudit(bound, {
      workspaceId: budget.workspaceId,
      action: threshold === null ? 'exceeded' : 'threshold_reached',
      resourceKind: 'budget_period',
      resourceId: budget.id,
      changes: {
        period_started_at: { to: c.periodStart.toISOString() },
        ...(threshold === null ? {} : { threshold: { to: threshold } }),
        spent: { to: spent },
      },
    });
    await enqueueWebhookEvent(bound.db, budget.workspaceId, kind, {
      budget: {
        id: budget.id,
        name: budget.name,
        scope: { kind: budget.scopeKind, id: budget.scopeId },
        period: budget.period,
        period_started_at: c.periodStart.toISOString(),
        limit: {
          cost: budget.limitCostPicos === null ? null : formatAmount(budget.limitCostPicos),
          currency: budget.currency,
          tokens: budget.limitTokens === null ? null : Number(budget.limitTokens),
        },
        action: budget.action,
      },
      ...(threshold === null ? {} : { threshold }),
      spent,
      run_id: runId,
    });
  });
}
