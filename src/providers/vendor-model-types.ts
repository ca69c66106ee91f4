// More model provider types: vendors with their own AI SDK provider package (AI SDK 7 line), gateways and
// the subscription-backed type. Each calls its vendor's real wire protocol; `base_url` is an endpoint
// member everywhere, so the endpoint policy applies and a self-hosted or proxied endpoint can be set.
import { createMistral } from '@ai-sdk/mistral';
import { createGroq } from '@ai-sdk/groq';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createTogetherAI } from '@ai-sdk/togetherai';
import { createCohere } from '@ai-sdk/cohere';
import { createFireworks } from '@ai-sdk/fireworks';
import { createVertex } from '@ai-sdk/google-vertex';
import { createGateway } from '@ai-sdk/gateway';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createOpenRouter } from '@openrouter/ai-sdk-provider';
import { createOllama } from 'ollama-ai-provider-v2';
import { gaxios, JWT, OAuth2Client } from 'google-auth-library';
import Type, { type Static } from 'typebox';
import {
  apiRoot,
  baseUrlConfig,
  commonSettings,
  hostedModelType,
  key,
  optionalBearer,
  probeWithKey,
  selfHostedModelType,
  type HostedModelSpec,
  type SelfHostedContext,
} from './model-types.js';
import { ApiKeyCredential, uriMember } from './common-schemas.js';
import { coalescingFetch } from './coalescing-fetch.js';
import { leanChatFetch } from './lean-chat-fetch.js';
import { defineProviderType, registerProviderType as register, type ProviderType, type TypedProviderContext } from './registry.js';

// Listed after the seven model types of the first published catalogue (see registry.ts, listGroup).
const registerProviderType = (type: ProviderType) => register({ listGroup: 1, ...type });

/** One hosted vendor reached with an API key (see `hostedModelType`), listed after the first catalogue. */
function hostedVendor<Sdk>(spec: HostedModelSpec<Sdk>) {
  registerProviderType(hostedModelType(spec));
}

// ── vendors speaking OpenAI-style chat completions, each through its own AI SDK package ──

hostedVendor({
  type: 'mistral',
  title: 'Mistral AI',
  defaultBase: 'https://api.mistral.ai/v1',
  setupUrl: 'https://console.mistral.ai/api-keys',
  sdk: createMistral,
  chat: (sdk, m) => sdk.chat(m),
  embedding: (sdk, m) => sdk.embeddingModel(m),
});

hostedVendor({
  type: 'groq',
  title: 'Groq',
  defaultBase: 'https://api.groq.com/openai/v1',
  setupUrl: 'https://console.groq.com/keys',
  sdk: createGroq,
  chat: (sdk, m) => sdk.languageModel(m),
});

// xAI's chat completions route, through the OpenAI-compatible package: xAI's own package (from its
// AI SDK 7 major on) speaks only xAI's Responses API, and this type's model API is `chat`.
hostedVendor({
  type: 'xai',
  title: 'xAI (Grok)',
  defaultBase: 'https://api.x.ai/v1',
  setupUrl: 'https://console.x.ai/',
  // xAI's chat completions route, through the OpenAI-compatible package: xAI's own package (from its
  // AI SDK 7 major on) speaks only xAI's Responses API, and this type's model API is `chat`. A
  // streaming chat answer is read by the lean reader, as for `openai_compatible` (model-types.ts).
  sdk: (settings) =>
    createOpenAICompatible({
      ...settings,
      fetch: leanChatFetch(settings.outbound, coalescingFetch(settings.fetch)),
      name: 'xai',
      baseURL: settings.baseURL ?? 'https://api.x.ai/v1',
    }),
  chat: (sdk, m) => sdk.chatModel(m),
});

hostedVendor({
  type: 'deepseek',
  title: 'DeepSeek',
  defaultBase: 'https://api.deepseek.com',
  setupUrl: 'https://platform.deepseek.com/api_keys',
  sdk: createDeepSeek,
  chat: (sdk, m) => sdk.chat(m),
});

hostedVendor({
  type: 'together',
  title: 'Together AI',
  defaultBase: 'https://api.together.xyz/v1',
  setupUrl: 'https://api.together.ai/settings/api-keys',
  sdk: createTogetherAI,
  chat: (sdk, m) => sdk.chatModel(m),
  embedding: (sdk, m) => sdk.embeddingModel(m),
});

hostedVendor({
  type: 'fireworks',
  title: 'Fireworks AI',
  defaultBase: 'https://api.fireworks.ai/inference/v1',
  setupUrl: 'https://fireworks.ai/account/api-keys',
  sdk: createFireworks,
  chat: (sdk, m) => sdk.chatModel(m),
  embedding: (sdk, m) => sdk.embeddingModel(m),
});

// OpenRouter's model list is public: `GET /key` (the key's own limits) is what proves the key.
hostedVendor({
  type: 'openrouter',
  title: 'OpenRouter',
  defaultBase: 'https://openrouter.ai/api/v1',
  setupUrl: 'https://openrouter.ai/settings/keys',
  probePath: '/key',
  sdk: createOpenRouter,
  chat: (sdk, m) => sdk.chat(m),
  embedding: (sdk, m) => sdk.embeddingModel(m),
});

// ── vendors with protocols of their own ──

// Cohere's v2 chat API; its model list is served under /v1 only.
hostedVendor({
  type: 'cohere',
  title: 'Cohere',
  defaultBase: 'https://api.cohere.com/v2',
  setupUrl: 'https://dashboard.cohere.com/api-keys',
  probe: (ctx) =>
    probeWithKey(ctx, `${apiRoot(ctx, 'https://api.cohere.com/v2').replace(/\/v2$/, '')}/v1/models?page_size=1`, {
      authorization: `Bearer ${key(ctx.credential)}`,
    }),
  sdk: createCohere,
  chat: (sdk, m) => sdk(m),
  embedding: (sdk, m) => sdk.embeddingModel(m),
});

// Hugging Face's inference router, through its OpenAI-compatible chat completions route. (Its AI SDK
// package speaks the router's Responses API but drops tool results from the conversation, so a
// model could call a tool and never see the answer.) Its streaming chat answers are read by the lean reader.
hostedVendor({
  type: 'huggingface',
  title: 'Hugging Face (Inference Providers)',
  defaultBase: 'https://router.huggingface.co/v1',
  setupUrl: 'https://huggingface.co/settings/tokens',
  sdk: (settings) =>
    createOpenAICompatible({
      ...settings,
      fetch: leanChatFetch(settings.outbound, coalescingFetch(settings.fetch)),
      name: 'huggingface',
      baseURL: settings.baseURL ?? 'https://router.huggingface.co/v1',
    }),
  chat: (sdk, m) => sdk.chatModel(m),
});

// A self-hosted Ollama server through its native API (`/api/chat`, `/api/embed`); no default: the
// server is the user's, so its address is required (plain HTTP needs the operator's allowance).
// Ollama has no keys of its own; a bearer token is for a server behind an authenticating proxy.
registerProviderType(
  selfHostedModelType({
    type: 'ollama',
    title: 'Ollama (self-hosted)',
    baseUrlDescription: 'the server’s API root, e.g. http://127.0.0.1:11434/api',
    probePath: '/tags',
    languageModel: (ctx, model) => ollamaClient(ctx).chat(model.providerModel),
    embeddingModel: (ctx, model) => ollamaClient(ctx).textEmbeddingModel(model.providerModel),
  }),
);
function ollamaClient(ctx: SelfHostedContext) {
  return createOllama({
    baseURL: ctx.config.base_url,
    headers: { ...optionalBearer(ctx.credential), ...ctx.extraHeaders },
    fetch: ctx.fetch,
  });
}

// ── the types the contract answers `unsupported` to a test (no probe) ──

// Google Vertex AI (Gemini through generateContent on Vertex): a service account key or an OAuth
// access token. Proving either costs a token exchange with Google, not one inexpensive request.
/** Vertex's credential: a service account key or an OAuth access token, exactly one. */
const VertexCredential = Type.Object(
  {
    service_account_json: Type.Optional(
      Type.String({ minLength: 2, writeOnly: true, description: 'the service account key file (JSON text)' }),
    ),
    access_token: Type.Optional(
      Type.String({ minLength: 1, writeOnly: true, description: 'an OAuth 2 access token (expires; replace it)' }),
    ),
  },
  { oneOf: [{ required: ['service_account_json'] }, { required: ['access_token'] }], additionalProperties: false },
);
const vertexType = defineProviderType({
  kind: 'model',
  type: 'vertex',
  title: 'Google Vertex AI',
  configuration: Type.Object(
    {
      project: Type.String({ minLength: 1 }),
      location: Type.String({ pattern: '^[a-z0-9-]+$', description: 'e.g. us-central1, or global' }),
      base_url: Type.Optional(
        uriMember('default https://{location}-aiplatform.googleapis.com/v1beta1/projects/{project}/locations/{location}/publishers/google'),
      ),
    },
    { additionalProperties: false },
  ),
  credential: VertexCredential,
  credentialRequired: true,
  setupUrl: 'https://console.cloud.google.com/iam-admin/serviceaccounts',
  endpointFields: ['base_url'],
  modelApis: [{ api: 'generate_content', settingsSchema: commonSettings, inputMedia: ['image', 'audio', 'video'] }],
  languageModel: (ctx, model) => vertexClient(ctx)(model.providerModel),
  embeddingModel: (ctx, model) => vertexClient(ctx).embeddingModel(model.providerModel),
});
registerProviderType(vertexType);
function vertexClient(
  ctx: Omit<TypedProviderContext<{ project: string; location: string; base_url?: string }, Static<typeof VertexCredential>>, 'signal'>,
) {
  const credential = ctx.credential ?? {};
  // Every request google-auth-library makes (the service account's token exchange with Google's
  // OAuth endpoint) goes through the provider's fetch, the outbound policy's, like the model calls.
  const transporter = new gaxios.Gaxios({ fetchImplementation: ctx.fetch });
  let authClient: OAuth2Client;
  if (credential.access_token) {
    // A client holding only the given token: google-auth-library hands it out and never refreshes it.
    authClient = new OAuth2Client({ transporter });
    authClient.setCredentials({ access_token: credential.access_token, expiry_date: Date.now() + 3_600_000 });
  } else {
    const jwt = new JWT({ scopes: ['https://www.googleapis.com/auth/cloud-platform'], transporter });
    jwt.fromJSON(parseServiceAccount(credential.service_account_json ?? ''));
    authClient = jwt;
  }
  return createVertex({
    fetch: ctx.fetch,
    project: ctx.config.project,
    location: ctx.config.location,
    baseURL: ctx.config.base_url,
    headers: ctx.extraHeaders,
    // The client is given whole: google-auth-library then looks for no other credentials (the
    // environment's, or a cloud metadata service's) and builds no client of its own type.
    googleAuthOptions: { authClient },
  });
}
/**
 * A service account key file. Only that type: google-auth-library's other credential files (external
 * accounts, impersonation, authorized users) name URLs and local files of their own to read.
 */
function parseServiceAccount(text: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('the Vertex credential’s service_account_json is not JSON');
  }
  const key = parsed as Record<string, unknown> | null;
  if (!key || typeof key !== 'object' || key.type !== 'service_account')
    throw new Error('the Vertex credential’s service_account_json is not a service account key (its "type" must be "service_account")');
  if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string')
    throw new Error('the Vertex credential’s service_account_json has no client_email or private_key');
  return key as Record<string, string>;
}

// Vercel's AI Gateway, through its own protocol (the AI SDK's gateway provider).
hostedVendor({
  type: 'vercel',
  title: 'Vercel AI Gateway',
  defaultBase: 'https://ai-gateway.vercel.sh/v1/ai',
  setupUrl: 'https://vercel.com/d?to=%2F%5Bteam%5D%2F%7E%2Fai%2Fapi-keys',
  modelApis: [{ api: 'gateway', settingsSchema: commonSettings }],
  probe: null,
  sdk: createGateway,
  chat: (sdk, m) => sdk.languageModel(m),
  embedding: (sdk, m) => sdk.embeddingModel(m),
});

// A ChatGPT subscription (Plus, Pro, Team) through the Codex backend's Responses API: the access
// token and account id of a ChatGPT sign-in (what `codex login` stores), not a platform API key.
registerProviderType(
  defineProviderType({
    kind: 'model',
    type: 'chatgpt',
    title: 'ChatGPT subscription (Codex backend)',
    configuration: baseUrlConfig('default https://chatgpt.com/backend-api/codex'),
    credential: Type.Object(
      { access_token: Type.String({ minLength: 1, writeOnly: true }), account_id: Type.String({ minLength: 1 }) },
      { additionalProperties: false },
    ),
    credentialRequired: true,
    setupUrl: 'https://chatgpt.com/',
    endpointFields: ['base_url'],
    modelApis: [{ api: 'responses', settingsSchema: commonSettings, inputMedia: ['image'] }],
    languageModel: (ctx, model) =>
      createOpenAI({
        fetch: ctx.fetch,
        apiKey: ctx.credential?.access_token ?? '',
        baseURL: ctx.config.base_url ?? 'https://chatgpt.com/backend-api/codex',
        headers: { 'chatgpt-account-id': ctx.credential?.account_id ?? '', ...ctx.extraHeaders },
      }).responses(model.providerModel),
  }),
);

// Pydantic's AI Gateway (one key for many vendors' models), through its OpenAI-compatible chat route;
// its streaming chat answers are read by the lean reader.
registerProviderType(
  defineProviderType({
    kind: 'model',
    type: 'pydantic',
    title: 'Pydantic AI Gateway',
    configuration: Type.Object(
      { base_url: uriMember('the gateway’s OpenAI-compatible route, as its console shows it') },
      { additionalProperties: false },
    ),
    credential: ApiKeyCredential,
    credentialRequired: true,
    setupUrl: 'https://logfire.pydantic.dev/',
    endpointFields: ['base_url'],
    modelApis: [{ api: 'chat', settingsSchema: commonSettings }],
    languageModel: (ctx, model) =>
      createOpenAICompatible({
        name: 'pydantic',
        baseURL: ctx.config.base_url,
        apiKey: key(ctx.credential),
        headers: ctx.extraHeaders,
        fetch: leanChatFetch(ctx.outbound, coalescingFetch(ctx.fetch)),
      }).chatModel(model.providerModel),
  }),
);
