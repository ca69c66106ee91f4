// A model's prices: what the model itself sets (`pricing`, every member optional), filled in from the
// models.dev catalogue for known vendor models, and where the price in effect came from. Requests are
// priced with the price in effect when they are made (the engine resolves the model per request).
import type { Model } from '../../generated/prisma/client.js';
import { invalidArgument } from '../../lib/errors.js';
import { catalogueEntries } from '../../lib/model-catalogue.js';
import { fromMicros, toMicros, type UnitPrice } from '../../lib/cost.js';

/** The members of `pricing`, as stored and as shown (per million tokens). */
export const PRICE_MEMBERS = ['input_per_mtok', 'output_per_mtok', 'cached_input_per_mtok'] as const;
type PriceMember = (typeof PRICE_MEMBERS)[number];

export interface StoredPricing {
  input_per_mtok?: number;
  output_per_mtok?: number;
  cached_input_per_mtok?: number;
  currency?: string;
}

/** Where the price in effect came from: the model's own `pricing`, the catalogue, or nowhere. */
export type PricingSource = 'model' | 'catalogue' | null;

export interface ModelPricing {
  price: UnitPrice | null;
  source: PricingSource;
}

/** The currency of a price a model sets without one, and of the catalogue's prices. */
export const DEFAULT_CURRENCY = 'USD';
/** The highest price accepted, per million tokens. */
const MAX_PRICE = 1_000_000;
const CURRENCY = /^[A-Z]{3}$/;

/**
 * A model's `pricing` as given on create or PATCH: null (or `{}`) for none; else an object of the
 * price members (numbers ≥ 0, at most 6 decimals) and `currency` (an ISO 4217 code: three capital letters).
 */
export function validatePricing(value: unknown): StoredPricing | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidArgument('pricing must be an object or null', 'pricing');
  const stored: StoredPricing = {};
  for (const [member, given] of Object.entries(value)) {
    if (member === 'currency') {
      if (typeof given !== 'string' || !CURRENCY.test(given))
        throw invalidArgument('pricing.currency must be an ISO 4217 code of three capital letters, such as USD', 'pricing.currency');
      stored.currency = given;
    } else if ((PRICE_MEMBERS as readonly string[]).includes(member)) {
      if (given === null) continue;
      if (typeof given !== 'number' || !Number.isFinite(given) || given < 0 || given > MAX_PRICE)
        throw invalidArgument(`pricing.${member} must be a number from 0 to ${MAX_PRICE} (per million tokens)`, `pricing.${member}`);
      // The number as written with 6 decimals is the same number: no more decimals than that.
      if (Number(given.toFixed(6)) !== given) throw invalidArgument(`pricing.${member} takes at most 6 decimals`, `pricing.${member}`);
      stored[member as PriceMember] = given;
    } else {
      throw invalidArgument(
        `pricing has no member ${JSON.stringify(member)} (it takes ${[...PRICE_MEMBERS, 'currency'].join(', ')})`,
        `pricing.${member}`,
      );
    }
  }
  return Object.keys(stored).length === 0 ? null : stored;
}

const micros = (value: number | undefined) => (value === undefined ? null : toMicros(value));

/** The catalogue's list price of a provider model name (US dollars), or null when it lists none. */
async function cataloguePrice(providerModel: string): Promise<UnitPrice | null> {
  for (const entry of await catalogueEntries(providerModel)) {
    const cost = entry.cost;
    if (cost?.input === undefined && cost?.output === undefined) continue;
    return {
      currency: DEFAULT_CURRENCY,
      inputMicros: micros(cost.input),
      outputMicros: micros(cost.output),
      cachedInputMicros: micros(cost.cache_read),
    };
  }
  return null;
}

/**
 * The price in effect for a model: each member the model sets, the others from the catalogue when
 * the model's currency is the catalogue's (US dollars). The source is `model` when the model sets
 * any price member, `catalogue` when only the catalogue prices it, null when neither does.
 */
export async function modelPricing(model: Pick<Model, 'providerModel' | 'pricing'>): Promise<ModelPricing> {
  const own = (model.pricing ?? null) as StoredPricing | null;
  const currency = own?.currency ?? DEFAULT_CURRENCY;
  const catalogue = currency === DEFAULT_CURRENCY ? await cataloguePrice(model.providerModel) : null;
  const ownsPrice = own !== null && PRICE_MEMBERS.some((member) => own[member] !== undefined);
  if (!ownsPrice) return { price: catalogue, source: catalogue ? 'catalogue' : null };
  return {
    source: 'model',
    price: {
      currency,
      inputMicros: micros(own.input_per_mtok) ?? catalogue?.inputMicros ?? null,
      outputMicros: micros(own.output_per_mtok) ?? catalogue?.outputMicros ?? null,
      cachedInputMicros: micros(own.cached_input_per_mtok) ?? catalogue?.cachedInputMicros ?? null,
    },
  };
}

/** A price as the API shows it (per million tokens; a member without a price is null). */
export function showPrice(price: UnitPrice) {
  const show = (value: bigint | null) => (value === null ? null : fromMicros(value));
  return {
    inputPerMtok: show(price.inputMicros),
    outputPerMtok: show(price.outputMicros),
    cachedInputPerMtok: show(price.cachedInputMicros),
    currency: price.currency,
  };
}
