import { builder } from '../builder.js';
import { pageOf, VersionedRef } from './common.js';
import { formatEtag } from '../../lib/etag.js';
import {
  archiveAgent, createAgent, deleteAgentAvatar, getAgent, getAgentRevision, listAgentRevisions, listAgents, prepareComposer,
  publishAgentRevision, setDefaultAgentRevision, unarchiveAgent, updateAgent,
} from '../../services/agents.js';

export const AgentRef = builder.prismaObject('Agent', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    id: t.exposeID('id'),
    workspaceId: t.exposeString('workspaceId'),
    organizationId: t.exposeString('organizationId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    labels: t.expose('labels', { type: 'JSON' }),
    // Unset strings are "" in the representation (as the configuration's `instructions` are), never null.
    imageUrl: t.string({ description: 'the avatar location; "" when the agent has none', resolve: (agent) => agent.imageUrl ?? '' }),
    defaultRevisionId: t.exposeString('defaultRevisionId', { nullable: true }),
    presetKind: t.string({ description: 'the managed preset (`composer`); "" for agents that are not presets', resolve: (agent) => agent.presetKind ?? '' }),
    source: t.exposeString('source'),
    archivedAt: t.expose('archivedAt', { type: 'DateTime', nullable: true }),
      }),
});

export const AgentRevisionRef = builder.prismaObject('AgentRevision', {
  fields: (t) => ({
    id: t.exposeID('id'),
    agentId: t.exposeString('agentId'),
    number: t.exposeInt('number'),
    digest: t.exposeString('digest'),
    note: t.exposeString('note'),
    config: t.expose('config', { type: 'JSON' }),
    // Revisions are immutable: their ETag never changes, and updated_* equal created_*.
    etag: t.string({ resolve: (revision) => formatEtag(revision.id, 1) }),
    createdById: t.exposeString('createdById'),
    updatedById: t.exposeString('createdById'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const AgentPage = pageOf('AgentPage', AgentRef);
const AgentRevisionPage = pageOf('AgentRevisionPage', AgentRevisionRef);

const AgentRevisionPublication = builder.objectRef<{ head: any; revision: any; created: boolean }>('AgentRevisionPublication').implement({
  fields: (t) => ({
    revision: t.field({ type: AgentRevisionRef, resolve: (r) => r.revision }),
    agent: t.field({ type: AgentRef, resolve: (r) => r.head }),
    created: t.boolean({ description: 'false when an identical configuration was already published', resolve: (r) => r.created }),
  }),
});

const CreateAgentInput = builder.inputType('CreateAgentInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    labels: t.field({ type: 'JSON' }),
    imageUrl: t.string(),
    config: t.field({ type: 'JSON', required: true, description: 'agent configuration (snake_case document); `model` is required' }),
    note: t.string({ description: 'note of revision 1' }),
  }),
});
const UpdateAgentInput = builder.inputType('UpdateAgentInput', {
  fields: (t) => ({ name: t.string(), description: t.string(), labels: t.field({ type: 'JSON' }), imageUrl: t.string() }),
});
const PublishAgentRevisionInput = builder.inputType('PublishAgentRevisionInput', {
  fields: (t) => ({
    config: t.field({ type: 'JSON', required: true }),
    note: t.string(),
    makeDefault: t.boolean({ description: 'default true' }),
  }),
});

builder.queryFields((t) => ({
  agent: t.field({ type: AgentRef, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, args, ctx) => getAgent(ctx.deps, await ctx.actor(), String(args.id)) }),
  agents: t.field({
    type: AgentPage,
    args: {
      label: t.arg.stringList(), q: t.arg.string(), archived: t.arg.boolean(), source: t.arg.string(), presetKind: t.arg.string(),
      skillId: t.arg.string(), skillRevisionId: t.arg.string(), limit: t.arg.int(), cursor: t.arg.string(),
    },
    resolve: async (_r, args, ctx) => listAgents(ctx.deps, await ctx.actor(), args),
  }),
  agentRevision: t.field({
    type: AgentRevisionRef,
    args: { agentId: t.arg.id({ required: true }), revisionId: t.arg.id({ required: true }) },
    resolve: async (_r, args, ctx) => getAgentRevision(ctx.deps, await ctx.actor(), String(args.agentId), String(args.revisionId)),
  }),
  agentRevisions: t.field({
    type: AgentRevisionPage,
    description: 'Newest first.',
    args: { agentId: t.arg.id({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, ctx) => listAgentRevisions(ctx.deps, await ctx.actor(), String(args.agentId), args),
  }),
}));

builder.mutationFields((t) => ({
  createAgent: t.field({
    type: AgentRef,
    args: { input: t.arg({ type: CreateAgentInput, required: true }) },
    resolve: async (_r, args, ctx) => createAgent(ctx.deps, await ctx.actor(), args.input, ctx.requestId),
  }),
  updateAgent: t.field({
    type: AgentRef,
    description: 'Changes head fields only (no revision).',
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: UpdateAgentInput, required: true }) },
    resolve: async (_r, args, ctx) => updateAgent(ctx.deps, await ctx.actor(), String(args.id), args.ifMatch, args.input, ctx.requestId),
  }),
  archiveAgent: t.field({
    type: AgentRef,
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, args, ctx) => archiveAgent(ctx.deps, await ctx.actor(), String(args.id), args.ifMatch),
  }),
  unarchiveAgent: t.field({
    type: AgentRef,
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, args, ctx) => unarchiveAgent(ctx.deps, await ctx.actor(), String(args.id), args.ifMatch),
  }),
  publishAgentRevision: t.field({
    type: AgentRevisionPublication,
    args: { agentId: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: PublishAgentRevisionInput, required: true }) },
    resolve: async (_r, args, ctx) => publishAgentRevision(ctx.deps, await ctx.actor(), String(args.agentId), args.ifMatch, args.input, ctx.requestId),
  }),
  setDefaultAgentRevision: t.field({
    type: AgentRef,
    args: { agentId: t.arg.id({ required: true }), revisionId: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, args, ctx) => setDefaultAgentRevision(ctx.deps, await ctx.actor(), String(args.agentId), String(args.revisionId), args.ifMatch),
  }),
  deleteAgentAvatar: t.field({
    type: AgentRef,
    args: { agentId: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, args, ctx) => deleteAgentAvatar(ctx.deps, await ctx.actor(), String(args.agentId), args.ifMatch),
  }),
  prepareAgentComposer: t.field({
    type: AgentRef,
    description: "Creates the workspace's composer agent or brings it up to date with the shipped definition.",
    resolve: async (_r, _args, ctx) => prepareComposer(ctx.deps, await ctx.actor(), ctx.requestId),
  }),
}));
