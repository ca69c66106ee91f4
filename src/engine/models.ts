// Turns a model key of a workspace into an AI SDK language model, at the moment a run needs it
// (so a provider or model change is seen by the next request, and disabling stops new use).
import type { LanguageModelV2 } from '@ai-sdk/provider';
import { AppError } from '../lib/errors.js';
import type { Deps } from '../services/deps.js';
import { providerForUse } from '../services/providers.js';
import { Prisma, type Model, type Provider } from '../generated/prisma/client.js';
import { prefixedColumns, takePrefixed } from '../storage/columns.js';
import { configGeneration, GenerationCache } from '../services/config-cache.js';

export interface ResolvedModel {
  key: string;
  model: LanguageModelV2;
  providerType: string;
  /** The model's settings merged with the agent's model_settings (the agent's win). */
  settings: Record<string, unknown>;
}

/** The generic sampling settings every model API takes, in the AI SDK's names. */
export function callSettings(settings: Record<string, unknown>) {
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  return {
    temperature: number(settings.temperature),
    topP: number(settings.top_p),
    maxOutputTokens: number(settings.max_output_tokens),
    stopSequences: Array.isArray(settings.stop) ? (settings.stop as unknown[]).filter((s): s is string => typeof s === 'string') : undefined,
  };
}

export interface UsableModel {
  model: Model;
  provider: Provider;
  usable: ReturnType<typeof providerForUse>;
}

const resolved = new GenerationCache<UsableModel>(1_000);

/**
 * A workspace's model with its provider, ready for use (secrets decrypted), or null when no model
 * has the key; disabled models and providers are refused with `disabled`. One joined read,
 * remembered per configuration generation (see config-cache.ts): a change is seen by the next call.
 * `label` names the model in errors ("model", "embedding model").
 */
export async function usableModel(deps: Deps, workspaceId: string, key: string, label = 'model'): Promise<UsableModel | null> {
  const cacheKey = `${workspaceId}\n${key}`;
  const cached = resolved.get(cacheKey);
  if (cached) return cached;
  const readGeneration = configGeneration();
  const rows = await deps.db.$queryRaw<Record<string, unknown>[]>`
    SELECT ${prefixedColumns(Prisma.ModelScalarFieldEnum, 'm', 'model')}, ${prefixedColumns(Prisma.ProviderScalarFieldEnum, 'p', 'provider')}
    FROM models m LEFT JOIN providers p ON p.id = m.provider_id AND p.workspace_id = m.workspace_id
    WHERE m.workspace_id = ${workspaceId} AND m.key = ${key}`;
  if (!rows[0]) return null;
  const model = takePrefixed<Model>(rows[0], 'model');
  const provider = takePrefixed<Provider>(rows[0], 'provider');
  if (!model.enabled) throw new AppError('disabled', `${label} ${JSON.stringify(key)} is disabled`);
  if (!provider.id) throw new AppError('not_found', `the provider of ${label} ${JSON.stringify(key)} is gone`);
  const entry = { model, provider, usable: providerForUse(deps, provider) };
  resolved.set(cacheKey, entry, readGeneration);
  return entry;
}

export async function resolveModel(deps: Deps, workspaceId: string, key: string, settings: Record<string, unknown>): Promise<ResolvedModel> {
  const found = await usableModel(deps, workspaceId, key);
  if (!found) throw new AppError('not_found', `model ${JSON.stringify(key)} not found`);
  const { model, provider, usable } = found;
  if (!usable.type.languageModel) throw new AppError('failed_precondition', `provider type ${JSON.stringify(provider.type)} cannot run models`);
  const merged = { ...((model.settings as Record<string, unknown>) ?? {}), ...settings };
  return { key, providerType: provider.type, settings: merged, model: usable.type.languageModel({ config: usable.config, credential: usable.credential, extraHeaders: usable.extraHeaders }, model, merged) };
}
