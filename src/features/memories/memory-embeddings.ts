// The one place that embeds text for a memory: its embedding model (a model key in the memory's
// config) through the AI SDK embedding model of the model's provider type, as unit vectors.
import { embed } from 'ai';
import Type, { type Static } from 'typebox';
import type { Memory } from '../../generated/prisma/client.js';
import { AppError, quoteInput } from '../../lib/errors.js';
import { readDocument } from '../../lib/json-documents.js';
import { usableModel } from '../models/usable-models.js';
import type { Deps } from '../../services/deps.js';

export type Embed = (text: string) => Promise<number[]>;

/** A memory's config: the embedding model (a model key), when it has one; `{}` otherwise. */
const MemoryConfig = Type.Object({ embedding_model: Type.Optional(Type.String()) });
export type MemoryConfig = Static<typeof MemoryConfig>;

export const memoryConfig = (memory: Pick<Memory, 'config'>): MemoryConfig => readDocument(MemoryConfig, memory.config, 'memories.config');

/** The memory's embedding model key, when it has one. */
export const embeddingModelOf = (memory: Pick<Memory, 'config'>) => memoryConfig(memory).embedding_model || null;

/**
 * The memory's embedder, or null when it has no embedding model. The model is resolved on the first
 * call (a store that lists records never needs it), once per embedder.
 */
export function memoryEmbedder(deps: Deps, memory: Pick<Memory, 'config' | 'workspaceId'>): Embed | null {
  const key = embeddingModelOf(memory);
  if (!key) return null;
  let model: ReturnType<typeof resolve> | undefined;
  const resolve = async () => {
    const found = await usableModel(deps, memory.workspaceId, key, 'embedding model');
    if (!found) throw new AppError('failed_precondition', `the embedding model ${quoteInput(key)} is gone`);
    const { model: row, provider, usable } = found;
    if (!usable.type.embeddingModel) throw new AppError('failed_precondition', `provider type ${provider.type} does not embed text`);
    return usable.type.embeddingModel(
      {
        config: usable.config,
        credential: usable.credential,
        extraHeaders: usable.extraHeaders,
        fetch: usable.fetch,
        outbound: usable.outbound,
      },
      row,
    );
  };
  return async (text) => {
    model ??= resolve();
    const { embedding } = await embed({ model: await model, value: text, maxRetries: 1 });
    const norm = Math.hypot(...embedding) || 1;
    return embedding.map((value) => value / norm);
  };
}
