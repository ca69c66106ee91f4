// The budgets of one run attempt (src/features/budgets/budget-counters.ts): before each model request
// of the turn loop, one statement adds what the attempt used since the last one — its own requests,
// and the compaction, media-description and reviewer requests made on its behalf, all in `usage` —
// and admits the request; when the attempt ends, the rest is added and its admissions released.
// With no budget applying to the run, neither costs a statement.
import type { CallContext } from '../services/call-context.js';
import {
  announceCrossings,
  budgetsFor,
  changeCounters,
  isSpent,
  type ActiveBudget,
  type Charge,
  type Spender,
  type CounterChange,
  type PeriodCounters,
} from '../features/budgets/budget-counters.js';
import { periodStart } from '../features/budgets/budget-periods.js';
import type { Usage } from './usage.js';

export class BudgetGuard {
  /** Per budget, the start of the period the attempt's last request was admitted in. */
  private readonly admitted = new Map<string, Date>();
  /** What of `usage` was added to the counters already. */
  private charged = { tokens: 0, picos: 0n };

  constructor(
    private readonly call: CallContext,
    private readonly run: Spender & { id: string },
    private readonly usage: Usage,
  ) {}

  /**
   * Admits the next model request, or answers the spent `block` budget that refuses it. The run's
   * budgets are read from the workspace's cached list; a budget added or removed during the run
   * applies from its next request.
   */
  async beforeRequest(): Promise<ActiveBudget | null> {
    const budgets = await budgetsFor(this.call, this.run);
    if (budgets.length === 0 && this.admitted.size === 0) return null;
    const now = new Date();
    const counters = await this.apply(budgets, (budget) => periodStart(budget.period, now));
    await announceCrossings(this.call, budgets, counters, this.run.id);
    for (const budget of budgets) {
      if (budget.action !== 'block') continue;
      const current = counters.find((c) => c.budgetId === budget.id && c.periodStart.getTime() === this.admitted.get(budget.id)?.getTime());
      if (current && isSpent(budget, current)) return budget;
    }
    return null;
  }

  /** The attempt ended: what it used since the last request is added, its admissions released. */
  async settle(): Promise<void> {
    if (this.admitted.size === 0) {
      // No request was admitted under a budget; usage made before budgets applied is not charged back.
      return;
    }
    const budgets = await budgetsFor(this.call, this.run);
    const counters = await this.apply(budgets, null);
    await announceCrossings(this.call, budgets, counters, this.run.id);
  }

  /**
   * One statement: the charge since the last one goes to the period each budget's last request was
   * admitted in (releasing it), and — with `admitIn` — a new request is admitted in the current one.
   */
  private async apply(budgets: ActiveBudget[], admitIn: ((budget: ActiveBudget) => Date) | null): Promise<PeriodCounters[]> {
    const charge = this.takeCharge();
    const changes: CounterChange[] = [];
    for (const budget of budgets) {
      const picos = charge.currency === budget.currency ? charge.picos : 0n;
      const held = this.admitted.get(budget.id);
      const next = admitIn?.(budget);
      if (held && next && held.getTime() === next.getTime()) {
        changes.push({ budgetId: budget.id, periodStart: held, picos, tokens: charge.tokens, inFlight: 0 });
      } else {
        if (held) changes.push({ budgetId: budget.id, periodStart: held, picos, tokens: charge.tokens, inFlight: -1 });
        if (next) changes.push({ budgetId: budget.id, periodStart: next, picos: 0n, tokens: 0, inFlight: 1 });
      }
      if (next) this.admitted.set(budget.id, next);
      else this.admitted.delete(budget.id);
    }
    // Budgets removed since their last admission: their counters went with them.
    for (const id of [...this.admitted.keys()]) if (!budgets.some((b) => b.id === id)) this.admitted.delete(id);
    return changeCounters(this.call, changes);
  }

  /** The usage added since the last charge, in the attempt's currency (the first it was priced in). */
  private takeCharge(): Charge {
    const tokens = this.usage.input_tokens + this.usage.output_tokens;
    const charge = {
      tokens: tokens - this.charged.tokens,
      picos: this.usage.cost.picos - this.charged.picos,
      currency: this.usage.cost.currency,
    };
    this.charged = { tokens, picos: this.usage.cost.picos };
    return charge;
  }
}
