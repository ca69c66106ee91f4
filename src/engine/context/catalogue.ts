// The context and output limits of known models, from the models.dev catalogue (src/lib/model-catalogue.ts).
import { catalogueEntries } from '../../lib/model-catalogue.js';

export interface ModelLimits {
  context: number;
  output?: number;
}

/** A model's limits by its provider's model id: the first candidate entry that states a context window. */
export async function knownLimits(providerModelId: string): Promise<ModelLimits | undefined> {
  for (const entry of await catalogueEntries(providerModelId)) {
    const context = entry.limit?.context;
    if (context) return { context, ...(entry.limit?.output ? { output: entry.limit.output } : {}) };
  }
  return undefined;
}
