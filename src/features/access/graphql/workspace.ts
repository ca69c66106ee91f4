import { builder } from '../../../graphql/builder.js';
import { payloadOf } from '../../../graphql/modules/payloads.js';
import { callerQuery } from '../../../graphql/modules/query-fields.js';
import { VersionedRef } from '../../../graphql/modules/common.js';
import { withNameAndLabels } from '../../../graphql/modules/named-fields.js';
import { getWorkspace, MAX_CONCURRENT_RUNS_BOUNDS, updateWorkspace } from '../workspaces.js';
import { requirePermission } from '../permissions.js';

export const WorkspaceRef = builder.prismaObject('Workspace', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    id: t.exposeID('id'),
    organizationId: t.exposeString('organizationId'),
    maxConcurrentRuns: t.exposeInt('maxConcurrentRuns', {
      nullable: true,
      description: "The most of the workspace's runs running at once (null: no limit); runs over it wait `accepted`, oldest first.",
    }),
  }),
});
withNameAndLabels(WorkspaceRef);

const UpdateWorkspaceInput = builder.inputType('UpdateWorkspaceInput', {
  fields: (t) => ({
    name: t.string({ required: false }),
    description: t.string({ required: false }),
    labels: t.field({ type: 'Labels', required: false }),
    maxConcurrentRuns: t.int({
      required: false,
      description: `The most runs running at once, ${MAX_CONCURRENT_RUNS_BOUNDS.min}–${MAX_CONCURRENT_RUNS_BOUNDS.max}; null lifts the limit.`,
    }),
  }),
});

callerQuery('workspace', WorkspaceRef, getWorkspace, "The caller's workspace.");

builder.mutationField('updateWorkspace', (t) =>
  t.field({
    type: payloadOf('updateWorkspace', 'workspace', WorkspaceRef),
    description: 'Changes name, description, labels or maxConcurrentRuns. Needs `admin` and the current ETag in ifMatch.',
    args: {
      ifMatch: t.arg.string({ required: false }),
      input: t.arg({ type: UpdateWorkspaceInput, required: true }),
    },
    resolve: async (_root, args, ctx) => {
      const workspace = await updateWorkspace(await ctx.call(), args.ifMatch, args.input);
      ctx.deps.events.publish('workspaceUpdated', workspace.id, workspace);
      return workspace;
    },
  }),
);

builder.subscriptionField('workspaceUpdated', (t) =>
  t.field({
    type: WorkspaceRef,
    description: "Emits the caller's workspace after every effective change.",
    subscribe: async (_root, _args, ctx) => {
      const actor = await ctx.actor();
      requirePermission(actor, 'read');
      return ctx.deps.events.subscribe('workspaceUpdated', actor.workspaceId);
    },
    resolve: (workspace) => workspace,
  }),
);
