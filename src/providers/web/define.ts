// The pieces every web type shares: its configuration schema (a `base_url` that defaults to the
// vendor's API, a default number of results) and how a type is declared. The credential schemas are
// those of every provider kind (../common-schemas.ts).
import Type, { type TProperties } from 'typebox';
import { jsonSchemaOf, type JsonSchema, type ProviderContext, type ProviderType } from '../registry.js';
import { ApiKeyCredential } from '../common-schemas.js';
import { convert } from 'html-to-text';
import { str, trimSlash } from './http.js';
import type { WebOperation, WebOperations } from './types.js';

const maxResults = Type.Integer({ minimum: 1, maximum: 50, description: 'results per search when the toolset does not say (default 5)' });

/**
 * A configuration with `base_url` (default: the vendor's API) and `max_results`, plus the type's own
 * members (optional unless a type says otherwise), defined with TypeBox.
 */
export function webConfig(defaultBaseUrl: string | null, own: TProperties = {}): JsonSchema {
  return jsonSchemaOf(
    Type.Object(
      {
        ...(defaultBaseUrl !== null
          ? { base_url: Type.Optional(Type.String({ format: 'uri', description: `default ${defaultBaseUrl}` })) }
          : {}),
        max_results: Type.Optional(maxResults),
        ...own,
      },
      { additionalProperties: false },
    ),
  );
}

export interface WebTypeDefinition {
  type: string;
  title: string;
  setupUrl?: string;
  configurationSchema: JsonSchema;
  credentialSchema: JsonSchema;
  credentialRequired: boolean;
  endpointFields: string[];
  web: WebOperations;
}

/**
 * A web provider type. It has no probe: the spec answers every web type's test `unsupported` (a
 * search costs money on most of these APIs, and none has a free call that proves a key).
 */
export function webType(definition: WebTypeDefinition): ProviderType {
  const operations = (['search', 'fetch'] as WebOperation[]).filter((operation) => definition.web[operation]);
  return { kind: 'web', ...definition, operations };
}

export interface HostedWebTypeDefinition extends Pick<WebTypeDefinition, 'type' | 'title' | 'setupUrl' | 'web'> {
  /** The vendor's API root, the default of `base_url`. */
  root: string;
  /** The type's own configuration members, beside `base_url` and `max_results`. */
  configuration?: TProperties;
}

/**
 * A web type of a hosted vendor: an API key is required, and `base_url` (the vendor's API root by
 * default) is its one endpoint member.
 */
export function hostedWebType({ type, title, setupUrl, root, configuration, web }: HostedWebTypeDefinition): ProviderType {
  return webType({
    type,
    title,
    setupUrl,
    configurationSchema: webConfig(root, configuration),
    credentialSchema: jsonSchemaOf(ApiKeyCredential),
    credentialRequired: true,
    endpointFields: ['base_url'],
    web,
  });
}

/** The configured API root, or the vendor's. */
export const baseUrl = (ctx: ProviderContext, fallback: string, field = 'base_url') => trimSlash(str(ctx.config[field]) || fallback);
export const apiKeyOf = (ctx: ProviderContext) => str(ctx.credential?.api_key);

/** Snippets some vendors send with markup (`<strong>` around matches): plain text. */
export const plain = (text: unknown) => convert(str(text), { wordwrap: false }).replace(/\s+/g, ' ').trim();
