// Cost arithmetic (src/lib/cost.ts): exact integer costs from prices with up to 6 decimals, and the one
// rounding when an amount is shown.
import { describe, expect, it } from 'vitest';
import { formatAmount, parseAmount, requestCostPicos, toMicros, type UnitPrice } from '../../src/lib/cost.js';

const price = (input: number | null, output: number | null, cached: number | null = null): UnitPrice => ({
  currency: 'USD',
  inputMicros: input === null ? null : toMicros(input),
  outputMicros: output === null ? null : toMicros(output),
  cachedInputMicros: cached === null ? null : toMicros(cached),
});

describe('cost', () => {
  it('prices uncached input, cached input and output exactly', () => {
    // 600 × 3 + 400 × 0.3 + 200 × 15 per million tokens = 0.00492 = 4,920,000,000 pico-units.
    expect(requestCostPicos(price(3, 15, 0.3), { input: 1000, cachedInput: 400, output: 200 })).toBe(4_920_000_000n);
    // Without a cached price, cached input costs what input costs.
    expect(requestCostPicos(price(3, 15), { input: 1000, cachedInput: 400, output: 0 })).toBe(3_000_000_000n);
  });

  it('sums 0.1 and 0.2 without drift', () => {
    let total = 0n;
    for (let i = 0; i < 10; i += 1) total += requestCostPicos(price(0.1, 0.2), { input: 1_000_000, cachedInput: 0, output: 1_000_000 })!;
    expect(formatAmount(total)).toBe('3.000000');
  });

  it('refuses tokens whose price member is missing', () => {
    expect(requestCostPicos(price(null, 15), { input: 10, cachedInput: 0, output: 0 })).toBeNull();
    expect(requestCostPicos(price(3, null), { input: 10, cachedInput: 0, output: 1 })).toBeNull();
    // Only cached input, priced by its own member: the input price is not needed.
    expect(requestCostPicos(price(null, 15, 0.3), { input: 10, cachedInput: 10, output: 0 })).toBe(3_000_000n);
  });

  it('rounds half up to 6 decimals when shown', () => {
    expect(formatAmount(0n)).toBe('0.000000');
    expect(formatAmount(4_215_000_000n)).toBe('0.004215');
    expect(formatAmount(499_999n)).toBe('0.000000');
    expect(formatAmount(500_000n)).toBe('0.000001');
    expect(formatAmount(1_234_567_890_123_456n)).toBe('1234.567890');
  });
});

describe('a shown amount read back', () => {
  it('is the pico-units it shows, exactly, and refuses any other form', () => {
    expect(parseAmount('1234.567890')).toBe(1_234_567_890_000_000n);
    expect(parseAmount('0.000001')).toBe(1_000_000n);
    expect(parseAmount('-0.500000')).toBe(-500_000_000_000n);
    expect(parseAmount(formatAmount(1_234_567_890_123_456n))).toBe(1_234_567_890_000_000n);
    for (const bad of ['1.5', '1', 'abc', '1.0000001', '']) expect(() => parseAmount(bad), bad).toThrow();
  });
});
