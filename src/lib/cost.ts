// Cost arithmetic without float drift. Prices are kept as integers in micro-units of their currency
// per million tokens (a price has at most 6 decimals), so one token at one such unit costs exactly one
// pico-unit (10⁻¹² of the currency): a request's cost is an exact integer of pico-units (BigInt), sums
// are exact, and rounding happens once, when an amount is shown.

/** A price in effect for one model, in integer micro-units of `currency` per million tokens; null: no price. */
export interface UnitPrice {
  currency: string;
  inputMicros: bigint | null;
  outputMicros: bigint | null;
  /** Input tokens read from the provider's cache; absent: they cost what other input tokens cost. */
  cachedInputMicros: bigint | null;
}

/** The tokens one model request reported. `cachedInput` is part of `input`. */
export interface RequestTokens {
  input: number;
  output: number;
  cachedInput: number;
}

/** A price per million tokens (a number with at most 6 decimals) as integer micro-units. */
export function toMicros(perMillion: number): bigint {
  return BigInt(Math.round(perMillion * 1_000_000));
}

/** Integer micro-units back to the number a caller gave. */
export function fromMicros(micros: bigint): number {
  return Number(micros) / 1_000_000;
}

/**
 * A request's exact cost in pico-units of the price's currency, or null when the price lacks a
 * member the request needs (input or output tokens without their price).
 */
export function requestCostPicos(price: UnitPrice, tokens: RequestTokens): bigint | null {
  const cached = BigInt(Math.min(tokens.cachedInput, tokens.input));
  const uncached = BigInt(tokens.input) - cached;
  const output = BigInt(tokens.output);
  if ((uncached > 0n || (cached > 0n && price.cachedInputMicros === null)) && price.inputMicros === null) return null;
  if (output > 0n && price.outputMicros === null) return null;
  const cachedMicros = price.cachedInputMicros ?? price.inputMicros ?? 0n;
  return uncached * (price.inputMicros ?? 0n) + cached * cachedMicros + output * (price.outputMicros ?? 0n);
}

/** Decimal places of a shown amount. */
export const AMOUNT_PLACES = 6;

/** Pico-units as a decimal string of `AMOUNT_PLACES` places, rounded half up (away from zero). */
export function formatAmount(picos: bigint): string {
  const scale = 10n ** BigInt(12 - AMOUNT_PLACES);
  const negative = picos < 0n;
  const magnitude = negative ? -picos : picos;
  const rounded = (magnitude + scale / 2n) / scale;
  const unit = 10n ** BigInt(AMOUNT_PLACES);
  const whole = rounded / unit;
  const fraction = (rounded % unit).toString().padStart(AMOUNT_PLACES, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/** An amount as `formatAmount` shows it ("1.250000") back in pico-units: exact, as it has AMOUNT_PLACES decimals. */
export function parseAmount(amount: string): bigint {
  const match = /^(-?)([0-9]+)\.([0-9]{6})$/.exec(amount);
  if (!match) throw new Error(`not an amount with ${AMOUNT_PLACES} decimals: ${amount}`);
  const picos = BigInt(match[2]!) * 10n ** 12n + BigInt(match[3]!) * 10n ** BigInt(12 - AMOUNT_PLACES);
  return match[1] ? -picos : picos;
}
