// A budget's periods: calendar days, weeks and months in UTC. A week starts on Monday 00:00 UTC, a
// month on its first day 00:00 UTC; a period's counters are keyed by its start (budget_periods).
export const BUDGET_PERIODS = ['day', 'week', 'month'] as const;
export type BudgetPeriodKind = (typeof BUDGET_PERIODS)[number];

const DAY_MS = 86_400_000;

/** The start of the period of kind `period` that contains `at`. */
export function periodStart(period: BudgetPeriodKind, at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  if (period === 'day') return new Date(day);
  if (period === 'month') return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  // getUTCDay: Sunday 0 … Saturday 6; days since the last Monday.
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return new Date(day - sinceMonday * DAY_MS);
}

/** The start of the period after the one that starts at `start`. */
export function nextPeriodStart(period: BudgetPeriodKind, start: Date): Date {
  if (period === 'day') return new Date(start.getTime() + DAY_MS);
  if (period === 'week') return new Date(start.getTime() + 7 * DAY_MS);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}
