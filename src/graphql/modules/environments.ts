// Environment templates (live: changed in place, disabled by PATCH `enabled: false`) and the
// environments made from them (DELETE destroys the instance). Thin resolvers over
// src/services/environment-templates.ts and src/services/environments.ts.
import DataLoader from 'dataloader';
import { createContextCache } from '@pothos/core';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { payloadOf } from './payloads.js';
import { asNode, nodeLoading } from './node.js';
import { connectionArgs, connectionFrom, connectionOf, VersionedRef } from './common.js';
import { withLabelList } from './labels.js';
import { EnvironmentStatusEnum, storedValue } from './enums.js';
import { ID_PREFIX } from '../../lib/ids.js';
import { loadEnvironments } from '../../services/environments.js';
import { loadEnvironmentTemplates } from '../../services/environment-templates.js';
import {
  createEnvironmentTemplate,
  getEnvironmentTemplate,
  listEnvironmentTemplates,
  updateEnvironmentTemplate,
} from '../../services/environment-templates.js';
import {
  createEnvironment,
  destroyEnvironment,
  getEnvironment,
  listEnvironments,
  runIdsUsing,
  startEnvironment,
  stopEnvironment,
} from '../../services/environments.js';
import { relation, loadRelated } from './relations.js';
import { ProviderRef } from './providers.js';
import { RunRef } from './runs.js';
import type { Run } from '../../generated/prisma/client.js';

export const EnvironmentTemplateRef = builder.prismaObject('EnvironmentTemplate', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    providerId: t.exposeString('providerId', { description: 'the environment provider that makes its environments' }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    labels: t.expose('labels', { type: 'JSON' }),
    config: t.expose('config', {
      type: 'JSON',
      description: 'free-form for this API: valid against the provider type\'s environment schema (`providerTypes(kind: "environment")`)',
    }),
    enabled: t.exposeBoolean('enabled', { description: 'a disabled template refuses new use with `disabled`' }),
  }),
});
asNode(EnvironmentTemplateRef, { prefix: ID_PREFIX.environmentTemplate, load: loadEnvironmentTemplates });
withLabelList(EnvironmentTemplateRef);

// The runs that mount each environment of an operation, read in one statement per tick.
const environmentRunIds = createContextCache(
  (ctx: GraphQLContext) =>
    new DataLoader<string, string[]>(
      async (ids) => {
        const found = await runIdsUsing(await ctx.call(), ids);
        return ids.map((id) => found.get(id) ?? []);
      },
      { cache: false },
    ),
);

export const EnvironmentRef = builder.prismaObject('Environment', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    templateId: t.exposeString('templateId', { nullable: true }),
    providerId: t.exposeString('providerId'),
    name: t.exposeString('name'),
    status: t.field({ type: EnvironmentStatusEnum, resolve: (e) => storedValue(EnvironmentStatusEnum, e.status) }),
    instanceId: t.exposeString('externalId', {
      nullable: true,
      description: "the provider's id of the instance (null until provisioned)",
    }),
    workingDirectory: t.exposeString('workingDirectory', {
      nullable: true,
      description: 'where commands start inside the instance (null until provisioned)',
    }),
    failureMessage: t.exposeString('failureMessage', { nullable: true, description: 'why provisioning failed (status `failed`)' }),
    config: t.expose('config', { type: 'JSON', description: "the template's config as it was when the environment was made" }),
    labels: t.expose('labels', { type: 'JSON' }),
    destroyedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true }),
    runIds: t.stringList({
      description: 'the runs that mount this environment, newest first (at most 50)',
      resolve: (e, _args, ctx) => environmentRunIds(ctx).load(e.id),
    }),
  }),
});
asNode(EnvironmentRef, { prefix: ID_PREFIX.environment, load: loadEnvironments });
withLabelList(EnvironmentRef);

const EnvironmentTemplateConnection = connectionOf('EnvironmentTemplate', EnvironmentTemplateRef);
const EnvironmentConnection = connectionOf('Environment', EnvironmentRef);

const EnvironmentTemplateInput = builder.inputType('EnvironmentTemplateInput', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    labels: t.field({ type: 'JSON' }),
    providerId: t.string({ description: 'an environment provider of the workspace (required on create)' }),
    config: t.field({ type: 'JSON', description: "valid against the provider type's environment schema" }),
    enabled: t.boolean(),
  }),
});
const CreateEnvironmentInput = builder.inputType('CreateEnvironmentInput', {
  fields: (t) => ({
    templateId: t.string({ required: true }),
    name: t.string({ description: "default: the template's name" }),
    labels: t.field({ type: 'JSON' }),
  }),
});

builder.queryFields((t) => ({
  environmentTemplate: t.field({
    type: EnvironmentTemplateRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => getEnvironmentTemplate(await ctx.call(), String(a.id)),
  }),
  environmentTemplates: t.field({
    type: EnvironmentTemplateConnection,
    description: 'Newest first. At most 100 a page (default 50).',
    args: { label: t.arg.stringList(), q: t.arg.string(), enabled: t.arg.boolean(), ...connectionArgs(t.arg) },
    resolve: async (_r, a, ctx) => connectionFrom(a, async (page) => listEnvironmentTemplates(await ctx.call(), { ...a, ...page })),
  }),
  environment: t.field({
    type: EnvironmentRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => getEnvironment(await ctx.call(), String(a.id)),
  }),
  environments: t.field({
    type: EnvironmentConnection,
    description: 'Newest first, destroyed ones included. At most 100 a page (default 50).',
    args: {
      label: t.arg.stringList(),
      status: t.arg({ type: EnvironmentStatusEnum }),
      templateId: t.arg.string(),
      ...connectionArgs(t.arg),
    },
    resolve: async (_r, a, ctx) => connectionFrom(a, async (page) => listEnvironments(await ctx.call(), { ...a, ...page })),
  }),
}));

builder.mutationFields((t) => ({
  createEnvironmentTemplate: t.field({
    type: payloadOf('createEnvironmentTemplate', 'environmentTemplate', EnvironmentTemplateRef),
    args: { input: t.arg({ type: EnvironmentTemplateInput, required: true }) },
    resolve: async (_r, a, ctx) => createEnvironmentTemplate(await ctx.call(), a.input),
  }),
  updateEnvironmentTemplate: t.field({
    type: payloadOf('updateEnvironmentTemplate', 'environmentTemplate', EnvironmentTemplateRef),
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: EnvironmentTemplateInput, required: true }) },
    resolve: async (_r, a, ctx) => updateEnvironmentTemplate(await ctx.call(), String(a.id), a.ifMatch, a.input),
  }),
  createEnvironment: t.field({
    type: payloadOf('createEnvironment', 'environment', EnvironmentRef),
    description: 'Makes an environment from a template and provisions it; answers it ready, or failed with the reason.',
    args: { input: t.arg({ type: CreateEnvironmentInput, required: true }) },
    resolve: async (_r, a, ctx) => createEnvironment(await ctx.call(), a.input),
  }),
  stopEnvironment: t.field({
    type: payloadOf('stopEnvironment', 'environment', EnvironmentRef),
    description: 'Ends what runs in a ready environment; its files stay. Works while the provider is disabled.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => stopEnvironment(await ctx.call(), String(a.id)),
  }),
  startEnvironment: t.field({
    type: payloadOf('startEnvironment', 'environment', EnvironmentRef),
    description:
      'Starts a stopped environment again with its files as they were (types with `supportsStart`); a ready one is answered as it is. Works while the provider is disabled.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => startEnvironment(await ctx.call(), String(a.id)),
  }),
  destroyEnvironment: t.field({
    type: payloadOf('destroyEnvironment', 'environment', EnvironmentRef),
    description:
      'Destroys the instance and its files (REST DELETE); the environment stays readable as `destroyed`. Works while the provider is disabled.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => destroyEnvironment(await ctx.call(), String(a.id)),
  }),
}));

relation(EnvironmentTemplateRef, 'provider', {
  type: ProviderRef,
  id: (template) => template.providerId,
  description: 'the environment provider that makes its environments (providerId)',
});
relation(EnvironmentRef, 'template', {
  type: EnvironmentTemplateRef,
  nullable: true,
  id: (environment) => environment.templateId,
  description: 'the template it was made from (templateId)',
});
relation(EnvironmentRef, 'provider', {
  type: ProviderRef,
  id: (environment) => environment.providerId,
  description: 'the environment provider that keeps its instance (providerId)',
});

builder.objectField(EnvironmentRef, 'runs', (t) =>
  t.field({
    type: [RunRef],
    description: 'the runs that mount it (runIds), newest first, at most 50',
    resolve: async (environment, _args, ctx) => {
      const ids = await environmentRunIds(ctx).load(environment.id);
      const runs = await Promise.all(ids.map((id) => loadRelated(ctx, nodeLoading<Run>(RunRef), id)));
      return runs.filter((run) => run !== null);
    },
  }),
);
