// The provider-type catalogue as the API describes it: the provider kinds, a type's description and
// what a model API carries. GraphQL reads the catalogue here, so the registry (src/providers/) stays
// below the services and the schema depends on the descriptions, not on how types are installed.
import type { MediaKind } from '../../lib/media.js';
import { providerType, type describeType } from '../../providers/index.js';

export { PROVIDER_KINDS, type ProviderKind } from '../../providers/index.js';

/** A type's description as `listProviderTypes` answers it (snake_case members; a kind's own members only on that kind). */
export type ProviderTypeDescription = ReturnType<typeof describeType> & {
  model_apis?: { api: string; settings_schema: Record<string, unknown> }[];
  operations?: string[];
  environment_schema?: Record<string, unknown>;
  supports_managed_instances?: boolean;
  supports_stop?: boolean;
  supports_start?: boolean;
  supports_destroy?: boolean;
  embeddings_supported?: boolean;
  embedding_model_required?: boolean;
  setup_url?: string;
};

/**
 * The media a model type's API carries besides text, to the model and inside tool results. Not part
 * of the REST description: GraphQL shows it on the model API's type.
 */
export function modelApiMedia(type: string, api: string): { inputMedia: readonly MediaKind[]; toolResultMedia: readonly MediaKind[] } {
  const declared = providerType('model', type)?.modelApis?.find((m) => m.api === api);
  return { inputMedia: declared?.inputMedia ?? [], toolResultMedia: declared?.toolResultMedia ?? [] };
}
