// Model provider types: the AI SDK adapters (real wire protocols) and the offline development model.
import { createOpenAI, type OpenAIProvider } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogle } from '@ai-sdk/google';
import { createAzure, type AzureOpenAIProvider } from '@ai-sdk/azure';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import type { EmbeddingModelV4, LanguageModelV4 } from '@ai-sdk/provider';
import Type, { type Static, type TObject } from 'typebox';
import { createScriptedModel, type ScriptSettings } from './scripted-model.js';
import { createHashEmbeddingModel } from './hash-embeddings.js';
import { coalescingFetch } from './coalescing-fetch.js';
import type { OutboundPolicy } from '../lib/outbound-policy.js';
import { leanChatFetch } from './lean-chat-fetch.js';
import { probeGet, trimSlash } from './http-probe.js';
import {
  defineProviderType,
  jsonSchemaOf,
  registerProviderType,
  type JsonSchema,
  type ProbeResult,
  type ProviderContext,
  type ProviderType,
  type ProviderTypeDefinition,
  type TypedProviderContext,
} from './registry.js';
import { ApiKeyCredential, NoConfiguration, NoCredential, OptionalApiKeyCredential, uriMember } from './common-schemas.js';

/** The settings every chat model API takes (a model's `settings`, docs/api/providers.md). */
export const CommonSettings = Type.Object({
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
  top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  max_output_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
  stop: Type.Optional(Type.Array(Type.String())),
});
export const commonSettings: JsonSchema = jsonSchemaOf(CommonSettings);

/** The configuration of a hosted vendor: only `base_url`, optional (`description` names the vendor's default). */
export const baseUrlConfig = (description: string) =>
  Type.Object({ base_url: Type.Optional(uriMember(description)) }, { additionalProperties: false });
/** The configuration of a server its user runs: `base_url`, required. */
const requiredBaseUrlConfig = (description: string) => Type.Object({ base_url: uriMember(description) }, { additionalProperties: false });

/** The members of a credential the helpers below read. */
type WithApiKey = { api_key?: string } | null;
export const key = (credential: WithApiKey) => credential?.api_key ?? '';
/** The configured `base_url`, or the vendor's API root, without a trailing slash. */
export const apiRoot = (ctx: { config: { base_url?: string } }, vendorRoot: string) => trimSlash(ctx.config.base_url ?? vendorRoot);
/** A bearer key where the credential has one (servers that need none may sit behind a proxy that does). */
export const optionalBearer = (credential: WithApiKey): Record<string, string> =>
  credential?.api_key ? { authorization: `Bearer ${key(credential)}` } : {};
/**
 * A probe's one GET: the vendor's authentication headers with the provider's extra headers, the key
 * kept out of any message.
 */
export const probeWithKey = (
  ctx: Pick<ProviderContext, 'extraHeaders' | 'signal' | 'fetch'> & { credential: WithApiKey },
  url: string,
  auth: Record<string, string>,
) => probeGet(ctx.fetch, url, { ...auth, ...ctx.extraHeaders }, ctx.signal, [key(ctx.credential)]);

/** What a hosted vendor's adapters receive: `{base_url?}` and `{api_key}`. */
type HostedContext = TypedProviderContext<{ base_url?: string }, { api_key: string }>;
type Ctx = Omit<HostedContext, 'signal'>;
/** What the factory of every AI SDK vendor package takes: the key, the API root (absent: the vendor's) and extra headers. */
interface SdkSettings {
  apiKey: string;
  baseURL: string | undefined;
  headers: Record<string, string>;
  /** The outbound policy's fetch (docs/operations.md, "Outbound requests"). */
  fetch: typeof fetch;
  /** The outbound policy itself: a vendor on the OpenAI-compatible package gives it to the lean reader's fetch. */
  outbound: OutboundPolicy;
}
const sdkSettings = (ctx: Ctx): SdkSettings => ({
  apiKey: key(ctx.credential),
  baseURL: ctx.config.base_url || undefined,
  headers: ctx.extraHeaders,
  fetch: ctx.fetch,
  outbound: ctx.outbound,
});

/** The probe of the vendors whose key is proven by `GET {base}/models` with a bearer key. */
const bearerModelsProbe =
  (defaultBase: string, path = '/models') =>
  (ctx: HostedContext) =>
    probeWithKey(ctx, `${apiRoot(ctx, defaultBase)}${path}`, { authorization: `Bearer ${key(ctx.credential)}` });

export interface HostedModelSpec<Sdk> {
  type: string;
  title: string;
  defaultBase: string;
  setupUrl: string;
  /** The model APIs (absent: one chat API taking the common settings, text only). */
  modelApis?: ProviderType['modelApis'];
  /** Absent: `GET {base}{probePath}` with a bearer key (`probePath` absent: `/models`). */
  probePath?: string;
  /** null: none (the type's test answers `unsupported`). */
  probe?: ((ctx: HostedContext) => Promise<ProbeResult>) | null;
  sdk: (settings: SdkSettings) => Sdk;
  chat: (sdk: Sdk, model: string) => LanguageModelV4;
  embedding?: (sdk: Sdk, model: string) => EmbeddingModelV4;
}

/**
 * One hosted vendor reached with an API key: configuration `{base_url?}` (the vendor's API root by
 * default), credential `{api_key}`, its model APIs and, where the vendor embeds text, embeddings.
 * `sdk` is the vendor's AI SDK factory; `chat` and `embedding` pick the model from what it made.
 */
export function hostedModelType<Sdk>(spec: HostedModelSpec<Sdk>): ProviderType {
  const embedding = spec.embedding;
  return defineProviderType({
    kind: 'model',
    type: spec.type,
    title: spec.title,
    configuration: baseUrlConfig(`default ${spec.defaultBase}`),
    credential: ApiKeyCredential,
    credentialRequired: true,
    setupUrl: spec.setupUrl,
    endpointFields: ['base_url'],
    modelApis: spec.modelApis ?? [{ api: 'chat', settingsSchema: commonSettings }],
    ...(spec.probe !== null ? { probe: spec.probe ?? bearerModelsProbe(spec.defaultBase, spec.probePath) } : {}),
    languageModel: (ctx, model) => spec.chat(spec.sdk(sdkSettings(ctx)), model.providerModel),
    ...(embedding
      ? { embeddingModel: (ctx: Ctx, model: { providerModel: string }) => embedding(spec.sdk(sdkSettings(ctx)), model.providerModel) }
      : {}),
  });
}

/** OpenAI's two model APIs, which Azure OpenAI serves too. */
const openAIModelApis: NonNullable<ProviderType['modelApis']> = [
  { api: 'responses', settingsSchema: commonSettings, inputMedia: ['image'], toolResultMedia: ['image'], jsonSchemaResponse: true },
  { api: 'chat', settingsSchema: commonSettings, inputMedia: ['image', 'audio'], jsonSchemaResponse: true },
];
/** The model of an OpenAI-style client for the model's API: chat completions or the Responses API. */
const chatOrResponses = (provider: OpenAIProvider | AzureOpenAIProvider, model: { api: string; providerModel: string }) =>
  model.api === 'chat' ? provider.chat(model.providerModel) : provider.responses(model.providerModel);

registerProviderType(
  defineProviderType({
    kind: 'model',
    type: 'development',
    title: 'Development (offline scripted model)',
    configuration: NoConfiguration,
    credential: NoCredential,
    credentialRequired: false,
    // For trying the service and for tests: a production deployment offers it only when it says so.
    offeredWhen: (deployment) => deployment.allowDevelopmentModels,
    modelApis: [
      {
        api: 'scripted',
        settingsSchema: { type: 'object', properties: { script: { type: 'array' }, after_script: { enum: ['echo', 'repeat_last'] } } },
      },
    ],
    probe: async () => ({ status: 'succeeded' }),
    languageModel: (_ctx, model, settings) => createScriptedModel(model.providerModel, settings as ScriptSettings),
    embeddingModel: (_ctx, model) => createHashEmbeddingModel(model.providerModel),
  }),
);

registerProviderType(
  defineProviderType({
    kind: 'model',
    type: 'openai',
    title: 'OpenAI',
    configuration: Type.Object(
      {
        base_url: Type.Optional(uriMember('default https://api.openai.com/v1')),
        organization: Type.Optional(Type.String()),
        project: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
    credential: ApiKeyCredential,
    credentialRequired: true,
    setupUrl: 'https://platform.openai.com/api-keys',
    endpointFields: ['base_url'],
    modelApis: openAIModelApis,
    probe: (ctx) =>
      probeWithKey(ctx, `${apiRoot(ctx, 'https://api.openai.com/v1')}/models`, { authorization: `Bearer ${key(ctx.credential)}` }),
    languageModel: (ctx, model) => {
      const provider = createOpenAI({ ...sdkSettings(ctx), organization: ctx.config.organization, project: ctx.config.project });
      return chatOrResponses(provider, model);
    },
    embeddingModel: (ctx, model) => createOpenAI(sdkSettings(ctx)).embeddingModel(model.providerModel),
  }),
);

/** The configuration of a server its user runs, and the context its adapters receive. */
type SelfHostedDefinition = ProviderTypeDefinition<TObject<{ base_url: ReturnType<typeof uriMember> }>, typeof OptionalApiKeyCredential>;
export type SelfHostedContext = Parameters<NonNullable<SelfHostedDefinition['languageModel']>>[0];

/**
 * The AI SDK client of an OpenAI-compatible provider (chat and embeddings share it). A streaming chat
 * answer requested by model-stream.ts is read by the lean reader (lean-chat-fetch.ts); every other
 * answer goes through the policy's fetch and the SSE coalescer, as for the other types.
 */
function openAICompatibleClient(ctx: SelfHostedContext) {
  return createOpenAICompatible({
    name: 'openai_compatible',
    baseURL: ctx.config.base_url,
    apiKey: ctx.credential?.api_key,
    headers: ctx.extraHeaders,
    fetch: leanChatFetch(ctx.outbound, coalescingFetch(ctx.fetch)),
  });
}

/**
 * A model server its user runs (vLLM, LM Studio, Ollama, …): its API root is required (no default),
 * a bearer key is optional (for a server behind an authenticating proxy), and it offers one chat
 * model API, text only — such a server promises nothing more (a vision model behind one says so with
 * `settings.input_media`). The probe reads `probePath` under the root.
 */
export function selfHostedModelType(spec: {
  type: string;
  title: string;
  baseUrlDescription: string;
  probePath: string;
  languageModel: NonNullable<SelfHostedDefinition['languageModel']>;
  embeddingModel: NonNullable<SelfHostedDefinition['embeddingModel']>;
}): ProviderType {
  return defineProviderType({
    kind: 'model',
    type: spec.type,
    title: spec.title,
    configuration: requiredBaseUrlConfig(spec.baseUrlDescription),
    credential: OptionalApiKeyCredential,
    credentialRequired: false,
    endpointFields: ['base_url'],
    modelApis: [{ api: 'chat', settingsSchema: commonSettings }],
    probe: (ctx) => probeWithKey(ctx, `${trimSlash(ctx.config.base_url)}${spec.probePath}`, optionalBearer(ctx.credential)),
    languageModel: spec.languageModel,
    embeddingModel: spec.embeddingModel,
  });
}

registerProviderType(
  selfHostedModelType({
    type: 'openai_compatible',
    title: 'OpenAI-compatible (Ollama, vLLM, LM Studio, Groq, Together, OpenRouter, DeepSeek, Mistral…)',
    baseUrlDescription: 'the API root, e.g. http://127.0.0.1:11434/v1',
    probePath: '/models',
    languageModel: (ctx, model) => openAICompatibleClient(ctx).chatModel(model.providerModel),
    embeddingModel: (ctx, model) => openAICompatibleClient(ctx).embeddingModel(model.providerModel),
  }),
);

registerProviderType(
  hostedModelType({
    type: 'anthropic',
    title: 'Anthropic',
    defaultBase: 'https://api.anthropic.com/v1',
    setupUrl: 'https://console.anthropic.com/settings/keys',
    modelApis: [{ api: 'messages', settingsSchema: commonSettings, inputMedia: ['image'], toolResultMedia: ['image'] }],
    probe: (ctx) =>
      probeWithKey(ctx, `${apiRoot(ctx, 'https://api.anthropic.com/v1')}/models?limit=1`, {
        'x-api-key': key(ctx.credential),
        'anthropic-version': '2023-06-01',
      }),
    sdk: (settings) => createAnthropic({ ...settings, fetch: coalescingFetch(settings.fetch) }),
    chat: (sdk, model) => sdk(model),
  }),
);

registerProviderType(
  hostedModelType({
    type: 'google',
    title: 'Google Gemini',
    defaultBase: 'https://generativelanguage.googleapis.com/v1beta',
    setupUrl: 'https://aistudio.google.com/app/apikey',
    modelApis: [{ api: 'generate_content', settingsSchema: commonSettings, inputMedia: ['image', 'audio', 'video'] }],
    probe: (ctx) =>
      probeWithKey(ctx, `${apiRoot(ctx, 'https://generativelanguage.googleapis.com/v1beta')}/models?pageSize=1`, {
        'x-goog-api-key': key(ctx.credential),
      }),
    sdk: createGoogle,
    chat: (sdk, model) => sdk(model),
    embedding: (sdk, model) => sdk.embeddingModel(model),
  }),
);

registerProviderType(
  defineProviderType({
    kind: 'model',
    type: 'azure',
    title: 'Azure OpenAI',
    configuration: Type.Object(
      {
        resource_name: Type.Optional(Type.String({ pattern: '^[a-z0-9-]{2,64}$' })),
        base_url: Type.Optional(uriMember('instead of resource_name, e.g. https://x.openai.azure.com/openai')),
        api_version: Type.Optional(Type.String()),
      },
      { additionalProperties: false, anyOf: [{ required: ['resource_name'] }, { required: ['base_url'] }] },
    ),
    credential: ApiKeyCredential,
    credentialRequired: true,
    setupUrl: 'https://portal.azure.com/',
    endpointFields: ['base_url'],
    modelApis: openAIModelApis,
    probe: (ctx) => {
      const root = ctx.config.base_url ? trimSlash(ctx.config.base_url) : `https://${ctx.config.resource_name}.openai.azure.com/openai`;
      return probeWithKey(ctx, `${root}/models?api-version=${encodeURIComponent(ctx.config.api_version ?? '2024-10-21')}`, {
        'api-key': key(ctx.credential),
      });
    },
    languageModel: (ctx, model) => {
      const provider = createAzure({ ...sdkSettings(ctx), resourceName: ctx.config.resource_name, apiVersion: ctx.config.api_version });
      return chatOrResponses(provider, model);
    },
  }),
);

/** Bedrock's credential: an AWS access key pair, with a session token for temporary credentials. */
const BedrockCredential = Type.Object(
  {
    access_key_id: Type.String({ minLength: 1 }),
    secret_access_key: Type.String({ minLength: 1, writeOnly: true }),
    session_token: Type.Optional(Type.String({ writeOnly: true })),
  },
  { additionalProperties: false },
);

// The spec lists the Bedrock-style type among those whose test is `unsupported` (no probe).
registerProviderType(
  defineProviderType({
    kind: 'model',
    type: 'bedrock',
    title: 'Amazon Bedrock',
    configuration: Type.Object(
      { region: Type.String({ pattern: '^[a-z]{2}(-[a-z]+)+-\\d$' }), base_url: Type.Optional(uriMember('a custom endpoint')) },
      { additionalProperties: false },
    ),
    credential: BedrockCredential,
    credentialRequired: true,
    setupUrl: 'https://console.aws.amazon.com/iam/',
    endpointFields: ['base_url'],
    modelApis: [{ api: 'converse', settingsSchema: commonSettings, inputMedia: ['image'], toolResultMedia: ['image'] }],
    languageModel: (ctx, model) => {
      const credential: Partial<Static<typeof BedrockCredential>> = ctx.credential ?? {};
      return createAmazonBedrock({
        fetch: ctx.fetch,
        region: ctx.config.region,
        baseURL: ctx.config.base_url,
        accessKeyId: credential.access_key_id,
        secretAccessKey: credential.secret_access_key,
        sessionToken: credential.session_token,
        headers: ctx.extraHeaders,
      })(model.providerModel);
    },
  }),
);
