// A workspace's model with its provider, ready for use: what runs (the engine) and memories (their
// embedding models) both need, so it lives with the services, below the engine.
import { AppError } from '../../lib/errors.js';
import { Prisma, type Model, type Provider } from '../../generated/prisma/client.js';
import { prefixedColumns, takePrefixed } from '../../storage/columns.js';
import type { Deps } from '../../services/deps.js';
import type { CallContext } from '../../services/call-context.js';
import { providerForUse } from './providers.js';
import { configGeneration, GenerationCache } from '../../services/config-cache.js';

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

/**
 * The keys of the workspace's usable models (enabled, with an enabled provider), by key: the models
 * a built-in agent (the composer, the analyst) may be given.
 */
export async function usableModelKeys(call: CallContext): Promise<string[]> {
  const rows = await call.db.$queryRaw<{ key: string }[]>`
    SELECT m.key FROM models m JOIN providers p ON p.id = m.provider_id AND p.workspace_id = m.workspace_id
    WHERE m.workspace_id = ${call.actor.workspaceId} AND m.enabled AND p.enabled ORDER BY m.key`;
  return rows.map((r) => r.key);
}
