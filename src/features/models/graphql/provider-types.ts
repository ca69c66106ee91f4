// Provider type descriptions (`providerTypes(kind:)`, REST GET /api/v1/provider-types/{kind}) as
// GraphQL types: an interface with what every type describes, and one object type per provider kind
// with what only that kind describes (model APIs, web operations, environment capabilities, …).
// The JSON Schemas a type publishes stay JSON: they are JSON Schema documents, for clients to
// validate against or to build forms from, not shapes of this API.
import type { FieldMap, ObjectFieldBuilder } from '@pothos/core';
import { builder } from '../../../graphql/builder.js';
import type { Types } from '../../../graphql/modules/common.js';
import { MediaKindEnum, ProviderKindEnum } from '../../../graphql/modules/enums.js';
import { modelApiMedia, type ProviderKind, type ProviderTypeDescription } from '../provider-types.js';
import type { MediaKind } from '../../../lib/media.js';

const TYPE_NAMES: Record<ProviderKind, string> = {
  model: 'ModelProviderType',
  web: 'WebProviderType',
  environment: 'EnvironmentProviderType',
  connector: 'ConnectorProviderType',
  memory: 'MemoryProviderType',
};

export const ProviderTypeDescriptionRef = builder.interfaceRef<ProviderTypeDescription>('ProviderTypeDescription').implement({
  description: 'An installed provider type: what a provider of it is configured with, and what it offers.',
  resolveType: (description) => TYPE_NAMES[description.kind],
  fields: (t) => ({
    type: t.string({ description: 'the identifier a provider names its type by', resolve: (d) => d.type }),
    kind: t.field({ type: ProviderKindEnum, resolve: (d) => d.kind }),
    title: t.string({ resolve: (d) => d.title }),
    configurationSchema: t.field({
      type: 'JSON',
      description: "a JSON Schema document: what a provider's `config` must be",
      resolve: (d) => d.configuration_schema,
    }),
    credentialSchema: t.field({
      type: 'JSON',
      description: "a JSON Schema document: what a provider's write-only `credential` must be",
      resolve: (d) => d.credential_schema,
    }),
    credentialRequired: t.boolean({
      description: 'whether a provider needs a credential before it can be used',
      resolve: (d) => d.credential_required,
    }),
    setupUrl: t.string({
      nullable: true,
      description: 'where to get a credential; null when the type names none',
      resolve: (d) => d.setup_url ?? null,
    }),
    testSupported: t.boolean({ description: 'whether testProvider probes providers of this type', resolve: (d) => d.test_supported }),
    document: t.field({
      type: 'JSON',
      description:
        'the same description as one JSON document, as the REST view answers it (snake_case members; a member a type does not have is left out rather than null); prefer the typed fields',
      resolve: (d) => d,
    }),
  }),
});

const ModelApiRef = builder
  .objectRef<{
    api: string;
    settings_schema: Record<string, unknown>;
    input_media: readonly MediaKind[];
    tool_result_media: readonly MediaKind[];
  }>('ProviderModelApi')
  .implement({
    description: 'A model API a model provider type serves, with the settings its models take.',
    fields: (t) => ({
      api: t.exposeString('api', { description: "the value of a model's `api`" }),
      settingsSchema: t.field({
        type: 'JSON',
        description: "a JSON Schema document: what a model's `settings` must be for this API",
        resolve: (a) => a.settings_schema,
      }),
      inputMedia: t.field({
        type: [MediaKindEnum],
        description:
          "the media besides text this API carries to the model (a model's `settings.input_media` overrides it); other media is described by the agent's `media_understanding` models",
        resolve: (a) => a.input_media,
      }),
      toolResultMedia: t.field({
        type: [MediaKindEnum],
        description: 'of the media besides text, what this API carries inside tool results (other media there is described)',
        resolve: (a) => a.tool_result_media,
      }),
    }),
  });

/**
 * The object type of one kind's descriptions: `ProviderTypeDescription`'s fields and the kind's own
 * (`resolveType` above picks it by the description's kind).
 */
function describeKind(
  kind: ProviderKind,
  description: string,
  fields: (t: ObjectFieldBuilder<Types, ProviderTypeDescription>) => FieldMap = () => ({}),
): void {
  builder.objectRef<ProviderTypeDescription>(TYPE_NAMES[kind]).implement({ description, interfaces: [ProviderTypeDescriptionRef], fields });
}

describeKind('model', 'A model provider type.', (t) => ({
  embeddingsSupported: t.boolean({
    description: "whether its models can embed text (memories' embedding models)",
    resolve: (d) => d.embeddings_supported ?? false,
  }),
  modelApis: t.field({
    type: [ModelApiRef],
    // What each API reads is the registry's, not part of the REST description.
    resolve: (d) =>
      (d.model_apis ?? []).map((api) => {
        const media = modelApiMedia(d.type, api.api);
        return { ...api, input_media: media.inputMedia, tool_result_media: media.toolResultMedia };
      }),
  }),
}));
describeKind('web', 'A web provider type (the web toolset).', (t) => ({
  operations: t.stringList({ description: 'the web operations it serves', resolve: (d) => d.operations ?? [] }),
}));
describeKind('environment', 'An environment provider type.', (t) => ({
  environmentSchema: t.field({
    type: 'JSON',
    description: 'a JSON Schema document: what an environment of this type is described by',
    resolve: (d) => d.environment_schema ?? {},
  }),
  supportsManagedInstances: t.boolean({ resolve: (d) => d.supports_managed_instances ?? false }),
  supportsStop: t.boolean({ resolve: (d) => d.supports_stop ?? false }),
  supportsStart: t.boolean({
    description: 'a stopped environment of this type can be started again (`startEnvironment`)',
    resolve: (d) => d.supports_start ?? false,
  }),
  supportsDestroy: t.boolean({ resolve: (d) => d.supports_destroy ?? false }),
}));
describeKind('connector', 'A connector provider type (connections to tool servers).');
describeKind('memory', 'A memory provider type (record memories).', (t) => ({
  embeddingModelRequired: t.boolean({
    description: 'whether a memory of it must name an embedding model',
    resolve: (d) => d.embedding_model_required ?? false,
  }),
}));
