// Model provider types: the AI SDK adapters (real wire protocols) and the offline development model.
import { createOpenAI, type OpenAIProvider } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createAnthropic } from '@ai-sdk/anthropic';
import { coalescingFetch } from './coalescing-fetch.js';
import { createGoogle } from '@ai-sdk/google';
import { createAzure, type AzureOpenAIProvider } from '@ai-sdk/azure';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createScriptedModel, type ScriptSettings } from './scripted-model.js';
import { createHashEmbeddingModel } from './hash-embeddings.js';
import { probeGet, trimSlash } from './http-probe.js';
import { registerProviderType, type JsonSchema, type ProviderContext, type ProviderType } from './registry.js';
import { apiKeyCredential, noConfiguration, noCredential, optionalApiKeyCredential } from './common-schemas.js';

export const commonSettings: JsonSchema = {
  type: 'object',
  properties: {
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    max_output_tokens: { type: 'integer', minimum: 1 },
    stop: { type: 'array', items: { type: 'string' } },
  },
};
export const baseUrl = (description: string) => ({ type: 'string', format: 'uri', description });
export const key = (credential: Record<string, unknown> | null) => String(credential?.api_key ?? '');
/** The configured `base_url`, or the vendor's API root, without a trailing slash. */
export const apiRoot = (ctx: ProviderContext, vendorRoot: string) => trimSlash(String(ctx.config.base_url ?? vendorRoot));
/** A bearer key where the credential has one (servers that need none may sit behind a proxy that does). */
export const optionalBearer = (credential: Record<string, unknown> | null): Record<string, string> =>
  credential?.api_key ? { authorization: `Bearer ${key(credential)}` } : {};
/**
 * A probe's one GET: the vendor's authentication headers with the provider's extra headers, the key
 * kept out of any message.
 */
export const probeWithKey = (ctx: ProviderContext, url: string, auth: Record<string, string>) =>
  probeGet(url, { ...auth, ...ctx.extraHeaders }, ctx.signal, [key(ctx.credential)]);

/** OpenAI's two model APIs, which Azure OpenAI serves too. */
const openAIModelApis: NonNullable<ProviderType['modelApis']> = [
  { api: 'responses', settingsSchema: commonSettings, inputMedia: ['image'], toolResultMedia: ['image'], jsonSchemaResponse: true },
  { api: 'chat', settingsSchema: commonSettings, inputMedia: ['image', 'audio'], jsonSchemaResponse: true },
];
/** The model of an OpenAI-style client for the model's API: chat completions or the Responses API. */
const chatOrResponses = (provider: OpenAIProvider | AzureOpenAIProvider, model: { api: string; providerModel: string }) =>
  model.api === 'chat' ? provider.chat(model.providerModel) : provider.responses(model.providerModel);

registerProviderType({
  kind: 'model',
  type: 'development',
  title: 'Development (offline scripted model)',
  configurationSchema: noConfiguration,
  credentialSchema: noCredential,
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
});

registerProviderType({
  kind: 'model',
  type: 'openai',
  title: 'OpenAI',
  configurationSchema: {
    type: 'object',
    properties: { base_url: baseUrl('default https://api.openai.com/v1'), organization: { type: 'string' }, project: { type: 'string' } },
    additionalProperties: false,
  },
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  setupUrl: 'https://platform.openai.com/api-keys',
  endpointFields: ['base_url'],
  modelApis: openAIModelApis,
  probe: (ctx) =>
    probeWithKey(ctx, `${apiRoot(ctx, 'https://api.openai.com/v1')}/models`, { authorization: `Bearer ${key(ctx.credential)}` }),
  languageModel: (ctx, model) => {
    const provider = createOpenAI({
      apiKey: key(ctx.credential),
      baseURL: ctx.config.base_url as string | undefined,
      organization: ctx.config.organization as string | undefined,
      project: ctx.config.project as string | undefined,
      headers: ctx.extraHeaders,
    });
    return chatOrResponses(provider, model);
  },
  embeddingModel: (ctx, model) =>
    createOpenAI({
      apiKey: key(ctx.credential),
      baseURL: ctx.config.base_url as string | undefined,
      headers: ctx.extraHeaders,
    }).embeddingModel(model.providerModel),
});

/** The AI SDK client of an OpenAI-compatible provider (chat and embeddings share it). */
function openAICompatibleClient(ctx: {
  config: Record<string, unknown>;
  credential?: Record<string, unknown> | null;
  extraHeaders: Record<string, string>;
}) {
  return createOpenAICompatible({
    name: 'openai_compatible',
    baseURL: String(ctx.config.base_url),
    apiKey: ctx.credential?.api_key as string | undefined,
    headers: ctx.extraHeaders,
    fetch: coalescingFetch,
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
  languageModel: NonNullable<ProviderType['languageModel']>;
  embeddingModel: NonNullable<ProviderType['embeddingModel']>;
}): ProviderType {
  return {
    kind: 'model',
    type: spec.type,
    title: spec.title,
    configurationSchema: {
      type: 'object',
      properties: { base_url: baseUrl(spec.baseUrlDescription) },
      required: ['base_url'],
      additionalProperties: false,
    },
    credentialSchema: optionalApiKeyCredential,
    credentialRequired: false,
    endpointFields: ['base_url'],
    modelApis: [{ api: 'chat', settingsSchema: commonSettings }],
    probe: (ctx) => probeWithKey(ctx, `${trimSlash(String(ctx.config.base_url))}${spec.probePath}`, optionalBearer(ctx.credential)),
    languageModel: spec.languageModel,
    embeddingModel: spec.embeddingModel,
  };
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

registerProviderType({
  kind: 'model',
  type: 'anthropic',
  title: 'Anthropic',
  configurationSchema: {
    type: 'object',
    properties: { base_url: baseUrl('default https://api.anthropic.com/v1') },
    additionalProperties: false,
  },
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  setupUrl: 'https://console.anthropic.com/settings/keys',
  endpointFields: ['base_url'],
  modelApis: [{ api: 'messages', settingsSchema: commonSettings, inputMedia: ['image'], toolResultMedia: ['image'] }],
  probe: (ctx) =>
    probeWithKey(ctx, `${apiRoot(ctx, 'https://api.anthropic.com/v1')}/models?limit=1`, {
      'x-api-key': key(ctx.credential),
      'anthropic-version': '2023-06-01',
    }),
  languageModel: (ctx, model) =>
    createAnthropic({
      apiKey: key(ctx.credential),
      baseURL: ctx.config.base_url as string | undefined,
      headers: ctx.extraHeaders,
      fetch: coalescingFetch,
    })(model.providerModel),
});

registerProviderType({
  kind: 'model',
  type: 'google',
  title: 'Google Gemini',
  configurationSchema: {
    type: 'object',
    properties: { base_url: baseUrl('default https://generativelanguage.googleapis.com/v1beta') },
    additionalProperties: false,
  },
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  setupUrl: 'https://aistudio.google.com/app/apikey',
  endpointFields: ['base_url'],
  modelApis: [{ api: 'generate_content', settingsSchema: commonSettings, inputMedia: ['image', 'audio', 'video'] }],
  probe: (ctx) =>
    probeWithKey(ctx, `${apiRoot(ctx, 'https://generativelanguage.googleapis.com/v1beta')}/models?pageSize=1`, {
      'x-goog-api-key': key(ctx.credential),
    }),
  languageModel: (ctx, model) =>
    createGoogle({
      apiKey: key(ctx.credential),
      baseURL: ctx.config.base_url as string | undefined,
      headers: ctx.extraHeaders,
    })(model.providerModel),
  embeddingModel: (ctx, model) =>
    createGoogle({
      apiKey: key(ctx.credential),
      baseURL: ctx.config.base_url as string | undefined,
      headers: ctx.extraHeaders,
    }).embeddingModel(model.providerModel),
});

registerProviderType({
  kind: 'model',
  type: 'azure',
  title: 'Azure OpenAI',
  configurationSchema: {
    type: 'object',
    properties: {
      resource_name: { type: 'string', pattern: '^[a-z0-9-]{2,64}$' },
      base_url: baseUrl('instead of resource_name, e.g. https://x.openai.azure.com/openai'),
      api_version: { type: 'string' },
    },
    additionalProperties: false,
    anyOf: [{ required: ['resource_name'] }, { required: ['base_url'] }],
  },
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  setupUrl: 'https://portal.azure.com/',
  endpointFields: ['base_url'],
  modelApis: openAIModelApis,
  probe: (ctx) => {
    const root = ctx.config.base_url
      ? trimSlash(String(ctx.config.base_url))
      : `https://${String(ctx.config.resource_name)}.openai.azure.com/openai`;
    return probeWithKey(ctx, `${root}/models?api-version=${encodeURIComponent(String(ctx.config.api_version ?? '2024-10-21'))}`, {
      'api-key': key(ctx.credential),
    });
  },
  languageModel: (ctx, model) => {
    const provider = createAzure({
      apiKey: key(ctx.credential),
      resourceName: ctx.config.resource_name as string | undefined,
      baseURL: ctx.config.base_url as string | undefined,
      apiVersion: ctx.config.api_version as string | undefined,
      headers: ctx.extraHeaders,
    });
    return chatOrResponses(provider, model);
  },
});

// The spec lists the Bedrock-style type among those whose test is `unsupported` (no probe).
registerProviderType({
  kind: 'model',
  type: 'bedrock',
  title: 'Amazon Bedrock',
  configurationSchema: {
    type: 'object',
    properties: { region: { type: 'string', pattern: '^[a-z]{2}(-[a-z]+)+-\\d$' }, base_url: baseUrl('a custom endpoint') },
    required: ['region'],
    additionalProperties: false,
  },
  credentialSchema: {
    type: 'object',
    properties: {
      access_key_id: { type: 'string', minLength: 1 },
      secret_access_key: { type: 'string', minLength: 1, writeOnly: true },
      session_token: { type: 'string', writeOnly: true },
    },
    required: ['access_key_id', 'secret_access_key'],
    additionalProperties: false,
  },
  credentialRequired: true,
  setupUrl: 'https://console.aws.amazon.com/iam/',
  endpointFields: ['base_url'],
  modelApis: [{ api: 'converse', settingsSchema: commonSettings, inputMedia: ['image'], toolResultMedia: ['image'] }],
  languageModel: (ctx, model) =>
    createAmazonBedrock({
      region: String(ctx.config.region),
      baseURL: ctx.config.base_url as string | undefined,
      accessKeyId: ctx.credential?.access_key_id as string,
      secretAccessKey: ctx.credential?.secret_access_key as string,
      sessionToken: ctx.credential?.session_token as string | undefined,
      headers: ctx.extraHeaders,
    })(model.providerModel),
});
