// Turns a model key of a workspace into an AI SDK language model, at the moment a run needs it
// (so a provider or model change is seen by the next request, and disabling stops new use).
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createDownload } from 'ai';
import { AppError } from '../lib/errors.js';
import { digestOf } from '../lib/canonical-json.js';
import { isMediaKind, type MediaKind } from '../lib/media.js';
import type { Deps } from '../services/deps.js';
import { usableModel, type UsableModel } from '../features/models/usable-models.js';
import { storedModelSettings } from '../features/models/models.js';
import { modelPricing } from '../features/models/pricing.js';
import type { UnitPrice } from '../lib/cost.js';
export { fallbackModels } from '../features/agents/documents/config-schema.js';

export interface ResolvedModel {
  key: string;
  model: LanguageModelV4;
  providerType: string;
  /** The model's settings merged with the agent's model_settings (the agent's win). */
  settings: Record<string, unknown>;
  /** The media besides text the model reads itself (others are described: media-understanding.ts). */
  inputMedia: readonly MediaKind[];
  /** Of those, the media its API carries inside tool results (others there are described). */
  toolResultMedia: readonly MediaKind[];
  /** Its API takes an output spec's JSON Schema as a response format next to tools (registry.ts, modelApis). */
  jsonSchemaResponse: boolean;
  /** The price in effect now (read with the model, so a price change applies to the next request); null: none. */
  price: UnitPrice | null;
  /**
   * How the AI SDK downloads a media URL the model cannot take itself: through the outbound policy,
   * as every request made for a run is.
   */
  download: ReturnType<typeof createDownload>;
}

/**
 * What media the model reads: `input_media` in its settings (a list of media kinds) when present,
 * else what its model API declares (docs/api/agents.md, "Media understanding").
 */
export function inputMediaOf(declared: readonly MediaKind[] | undefined, settings: Record<string, unknown>): readonly MediaKind[] {
  if (Array.isArray(settings.input_media)) return settings.input_media.filter(isMediaKind);
  return declared ?? [];
}

/** The generic sampling settings every model API takes, in the AI SDK's names. */
export function callSettings(settings: Record<string, unknown>) {
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  return {
    temperature: number(settings.temperature),
    topP: number(settings.top_p),
    maxOutputTokens: number(settings.max_output_tokens),
    stopSequences: Array.isArray(settings.stop)
      ? (settings.stop as unknown[]).filter((s): s is string => typeof s === 'string')
      : undefined,
  };
}

export async function resolveModel(
  deps: Deps,
  workspaceId: string,
  key: string,
  settings: Record<string, unknown>,
): Promise<ResolvedModel> {
  const found = await usableModel(deps, workspaceId, key);
  if (!found) throw new AppError('not_found', `model ${JSON.stringify(key)} not found`);
  const { model, provider, usable } = found;
  if (!usable.type.languageModel)
    throw new AppError('failed_precondition', `provider type ${JSON.stringify(provider.type)} cannot run models`);
  // The fallback list is the service's to read, not a setting of the provider's API.
  const { fallback_models: _fallbacks, ...agentSettings } = settings;
  const merged = { ...storedModelSettings(model.settings), ...agentSettings };
  const api = usable.type.modelApis?.find((candidate) => candidate.api === model.api);
  const inputMedia = inputMediaOf(api?.inputMedia, merged);
  const { price } = await modelPricing(model);
  const built = builtModel(deps, found, merged);
  return {
    key,
    price,
    providerType: provider.type,
    settings: merged,
    inputMedia,
    toolResultMedia: inputMedia.filter((kind) => api?.toolResultMedia?.includes(kind)),
    jsonSchemaResponse: api?.jsonSchemaResponse ?? false,
    download: built.download,
    model: built.model,
  };
}

type Built = Pick<ResolvedModel, 'model' | 'download'>;

/** The most built models a process remembers (the oldest is forgotten first). */
const MAX_BUILT_MODELS = 1_000;

/**
 * The AI SDK models (and downloaders) built, per deps (a process has one; tests start several), by
 * what they are built from. Building one constructs the provider package's client and its zod
 * schemas — and a schema's first parse compiles its validator — which cost more than the parsing of
 * a short answer; the models are stateless between calls (each call brings its prompt, tools and
 * signal), so requests made with the same configuration share one. The key is the provider's
 * stored configuration and sealed credential (a new credential is a new ciphertext), the model's
 * upstream name and API and the merged settings: any change of them builds a new model for the
 * next request, and a change of something else (another workspace's configuration) keeps it.
 */
const builtModels = new WeakMap<Deps, Map<string, Built>>();

function builtModel(deps: Deps, found: UsableModel, merged: Record<string, unknown>): Built {
  const { model, provider, usable } = found;
  const key = digestOf({
    provider: [provider.id, provider.kind, provider.type, provider.config, provider.credentialCiphertext, provider.extraHeadersCiphertext],
    model: [model.workspaceId, model.key, model.providerModel, model.api],
    settings: merged,
  });
  let built = builtModels.get(deps);
  if (!built) builtModels.set(deps, (built = new Map()));
  const cached = built.get(key);
  if (cached) return cached;
  const made: Built = {
    download: createDownload({ fetch: usable.fetch, maxBytes: deps.config.assetMaxBytes }),
    model: usable.type.languageModel!(
      {
        config: usable.config,
        credential: usable.credential,
        extraHeaders: usable.extraHeaders,
        fetch: usable.fetch,
        outbound: usable.outbound,
      },
      model,
      merged,
    ),
  };
  if (built.size >= MAX_BUILT_MODELS) built.delete(built.keys().next().value!);
  built.set(key, made);
  return made;
}
