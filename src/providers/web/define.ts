// The pieces every web type shares: its configuration schema (a `base_url` that defaults to the
// vendor's API, a default number of results) and how a type is declared. The credential schemas are
// those of every provider kind (../common-schemas.ts).
import Type, { type Static, type TProperties, type TSchema } from 'typebox';
import { jsonSchemaOf, providerDocuments, type ProviderType } from '../registry.js';
import { ApiKeyCredential } from '../common-schemas.js';
import { convert } from 'html-to-text';
import { str, trimSlash } from './http.js';
import type { WebOperation, WebOperations, WebProviderContext } from './types.js';

const maxResults = Type.Integer({ minimum: 1, maximum: 50, description: 'results per search when the toolset does not say (default 5)' });

/** The `base_url` member of a type whose API has a default root (described as that default). */
const baseUrlMember = (defaultBaseUrl: string) => Type.Optional(Type.String({ format: 'uri', description: `default ${defaultBaseUrl}` }));

/**
 * A configuration with `base_url` (default: the vendor's API) and `max_results`, plus the type's own
 * members (optional unless a type says otherwise), defined with TypeBox.
 */
export function webConfig<P extends TProperties>(defaultBaseUrl: string, own: P) {
  return Type.Object(
    { base_url: baseUrlMember(defaultBaseUrl), max_results: Type.Optional(maxResults), ...own },
    { additionalProperties: false },
  );
}

/**
 * A configuration without a default API root: `max_results` and the type's own members (a
 * self-hosted type declares its own required `base_url`).
 */
export function selfHostedWebConfig<P extends TProperties>(own: P) {
  return Type.Object({ max_results: Type.Optional(maxResults), ...own }, { additionalProperties: false });
}

export interface WebTypeDefinition<C extends TSchema, K extends TSchema> {
  type: string;
  title: string;
  setupUrl?: string;
  configuration: C;
  credential: K;
  credentialRequired: boolean;
  endpointFields: string[];
  /** The operations, reading `ctx.config` and `ctx.credential` typed as the two schemas say. */
  web: WebOperations<Static<C>, Static<K>>;
}

/**
 * A web provider type. Its configuration and credential schemas are published as JSON Schema and
 * read back for each operation (checked, typed: `readDocument` through `providerDocuments`), so an
 * operation reads `ctx.config.search_depth` without a cast, as the model and environment types do.
 * It has no probe: the spec answers every web type's test `unsupported` (a search costs money on
 * most of these APIs, and none has a free call that proves a key).
 */
export function webType<C extends TSchema, K extends TSchema>(definition: WebTypeDefinition<C, K>): ProviderType {
  const { configuration, credential, web, ...rest } = definition;
  const typed = providerDocuments(configuration, credential);
  const registered: WebOperations = {};
  if (web.search) registered.search = (ctx, request) => web.search!(typed(ctx), request);
  if (web.fetch) registered.fetch = (ctx, request) => web.fetch!(typed(ctx), request);
  const operations = (['search', 'fetch'] as WebOperation[]).filter((operation) => web[operation]);
  return {
    kind: 'web',
    ...rest,
    configurationSchema: jsonSchemaOf(configuration),
    credentialSchema: jsonSchemaOf(credential),
    web: registered,
    operations,
  };
}

export interface HostedWebTypeDefinition<P extends TProperties> extends Pick<
  WebTypeDefinition<TSchema, TSchema>,
  'type' | 'title' | 'setupUrl'
> {
  /** The vendor's API root, the default of `base_url`. */
  root: string;
  /** The type's own configuration members, beside `base_url` and `max_results`. */
  configuration: P;
  web: WebOperations<Static<ReturnType<typeof webConfig<P>>>, Static<typeof ApiKeyCredential>>;
}

/**
 * A web type of a hosted vendor: an API key is required, and `base_url` (the vendor's API root by
 * default) is its one endpoint member.
 */
export function hostedWebType<P extends TProperties>({
  type,
  title,
  setupUrl,
  root,
  configuration,
  web,
}: HostedWebTypeDefinition<P>): ProviderType {
  return webType({
    type,
    title,
    setupUrl,
    configuration: webConfig(root, configuration),
    credential: ApiKeyCredential,
    credentialRequired: true,
    endpointFields: ['base_url'],
    web,
  });
}

/** The configured API root, or the vendor's. */
export const baseUrl = (configured: string | undefined, fallback: string) => trimSlash(configured || fallback);
/** The provider's API key ('' when its credential has none). */
export const apiKeyOf = (ctx: Pick<WebProviderContext<unknown, { api_key?: string }>, 'credential'>) => ctx.credential?.api_key ?? '';

/** Snippets some vendors send with markup (`<strong>` around matches): plain text. */
export const plain = (text: unknown) => convert(str(text), { wordwrap: false }).replace(/\s+/g, ' ').trim();
