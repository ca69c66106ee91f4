// The provider type registry: every installed type of the five kinds, with the JSON Schemas of its
// configuration and credential, and what it offers (model APIs, web operations, environment
// capabilities). Types are lowercase vendor-named identifiers.
import type { EmbeddingModelV4, LanguageModelV4 } from '@ai-sdk/provider';
import type { Static, TSchema } from 'typebox';
import type { MediaKind } from '../lib/media.js';
import type { OutboundPolicy } from '../lib/outbound-policy.js';
import { readDocument } from '../lib/json-documents.js';

export const PROVIDER_KINDS = ['model', 'web', 'environment', 'connector', 'memory'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export type JsonSchema = Record<string, unknown>;

/**
 * A schema defined with TypeBox, as the registry keeps and publishes it: its JSON Schema members
 * (TypeBox's own markers are not enumerable, so they stay behind). Members come in TypeBox's order:
 * `type` first, an object's `required` before its `properties`.
 */
export const jsonSchemaOf = (schema: TSchema): JsonSchema => ({ ...schema });

export interface ProbeResult {
  status: 'succeeded' | 'failed' | 'unsupported';
  message?: string;
}

export interface ProviderContext {
  config: Record<string, unknown>;
  credential: Record<string, unknown> | null;
  extraHeaders: Record<string, string>;
  signal: AbortSignal;
  /**
   * The fetch every request of the provider goes through: the deployment's outbound policy
   * (src/lib/outbound-policy.ts) checks each connection's address. Adapters never use the global fetch.
   */
  fetch: typeof fetch;
  /** The policy itself, for types whose clients open their own sockets (the container engine's probe). */
  outbound: OutboundPolicy;
  /** For types that keep data in this service's database (the built-in memory). */
  db?: import('../db.js').Db;
}

// Memory types that serve records implement a record store (src/memory-stores/record-store.ts).
import type { RecordListing, RecordStore, RecordStoreContext, StoredRecord } from '../memory-stores/record-store.js';
import type { Page } from '../lib/cursor.js';
import type { Db } from '../db.js';

export interface ProviderType {
  kind: ProviderKind;
  type: string;
  title: string;
  configurationSchema: JsonSchema;
  credentialSchema: JsonSchema;
  /** Whether a credential must be stored before the provider can be used. */
  credentialRequired: boolean;
  setupUrl?: string;
  /** Config members that are endpoints (checked against the endpoint policy). */
  endpointFields?: string[];
  /**
   * Model types: their model APIs, the settings schema of each, the media besides text the API
   * carries to the model in messages (absent: text only) and inside tool results (absent: none; some
   * adapters can only send a tool result as text). A model's `settings.input_media` overrides the
   * first for that model (docs/api/agents.md, "Media understanding"). `jsonSchemaResponse`: the API
   * takes a JSON Schema response format in the same request as tools (an agent's `output_spec` is sent
   * as one); absent: the spec reaches the model as instructions only (Anthropic's and Gemini's APIs
   * would give up the tools for it).
   */
  modelApis?: {
    api: string;
    settingsSchema: JsonSchema;
    inputMedia?: readonly MediaKind[];
    toolResultMedia?: readonly MediaKind[];
    jsonSchemaResponse?: boolean;
  }[];
  /** Web types: the operations they serve (`search`, `fetch`). */
  operations?: string[];
  /** Web types: how they carry the operations out (src/providers/web). */
  web?: import('./web/types.js').WebOperations;
  /** Environment types: what they offer, and the driver that does it (absent: described only, not yet usable). */
  environment?: {
    environmentSchema: JsonSchema;
    managedInstances: boolean;
    stop: boolean;
    destroy: boolean;
    driver?: import('./environment-driver.js').EnvironmentDriver;
    /**
     * Checks of a template's config beyond its schema, against the workspace (the `envd` type: the
     * device it names must be a device of the workspace). Throws the caller's error (AppError).
     */
    checkConfig?: (
      ctx: { workspaceId: string; devices: import('./device-bridge.js').DeviceBridge | null },
      config: Record<string, unknown>,
    ) => Promise<void>;
  };
  /**
   * Types only some deployments offer (the local environment type: ALLOW_LOCAL_ENVIRONMENTS; the
   * development model type: ALLOW_DEVELOPMENT_MODELS). Absent:
   * every deployment offers it. A type not offered is neither listed nor accepted for new providers.
   */
  offeredWhen?: (config: DeploymentSwitches) => boolean;
  /**
   * Where the type is listed: types added after a kind's catalogue was published come after the
   * earlier ones (a higher `listGroup`), so the published order of the earlier types never changes.
   * Absent: 0.
   */
  listGroup?: number;
  /** One inexpensive probe; absent → `unsupported`. */
  probe?: (ctx: ProviderContext) => Promise<ProbeResult>;
  /** Model types: an AI SDK language model for a model of this provider. */
  languageModel?: (
    ctx: Omit<ProviderContext, 'signal'>,
    model: { providerModel: string; api: string },
    settings: Record<string, unknown>,
  ) => LanguageModelV4;
  /** Model types that embed text (memories with an embedding model). */
  embeddingModel?: (ctx: Omit<ProviderContext, 'signal'>, model: { providerModel: string }) => EmbeddingModelV4;
  /** Memory types whose records this service serves: their record store (built-in, vector databases). */
  records?: {
    embeddingModelRequired: boolean;
    open: (ctx: RecordStoreContext) => RecordStore;
    /**
     * The first pages of many of its memories' records at once (one statement), where the store can:
     * the built-in one. Others are listed one memory at a time through `open(…).list`.
     */
    listMany?: (
      db: Db,
      listings: readonly RecordListing[],
      size: number,
      cursor: string | null | undefined,
    ) => Promise<(Page<StoredRecord> | Error)[]>;
  };
}

/**
 * A provider's context with its config and credential read as its type's schemas say: what the
 * adapters of a type defined with `defineProviderType` receive.
 */
export interface TypedProviderContext<Config, Credential> extends Omit<ProviderContext, 'config' | 'credential'> {
  config: Config;
  credential: Credential | null;
}

/**
 * A provider type whose configuration and credential are TypeBox schemas: the published JSON
 * Schemas, the TypeScript types of the adapters' `ctx.config` and `ctx.credential` (`Static`) and the
 * check of what is read all come from the one definition.
 */
export interface ProviderTypeDefinition<C extends TSchema, K extends TSchema> extends Omit<
  ProviderType,
  'configurationSchema' | 'credentialSchema' | 'probe' | 'languageModel' | 'embeddingModel'
> {
  configuration: C;
  credential: K;
  probe?: (ctx: TypedProviderContext<Static<C>, Static<K>>) => Promise<ProbeResult>;
  languageModel?: (
    ctx: Omit<TypedProviderContext<Static<C>, Static<K>>, 'signal'>,
    model: { providerModel: string; api: string },
    settings: Record<string, unknown>,
  ) => LanguageModelV4;
  embeddingModel?: (ctx: Omit<TypedProviderContext<Static<C>, Static<K>>, 'signal'>, model: { providerModel: string }) => EmbeddingModelV4;
}

/**
 * Reads a provider's stored config and credential as its type's schemas say. Both were checked
 * against the same schemas when written, so a mismatch is a stored document that went wrong (an
 * internal error naming the column), never the caller's.
 */
export function providerDocuments<C extends TSchema, K extends TSchema>(configuration: C, credential: K) {
  return <T extends Pick<ProviderContext, 'config' | 'credential'>>(
    ctx: T,
  ): Omit<T, 'config' | 'credential'> & { config: Static<C>; credential: Static<K> | null } => ({
    ...ctx,
    config: readDocument(configuration, ctx.config, 'providers.config'),
    credential: ctx.credential === null ? null : readDocument(credential, ctx.credential, 'providers.credential_ciphertext'),
  });
}

/** The registry's view of a provider type defined with TypeBox schemas (see `ProviderTypeDefinition`). */
export function defineProviderType<C extends TSchema, K extends TSchema>(definition: ProviderTypeDefinition<C, K>): ProviderType {
  const { configuration, credential, probe, languageModel, embeddingModel, ...rest } = definition;
  const typed = providerDocuments(configuration, credential);
  const type: ProviderType = { ...rest, configurationSchema: jsonSchemaOf(configuration), credentialSchema: jsonSchemaOf(credential) };
  if (probe) type.probe = (ctx) => probe(typed(ctx));
  if (languageModel) type.languageModel = (ctx, model, settings) => languageModel(typed(ctx), model, settings);
  if (embeddingModel) type.embeddingModel = (ctx, model) => embeddingModel(typed(ctx), model);
  return type;
}

/** The deployment settings that decide which types are offered. */
export interface DeploymentSwitches {
  allowLocalEnvironments: boolean;
  allowDevelopmentModels: boolean;
}

const registry = new Map<string, ProviderType>();

export function registerProviderType(type: ProviderType) {
  registry.set(`${type.kind}:${type.type}`, type);
}

export function providerType(kind: string, type: string): ProviderType | undefined {
  return registry.get(`${kind}:${type}`);
}

/** The installed types of a kind this deployment offers, by list group, then by type. */
export function providerTypes(kind: ProviderKind, deployment: DeploymentSwitches): ProviderType[] {
  return [...registry.values()]
    .filter((t) => t.kind === kind && isOffered(t, deployment))
    .sort((a, b) => (a.listGroup ?? 0) - (b.listGroup ?? 0) || a.type.localeCompare(b.type));
}

export function isOffered(t: ProviderType, deployment: DeploymentSwitches): boolean {
  return t.offeredWhen ? t.offeredWhen(deployment) : true;
}

/** The view of GET /api/v1/provider-types/{kind}. */
export function describeType(t: ProviderType) {
  return {
    type: t.type,
    kind: t.kind,
    title: t.title,
    configuration_schema: t.configurationSchema,
    credential_schema: t.credentialSchema,
    credential_required: t.credentialRequired,
    ...(t.setupUrl ? { setup_url: t.setupUrl } : {}),
    test_supported: Boolean(t.probe),
    ...(t.kind === 'model' ? { embeddings_supported: Boolean(t.embeddingModel) } : {}),
    ...(t.kind === 'memory' ? { embedding_model_required: Boolean(t.records?.embeddingModelRequired) } : {}),
    ...(t.modelApis ? { model_apis: t.modelApis.map((api) => ({ api: api.api, settings_schema: api.settingsSchema })) } : {}),
    ...(t.operations ? { operations: t.operations } : {}),
    ...(t.environment
      ? {
          environment_schema: t.environment.environmentSchema,
          supports_managed_instances: t.environment.managedInstances,
          supports_stop: t.environment.stop,
          // Restarting a stopped instance is what the driver can do, not a separate claim.
          supports_start: Boolean(t.environment.driver?.start),
          supports_destroy: t.environment.destroy,
        }
      : {}),
  };
}
