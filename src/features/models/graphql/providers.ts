import { builder } from '../../../graphql/builder.js';
import { documentScalar } from '../../../graphql/document-scalars.js';
import { payloadOf } from '../../../graphql/modules/payloads.js';
import { resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery } from '../../../graphql/modules/query-fields.js';
import { asNode } from '../../../graphql/modules/node.js';
import { connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { nameAndLabelInputs, withConfigAndCredential, withNamedResourceFields } from '../../../graphql/modules/named-fields.js';
import { ProviderTypeDescriptionRef } from './provider-types.js';
import {
  createProvider,
  getProvider,
  listProviders,
  listProviderTypes,
  loadProviders,
  parseKind,
  testProvider,
  updateProvider,
  validateExtraHeaders,
} from '../providers.js';

// A model provider's extra request headers, checked as the service checks them (document-scalars.ts).
documentScalar('ExtraHeaders', {
  description:
    'Extra request headers of a model provider: header name → a single-line value (at most 4,096 characters); Host, Content-Length, Transfer-Encoding and Connection are not allowed.',
  check: validateExtraHeaders,
  field: 'extra_headers',
});
import { modelPricing, showPrice, validatePricing } from '../pricing.js';

// A model's own prices, checked as the service checks them (document-scalars.ts); `{}` means none.
documentScalar('ModelPricingDocument', {
  description:
    "A model's own prices: {input_per_mtok, output_per_mtok, cached_input_per_mtok (numbers from 0 to 1000000 per million tokens, at most 6 decimals), currency (ISO 4217, default USD)}, every member optional; `{}` sets none.",
  check: validatePricing,
  field: 'pricing',
});
import { createModel, getModel, listModels, loadModels, MODEL_NODE_PREFIX, modelNodeId, parseModelNodeId, updateModel } from '../models.js';
import { ProviderKindEnum, storedValue } from '../../../graphql/modules/enums.js';
import { relation } from '../../../graphql/modules/relations.js';

export const ProviderRef = builder.prismaObject('Provider', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    kind: t.field({ type: ProviderKindEnum, resolve: (r) => storedValue(ProviderKindEnum, r.kind) }),
    type: t.exposeString('type'),
    extraHeadersConfigured: t.boolean({ resolve: (p) => p.extraHeadersCiphertext !== null }),
  }),
});

const ModelPriceRef = builder.objectRef<ReturnType<typeof showPrice>>('ModelPrice').implement({
  description: 'Prices per million tokens; a member without a price is null.',
  fields: (t) => ({
    inputPerMtok: t.float({ nullable: true, resolve: (p) => p.inputPerMtok }),
    outputPerMtok: t.float({ nullable: true, resolve: (p) => p.outputPerMtok }),
    cachedInputPerMtok: t.float({
      nullable: true,
      description: 'input tokens read from the provider cache; null: they cost what other input tokens cost',
      resolve: (p) => p.cachedInputPerMtok,
    }),
    currency: t.exposeString('currency', { description: 'ISO 4217 code' }),
  }),
});

export const ModelRef = builder.prismaObject('Model', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    key: t.exposeID('key'),
    providerId: t.exposeString('providerId'),
    providerModel: t.exposeString('providerModel'),
    api: t.exposeString('api'),
    settings: t.expose('settings', { type: 'JSON' }),
    pricing: t.field({
      type: ModelPriceRef,
      nullable: true,
      description: 'The price in effect for new requests: the members the model sets, the others from the catalogue',
      resolve: async (m) => {
        const { price } = await modelPricing(m);
        return price ? showPrice(price) : null;
      },
    }),
    pricingSource: t.string({
      nullable: true,
      description: 'model | catalogue | null (no price)',
      resolve: async (m) => (await modelPricing(m)).source,
    }),
    enabled: t.exposeBoolean('enabled'),
  }),
});

asNode(ProviderRef, { kind: 'provider', load: loadProviders });
withNamedResourceFields(ProviderRef);
withConfigAndCredential(ProviderRef);
withNamedResourceFields(ModelRef);
// Models have no stored id: their global ids have a shape of their own (services/models.ts).
asNode(ModelRef, {
  prefix: MODEL_NODE_PREFIX,
  load: loadModels,
  idOf: (model) => modelNodeId(model.workspaceId, model.key),
  matches: (globalId) => parseModelNodeId(globalId) !== null,
  description: 'the Relay global id (`node(id:)` finds the model by it); REST and the other fields name a model by its `key`',
});

const ProviderConnection = connectionOf('Provider', ProviderRef);
const ModelConnection = connectionOf('Model', ModelRef);
const ProbeResultRef = builder.objectRef<{ status: string; message?: string }>('TestProviderPayload').implement({
  fields: (t) => ({
    status: t.exposeString('status', { description: 'succeeded | failed | unsupported' }),
    message: t.string({ nullable: true, resolve: (r) => r.message ?? null }),
  }),
});

const CreateProviderInput = builder.inputType('CreateProviderInput', {
  fields: (t) => ({
    ...nameAndLabelInputs(t),
    type: t.string({ required: true }),
    name: t.string({ required: true }),
    config: t.field({ type: 'JSON' }),
    credential: t.field({ type: 'JSON', description: 'write-only' }),
    extraHeaders: t.field({ type: 'ExtraHeaders', description: 'model providers: write-only extra request headers' }),
    enabled: t.boolean(),
  }),
});
const UpdateProviderInput = builder.inputType('UpdateProviderInput', {
  fields: (t) => ({
    ...nameAndLabelInputs(t),
    enabled: t.boolean(),
    config: t.field({ type: 'JSON' }),
    credential: t.field({ type: 'JSON', description: 'a value replaces, null removes, omitted keeps' }),
    extraHeaders: t.field({ type: 'ExtraHeaders', description: 'a value replaces, null removes, omitted keeps' }),
  }),
});
const ModelInput = builder.inputType('ModelInput', {
  fields: (t) => ({
    key: t.string(),
    providerId: t.string(),
    providerModel: t.string(),
    api: t.string(),
    ...nameAndLabelInputs(t),
    settings: t.field({ type: 'JSON' }),
    pricing: t.field({
      type: 'ModelPricingDocument',
      description: "input_per_mtok, output_per_mtok, cached_input_per_mtok, currency (all optional); null removes the model's own price",
    }),
    enabled: t.boolean(),
  }),
});

connectionQuery('providers', ProviderConnection, {
  description: 'At most 100 a page (default 50).',
  args: (arg) => ({
    kind: arg.string({ required: true }),
    type: arg.string(),
    enabled: arg.boolean(),
    q: arg.string(),
    label: arg.stringList(),
  }),
  list: (call, args) => listProviders(call, args.kind, args),
});
connectionQuery('models', ModelConnection, {
  description: 'At most 100 a page (default 50).',
  args: (arg) => ({ providerId: arg.string(), enabled: arg.boolean(), q: arg.string(), label: arg.stringList() }),
  list: listModels,
});
resourceMutations('model', ModelRef).create(ModelInput, createModel);

builder.queryFields((t) => ({
  providerTypes: t.field({
    type: [ProviderTypeDescriptionRef],
    description: 'The installed types of one provider kind, ordered by type.',
    args: { kind: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      const call = await ctx.call();
      return listProviderTypes(call.deps, a.kind);
    },
  }),
  provider: t.field({
    type: ProviderRef,
    args: { kind: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => getProvider(await ctx.call(), parseKind(a.kind), String(a.id)),
  }),
  model: t.field({
    type: ModelRef,
    args: { key: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => getModel(await ctx.call(), a.key),
  }),
}));

builder.mutationFields((t) => ({
  createProvider: t.field({
    type: payloadOf('createProvider', 'provider', ProviderRef),
    args: { kind: t.arg.string({ required: true }), input: t.arg({ type: CreateProviderInput, required: true }) },
    resolve: async (_r, a, ctx) => createProvider(await ctx.call(), a.kind, a.input),
  }),
  updateProvider: t.field({
    type: payloadOf('updateProvider', 'provider', ProviderRef),
    args: {
      kind: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      ifMatch: t.arg.string(),
      input: t.arg({ type: UpdateProviderInput, required: true }),
    },
    resolve: async (_r, a, ctx) =>
      updateProvider(await ctx.call(), a.kind, String(a.id), a.ifMatch, a.input, {
        credential: Object.prototype.hasOwnProperty.call(a.input, 'credential'),
        extraHeaders: Object.prototype.hasOwnProperty.call(a.input, 'extraHeaders'),
      }),
  }),
  testProvider: t.field({
    type: ProbeResultRef,
    description: 'Needs `run`.',
    args: { kind: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => testProvider(await ctx.call(), a.kind, String(a.id)),
  }),
  updateModel: t.field({
    type: payloadOf('updateModel', 'model', ModelRef),
    args: { key: t.arg.string({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: ModelInput, required: true }) },
    resolve: async (_r, a, ctx) => updateModel(await ctx.call(), a.key, a.ifMatch, a.input),
  }),
}));

relation(ModelRef, 'provider', {
  type: ProviderRef,
  id: (model) => model.providerId,
  description: 'the provider that serves the model (providerId)',
});
