// What an attempt's model requests consumed, counted as they happen: tokens, and their cost at the
// price in effect when each request was made (the model is resolved per request, so a price change
// applies to the requests after it). Stored at seal as the run's `usage_at_seal`, and per model as
// the usage ledger's rows (`usage_records`, summed by GET /api/v1/usage).
import type { LanguageModelUsage } from 'ai';
import { formatAmount, parseAmount, requestCostPicos, type UnitPrice } from '../lib/cost.js';
import type { RunLedgerTotal, UsageLedgerRow } from '../features/runs/usage-ledger.js';
import type { RunSubagentUsage } from '../features/runs/run-members.js';
import { modelMetrics } from '../lib/service-metrics.js';

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
  /** The same, per model key, counting the requests that reported usage: the ledger's rows. */
  byModel: Map<string, ModelTally>;
  /** What the subagent runs this attempt delegated to used, with theirs; null: it delegated nothing. */
  subagents: SubagentTally | null;
}

/** The counters of some model requests (those that reported usage): tokens and their cost. */
interface Tally {
  requests: number;
  input: number;
  output: number;
  cachedInput: number;
  reasoning: number;
  cost: CostTally;
}

/** The subagent runs' usage: their own requests that reported usage, tokens and cost, and their subagents'. */
export interface SubagentTally extends Tally {
  runs: number;
}

export interface ModelTally extends Tally {
  /** The provider type of the model's provider when its first request was counted. */
  providerType: string;
}

const emptyCost = (): CostTally => ({ picos: 0n, currency: null, complete: true });
const emptyTally = (): Tally => ({ requests: 0, input: 0, output: 0, cachedInput: 0, reasoning: 0, cost: emptyCost() });

export function newUsage(): Usage {
  return {
    requests: 0,
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    reasoning_tokens: 0,
    cost: emptyCost(),
    byModel: new Map(),
    subagents: null,
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
export function addTokens(
  usage: Usage,
  model: { key: string; price: UnitPrice | null; providerType: string },
  tokens: ReturnType<typeof tokensOf>,
): void {
  // Every request whose usage is counted passes here once: the process's metrics count it too.
  modelMetrics.request(model.key, model.providerType, tokens, metricCost(model.price, tokens));
  usage.input_tokens += tokens.input;
  usage.output_tokens += tokens.output;
  usage.cached_input_tokens += tokens.cachedInput;
  usage.reasoning_tokens += tokens.reasoning;
  let tally = usage.byModel.get(model.key);
  if (!tally) {
    tally = { providerType: model.providerType, ...emptyTally() };
    usage.byModel.set(model.key, tally);
  }
  tally.requests += 1;
  tally.input += tokens.input;
  tally.output += tokens.output;
  tally.cachedInput += tokens.cachedInput;
  tally.reasoning += tokens.reasoning;
  addCost(usage.cost, model.price, tokens);
  addCost(tally.cost, model.price, tokens);
}

/** A request's cost for the metrics, in units of its currency (a float: the ledger keeps the exact amounts). */
function metricCost(price: UnitPrice | null, tokens: ReturnType<typeof tokensOf>): { amount: number; currency: string } | null {
  const picos = price ? requestCostPicos(price, tokens) : null;
  return picos === null ? null : { amount: Number(picos) / 1e12, currency: price!.currency };
}

/**
 * Adds a settled subagent run to the attempt's subagent usage: its own usage as the ledger has it
 * (exact amounts) and the subagent usage its `usage_at_seal` recorded (its children's, and theirs:
 * amounts as stored, rounded once per run that delegated). Costs in another currency than the
 * tally's first make it incomplete, as for a run's own requests.
 */
export function addSubagentRun(usage: Usage, own: readonly RunLedgerTotal[], nested: RunSubagentUsage | null): void {
  const tally = (usage.subagents ??= { runs: 0, ...emptyTally() });
  tally.runs += 1;
  for (const total of own) {
    tally.requests += total.requests;
    tally.input += total.inputTokens;
    tally.output += total.outputTokens;
    tally.cachedInput += total.cachedInputTokens;
    tally.reasoning += total.reasoningTokens;
    mergeCost(tally.cost, total.costPicos, total.currency, total.complete);
  }
  if (nested) {
    tally.runs += nested.runs;
    tally.requests += nested.requests;
    tally.input += nested.input_tokens;
    tally.output += nested.output_tokens;
    tally.cachedInput += nested.cached_input_tokens;
    tally.reasoning += nested.reasoning_tokens;
    mergeCost(tally.cost, parseAmount(nested.cost.amount), nested.cost.currency, nested.cost.complete);
  }
}

/** Adds an amount already summed in one currency (null: none of its tokens were priced). */
function mergeCost(cost: CostTally, picos: bigint, currency: string | null, complete: boolean): void {
  if (!complete) cost.complete = false;
  if (currency === null) return;
  if (cost.currency !== null && cost.currency !== currency) {
    cost.complete = false;
    return;
  }
  cost.currency = currency;
  cost.picos += picos;
}

function addCost(cost: CostTally, price: UnitPrice | null, tokens: ReturnType<typeof tokensOf>): void {
  if (tokens.input === 0 && tokens.output === 0) return;
  const picos = price && (cost.currency ?? price.currency) === price.currency ? requestCostPicos(price, tokens) : null;
  if (picos === null) {
    cost.complete = false;
    return;
  }
  cost.currency = price!.currency;
  cost.picos += picos;
}

/**
 * The usage as `usage_at_seal` stores it: the amount as shown (rounded once, here), so the stored
 * document and the view are the same member for member; the ledger keeps the exact amounts.
 * `by_model` is the ledger's rows of the attempt in the same shape, stored with them so that a run's
 * read names the models that answered (a fallback among them) without reading the ledger; in model
 * key order, so the document does not depend on which model answered first.
 */
export function storedUsage(usage: Usage) {
  const { cost, byModel, subagents, ...counters } = usage;
  const by_model = [...byModel]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([model, tally]) => ({ model, provider_type: tally.providerType, ...shownTally(tally) }));
  return {
    ...counters,
    cost: shownCost(cost),
    by_model,
    // null when the attempt delegated to no subagent (stored as such: the view is the stored document).
    subagents: subagents && { runs: subagents.runs, ...shownTally(subagents) },
  };
}

/** A tally's counters as the stored document names them, its cost as shown. */
function shownTally(tally: Tally) {
  return {
    requests: tally.requests,
    input_tokens: tally.input,
    output_tokens: tally.output,
    cached_input_tokens: tally.cachedInput,
    reasoning_tokens: tally.reasoning,
    cost: shownCost(tally.cost),
  };
}

function shownCost(cost: CostTally) {
  return { amount: formatAmount(cost.picos), currency: cost.currency, complete: cost.complete };
}

/** The ledger's rows of an attempt's usage, one per model, as `sealRun` writes them. */
export function ledgerRows(usage: Usage): UsageLedgerRow[] {
  return [...usage.byModel].map(([modelKey, tally]) => ({
    modelKey,
    requests: tally.requests,
    inputTokens: tally.input,
    outputTokens: tally.output,
    cachedInputTokens: tally.cachedInput,
    reasoningTokens: tally.reasoning,
    costPicos: tally.cost.picos.toString(),
    currency: tally.cost.currency,
    complete: tally.cost.complete,
  }));
}
