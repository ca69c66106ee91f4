// What an attempt's model requests consumed, counted as they happen: tokens, and their cost at the
// price in effect when each request was made (the model is resolved per request, so a price change
// applies to the requests after it). Stored at seal as the run's `usage_at_seal`.
import type { LanguageModelUsage } from 'ai';
import { requestCostPicos, type UnitPrice } from '../lib/cost.js';

/** The cost so far: exact pico-units of one currency (src/lib/cost.ts). */
export interface CostTally {
  picos: bigint;
  /** The currency of the first priced request; null until one was priced. */
  currency: string | null;
  /** False once a request's tokens could not be priced (no price, or another currency). */
  complete: boolean;
}

export interface Usage {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** Of the input tokens, those the provider read from its prompt cache (as it reported them). */
  cached_input_tokens: number;
  /** Of the output tokens, those the model spent reasoning (as the provider reported them). */
  reasoning_tokens: number;
  cost: CostTally;
}

export function newUsage(): Usage {
  return {
    requests: 0,
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    reasoning_tokens: 0,
    cost: { picos: 0n, currency: null, complete: true },
  };
}

/** The counters of one request's reported usage (AI SDK: cached tokens are part of the input, reasoning of the output). */
export function tokensOf(reported: LanguageModelUsage) {
  return {
    input: reported.inputTokens ?? 0,
    output: reported.outputTokens ?? 0,
    cachedInput: reported.inputTokenDetails.cacheReadTokens ?? 0,
    reasoning: reported.outputTokenDetails.reasoningTokens ?? 0,
  };
}

/**
 * Adds one request's tokens (not the request itself: callers count requests where they decide to make
 * them) and their cost at `price`. Tokens of a model without a price, or priced in a currency other
 * than the run's first, are not added to the amount and make it incomplete.
 */
export function addTokens(usage: Usage, price: UnitPrice | null, tokens: ReturnType<typeof tokensOf>): void {
  usage.input_tokens += tokens.input;
  usage.output_tokens += tokens.output;
  usage.cached_input_tokens += tokens.cachedInput;
  usage.reasoning_tokens += tokens.reasoning;
  if (tokens.input === 0 && tokens.output === 0) return;
  const picos = price && (usage.cost.currency ?? price.currency) === price.currency ? requestCostPicos(price, tokens) : null;
  if (picos === null) {
    usage.cost.complete = false;
    return;
  }
  usage.cost.currency = price!.currency;
  usage.cost.picos += picos;
}

/** The usage as `usage_at_seal` stores it (JSON: the exact amount as a string of pico-units). */
export function storedUsage(usage: Usage) {
  const { cost, ...counters } = usage;
  return { ...counters, cost: { picos: cost.picos.toString(), currency: cost.currency, complete: cost.complete } };
}
