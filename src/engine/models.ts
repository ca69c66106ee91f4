// Turns a model key of a workspace into an AI SDK language model, at the moment a run needs it
// (so a provider or model change is seen by the next request, and disabling stops new use).
import type { LanguageModelV2 } from '@ai-sdk/provider';
import { AppError } from '../lib/errors.js';
import type { Deps } from '../services/deps.js';
import { createScriptedModel, type ScriptSettings } from './scripted-model.js';

export interface ResolvedModel {
  key: string;
  model: LanguageModelV2;
  providerType: string;
}

/** Provider types other than `development` plug in here (see src/providers). */
export type LanguageModelFactory = (input: {
  deps: Deps;
  provider: { id: string; type: string; config: unknown; credentialCiphertext: string | null; extraHeadersCiphertext: string | null };
  model: { key: string; providerModel: string; api: string; settings: unknown };
  settings: Record<string, unknown>;
}) => LanguageModelV2;

const factories = new Map<string, LanguageModelFactory>([
  ['development', ({ model, settings }) => createScriptedModel(model.key, settings as ScriptSettings)],
]);

export function registerLanguageModelFactory(type: string, factory: LanguageModelFactory) {
  factories.set(type, factory);
}

export async function resolveModel(deps: Deps, workspaceId: string, key: string, settings: Record<string, unknown>): Promise<ResolvedModel> {
  const model = await deps.db.model.findUnique({ where: { workspaceId_key: { workspaceId, key } } });
  if (!model) throw new AppError('not_found', `model ${JSON.stringify(key)} not found`);
  if (!model.enabled) throw new AppError('disabled', `model ${JSON.stringify(key)} is disabled`);
  const provider = await deps.db.provider.findUnique({ where: { id: model.providerId } });
  if (!provider || provider.workspaceId !== workspaceId) throw new AppError('not_found', `the provider of model ${JSON.stringify(key)} is gone`);
  if (!provider.enabled) throw new AppError('disabled', `the provider of model ${JSON.stringify(key)} is disabled`);
  const factory = factories.get(provider.type);
  if (!factory) throw new AppError('failed_precondition', `provider type ${JSON.stringify(provider.type)} cannot run models`);
  const merged = { ...((model.settings as Record<string, unknown>) ?? {}), ...settings };
  return { key, providerType: provider.type, model: factory({ deps, provider, model, settings: merged }) };
}
