// Model provider types: the AI SDK adapters (real wire protocols) and the offline development model.
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogle } from '@ai-sdk/google';
import { createAzure } from '@ai-sdk/azure';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createScriptedModel, type ScriptSettings } from './scripted-model.js';
import { createHashEmbeddingModel } from './hash-embeddings.js';
import { probeGet, trimSlash } from './http-probe.js';
import { registerProviderType, type JsonSchema } from './registry.js';

export const apiKeyCredential: JsonSchema = {
  type: 'object',
  properties: { api_key: { type: 'string', minLength: 1, writeOnly: true } },
  required: ['api_key'],
  additionalProperties: false,
};
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

registerProviderType({
  kind: 'model',
  type: 'development',
  title: 'Development (offline scripted model)',
  configurationSchema: { type: 'object', properties: {}, additionalProperties: false },
  credentialSchema: { type: 'object', properties: {}, additionalProperties: false },
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
  modelApis: [
    { api: 'responses', settingsSchema: commonSettings, inputMedia: ['image'], toolResultMedia: ['image'], jsonSchemaResponse: true },
    { api: 'chat', settingsSchema: commonSettings, inputMedia: ['image', 'audio'], jsonSchemaResponse: true },
  ],
  probe: (ctx) =>
    probeGet(
      `${trimSlash(String(ctx.config.base_url ?? 'https://api.openai.com/v1'))}/models`,
      { authorization: `Bearer ${key(ctx.credential)}`, ...ctx.extraHeaders },
      ctx.signal,
      [key(ctx.credential)],
    ),
  languageModel: (ctx, model) => {
    const provider = createOpenAI({
      apiKey: key(ctx.credential),
      baseURL: ctx.config.base_url as string | undefined,
      organization: ctx.config.organization as string | undefined,
      project: ctx.config.project as string | undefined,
      headers: ctx.extraHeaders,
    });
    return model.api === 'chat' ? provider.chat(model.providerModel) : provider.responses(model.providerModel);
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
  });
}

registerProviderType({
  kind: 'model',
  type: 'openai_compatible',
  title: 'OpenAI-compatible (Ollama, vLLM, LM Studio, Groq, Together, OpenRouter, DeepSeek, Mistral…)',
  configurationSchema: {
    type: 'object',
    properties: { base_url: baseUrl('the API root, e.g. http://127.0.0.1:11434/v1') },
    required: ['base_url'],
    additionalProperties: false,
  },
  credentialSchema: {
    type: 'object',
    properties: { api_key: { type: 'string', minLength: 1, writeOnly: true } },
    additionalProperties: false,
  },
  credentialRequired: false,
  endpointFields: ['base_url'],
  // Text only: an OpenAI-compatible server promises nothing more (a vision model behind one says so
  // with `settings.input_media`).
  modelApis: [{ api: 'chat', settingsSchema: commonSettings }],
  probe: (ctx) =>
    probeGet(
      `${trimSlash(String(ctx.config.base_url))}/models`,
      { ...(ctx.credential?.api_key ? { authorization: `Bearer ${key(ctx.credential)}` } : {}), ...ctx.extraHeaders },
      ctx.signal,
      [key(ctx.credential)],
    ),
  languageModel: (ctx, model) => openAICompatibleClient(ctx).chatModel(model.providerModel),
  embeddingModel: (ctx, model) => openAICompatibleClient(ctx).embeddingModel(model.providerModel),
});

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
    probeGet(
      `${trimSlash(String(ctx.config.base_url ?? 'https://api.anthropic.com/v1'))}/models?limit=1`,
      { 'x-api-key': key(ctx.credential), 'anthropic-version': '2023-06-01', ...ctx.extraHeaders },
      ctx.signal,
      [key(ctx.credential)],
    ),
  languageModel: (ctx, model) =>
    createAnthropic({ apiKey: key(ctx.credential), baseURL: ctx.config.base_url as string | undefined, headers: ctx.extraHeaders })(
      model.providerModel,
    ),
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
    probeGet(
      `${trimSlash(String(ctx.config.base_url ?? 'https://generativelanguage.googleapis.com/v1beta'))}/models?pageSize=1`,
      { 'x-goog-api-key': key(ctx.credential), ...ctx.extraHeaders },
      ctx.signal,
      [key(ctx.credential)],
    ),
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
  modelApis: [
    { api: 'responses', settingsSchema: commonSettings, inputMedia: ['image'], toolResultMedia: ['image'], jsonSchemaResponse: true },
    { api: 'chat', settingsSchema: commonSettings, inputMedia: ['image', 'audio'], jsonSchemaResponse: true },
  ],
  probe: (ctx) => {
    const root = ctx.config.base_url
      ? trimSlash(String(ctx.config.base_url))
      : `https://${String(ctx.config.resource_name)}.openai.azure.com/openai`;
    return probeGet(
      `${root}/models?api-version=${encodeURIComponent(String(ctx.config.api_version ?? '2024-10-21'))}`,
      { 'api-key': key(ctx.credential), ...ctx.extraHeaders },
      ctx.signal,
      [key(ctx.credential)],
    );
  },
  languageModel: (ctx, model) => {
    const provider = createAzure({
      apiKey: key(ctx.credential),
      resourceName: ctx.config.resource_name as string | undefined,
      baseURL: ctx.config.base_url as string | undefined,
      apiVersion: ctx.config.api_version as string | undefined,
      headers: ctx.extraHeaders,
    });
    return model.api === 'chat' ? provider.chat(model.providerModel) : provider.responses(model.providerModel);
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
