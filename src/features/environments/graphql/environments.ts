// Environment templates (live: changed in place, disabled by PATCH `enabled: false`) and the
// environments made from them (DELETE destroys the instance). Thin resolvers over
// src/features/environments/environment-templates.ts and src/features/environments/environments.ts.
import { builder } from '../../../graphql/builder.js';
import { listsByKey } from '../../../graphql/modules/request-loaders.js';
import { resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, objectQuery } from '../../../graphql/modules/query-fields.js';
import { asNode, nodeLoading } from '../../../graphql/modules/node.js';
import { connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { withLabelList } from '../../../graphql/modules/labels.js';
import { nameAndLabelInputs, withNamedResourceFields } from '../../../graphql/modules/named-fields.js';
import { EnvironmentStatusEnum, storedValue } from '../../../graphql/modules/enums.js';
import { loadEnvironments } from '../environments.js';
import { loadEnvironmentTemplates } from '../environment-templates.js';
import {
  createEnvironmentTemplate,
  getEnvironmentTemplate,
  listEnvironmentTemplates,
  updateEnvironmentTemplate,
} from '../environment-templates.js';
import {
  createEnvironment,
  destroyEnvironment,
  getEnvironment,
  listEnvironments,
  runIdsUsing,
  startEnvironment,
  stopEnvironment,
} from '../environments.js';
import { relation, loadRelated } from '../../../graphql/modules/relations.js';
import { ProviderRef } from '../../models/graphql/providers.js';
import { RunRef } from '../../runs/graphql/runs.js';
import type { Run } from '../../../generated/prisma/client.js';

export const EnvironmentTemplateRef = builder.prismaObject('EnvironmentTemplate', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    providerId: t.exposeString('providerId', { description: 'the environment provider that makes its environments' }),
    config: t.expose('config', {
      type: 'JSON',
      description: 'free-form for this API: valid against the provider type\'s environment schema (`providerTypes(kind: "environment")`)',
    }),
    enabled: t.exposeBoolean('enabled', { description: 'a disabled template refuses new use with `disabled`' }),
  }),
});
asNode(EnvironmentTemplateRef, { kind: 'environmentTemplate', load: loadEnvironmentTemplates });
withNamedResourceFields(EnvironmentTemplateRef);

// The runs that mount each environment of an operation, read in one statement per tick.
const environmentRunIds = listsByKey((call, ids) => runIdsUsing(call, ids));

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
asNode(EnvironmentRef, { kind: 'environment', load: loadEnvironments });
withLabelList(EnvironmentRef);

const EnvironmentTemplateConnection = connectionOf('EnvironmentTemplate', EnvironmentTemplateRef);
const EnvironmentConnection = connectionOf('Environment', EnvironmentRef);

const EnvironmentTemplateInput = builder.inputType('EnvironmentTemplateInput', {
  fields: (t) => ({
    ...nameAndLabelInputs(t),
    providerId: t.string({ description: 'an environment provider of the workspace (required on create)' }),
    config: t.field({ type: 'JSON', description: "valid against the provider type's environment schema" }),
    enabled: t.boolean(),
  }),
});
const CreateEnvironmentInput = builder.inputType('CreateEnvironmentInput', {
  fields: (t) => ({
    templateId: t.string({ required: true }),
    name: t.string({ description: "default: the template's name" }),
    labels: t.field({ type: 'Labels' }),
  }),
});

objectQuery('environmentTemplate', EnvironmentTemplateRef, getEnvironmentTemplate);
connectionQuery('environmentTemplates', EnvironmentTemplateConnection, {
  description: 'Newest first. At most 100 a page (default 50).',
  args: (arg) => ({ label: arg.stringList(), q: arg.string(), enabled: arg.boolean() }),
  list: listEnvironmentTemplates,
});
objectQuery('environment', EnvironmentRef, getEnvironment);
connectionQuery('environments', EnvironmentConnection, {
  description: 'Newest first, destroyed ones included. At most 100 a page (default 50).',
  args: (arg) => ({ label: arg.stringList(), status: arg({ type: EnvironmentStatusEnum }), templateId: arg.string() }),
  list: listEnvironments,
});

const templateMutations = resourceMutations('environmentTemplate', EnvironmentTemplateRef);
templateMutations.create(EnvironmentTemplateInput, createEnvironmentTemplate);
templateMutations.update(EnvironmentTemplateInput, updateEnvironmentTemplate);

const environmentMutations = resourceMutations('environment', EnvironmentRef);
environmentMutations.create(CreateEnvironmentInput, createEnvironment, {
  description: 'Makes an environment from a template and provisions it; answers it ready, or failed with the reason.',
});
environmentMutations.action('stop', stopEnvironment, {
  description: 'Ends what runs in a ready environment; its files stay. Works while the provider is disabled.',
});
environmentMutations.action('start', startEnvironment, {
  description:
    'Starts a stopped environment again with its files as they were (types with `supportsStart`); a ready one is answered as it is. Works while the provider is disabled.',
});
environmentMutations.action('destroy', destroyEnvironment, {
  description:
    'Destroys the instance and its files (REST DELETE); the environment stays readable as `destroyed`. Works while the provider is disabled.',
});

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
