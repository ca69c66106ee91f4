// A budget's cost limit as callers write it ("10.00": a decimal string of at most 6 decimals, the
// places prices have) and as it is kept: exact pico-units (10⁻¹² of the currency, src/lib/cost.ts),
// so limits and the amounts spent compare without float drift.
import { invalidArgument } from '../../lib/errors.js';

const DECIMAL = /^(0|[1-9][0-9]{0,14})(\.[0-9]{1,6})?$/;

/** "10.5" → 10_500_000_000_000n; refuses anything but a positive plain decimal (no sign, exponent or spaces). */
export function parseCostLimit(value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !DECIMAL.test(value))
    throw invalidArgument(`${field} must be a decimal string such as "10.00" (at most 15 digits before the point and 6 after)`, field);
  const [whole, fraction = ''] = value.split('.') as [string, string?];
  const picos = BigInt(whole) * 10n ** 12n + BigInt(fraction.padEnd(12, '0'));
  if (picos <= 0n) throw invalidArgument(`${field} must be more than 0`, field);
  return picos;
}
