// A parent's subagent usage (src/engine/usage.ts, addSubagentRun): each settled child adds its own
// ledger totals, exact, and the subagent usage it stored, and the sum keeps one currency — a child
// priced in another makes it incomplete, as a run's own requests in another currency do.
import { describe, expect, it } from 'vitest';
import { addSubagentRun, newUsage, storedUsage } from '../../src/engine/usage.js';
import type { RunLedgerTotal } from '../../src/features/runs/usage-ledger.js';

const total = (costPicos: bigint, currency: string | null, complete = true): RunLedgerTotal => ({
  requests: 1,
  inputTokens: 10,
  outputTokens: 5,
  cachedInputTokens: 2,
  reasoningTokens: 1,
  costPicos,
  currency,
  complete,
});

describe("a parent's subagent usage", () => {
  it('is null until a child settles, then sums children exactly, with what they stored of their own children', () => {
    const usage = newUsage();
    expect(storedUsage(usage).subagents).toBeNull();
    // 0.0000004 + 0.0000004 USD: exact sums show 0.000001, where rounding each first would show 0.000000.
    addSubagentRun(usage, [total(400_000n, 'USD')], null);
    addSubagentRun(usage, [total(400_000n, 'USD')], {
      runs: 2,
      requests: 3,
      input_tokens: 30,
      output_tokens: 15,
      cached_input_tokens: 0,
      reasoning_tokens: 0,
      cost: { amount: '1.250000', currency: 'USD', complete: true },
    });
    expect(storedUsage(usage).subagents).toEqual({
      runs: 4,
      requests: 5,
      input_tokens: 50,
      output_tokens: 25,
      cached_input_tokens: 4,
      reasoning_tokens: 2,
      cost: { amount: '1.250001', currency: 'USD', complete: true },
    });
    // The run's own counters are untouched.
    expect(storedUsage(usage)).toMatchObject({ requests: 0, input_tokens: 0, cost: { amount: '0.000000', currency: null } });
  });

  it('keeps its first currency: another one, or tokens without a price, make it incomplete', () => {
    const usage = newUsage();
    addSubagentRun(usage, [total(2_000_000n, 'EUR'), total(1_000_000n, 'USD')], null);
    addSubagentRun(usage, [total(0n, null, false)], null);
    expect(storedUsage(usage).subagents?.cost).toEqual({ amount: '0.000002', currency: 'EUR', complete: false });
    expect(storedUsage(usage).subagents?.runs).toBe(2);
  });
});
