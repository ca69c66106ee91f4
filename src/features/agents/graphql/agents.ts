// Agents: revisioned heads whose revisions hold an agent configuration. The shared revisioned
// surface (revisioned.ts) plus what only agents have: organization, avatar and preset fields, list
// filters by source, preset and pinned skill, avatar removal and the composer.
import { builder } from '../../../graphql/builder.js';
import { payloadOf } from '../../../graphql/modules/payloads.js';
import { revisionedSurface } from '../../../graphql/modules/revisioned.js';
import { AgentConfigurationRef, AgentSubagentRef } from './agent-config.js';
import {
  AGENTS,
  archiveAgent,
  createAgent,
  deleteAgentAvatar,
  getAgent,
  getAgentRevision,
  listAgentRevisions,
  listAgents,
  prepareComposer,
  publishAgentRevision,
  setDefaultAgentRevision,
  unarchiveAgent,
  updateAgent,
} from '../agents.js';
import { relation } from '../../../graphql/modules/relations.js';
import { childConnection } from '../../../graphql/modules/list-relations.js';
import { agentRevisionPages } from '../../../services/relation-pages.js';
import { documentScalar } from '../../../graphql/document-scalars.js';
import { normalizeAgentConfig } from '../documents/config-schema.js';

// The configuration as callers write it: checked as a whole against its JSON Schema, as the service
// checks it (the error names the member at fault: `config.reviewer.timeout_seconds`); the typed view
// of a published one is `AgentConfiguration`.
documentScalar('AgentConfigurationDocument', {
  description: 'An agent configuration as one JSON document (snake_case members, as REST takes it), checked against its JSON Schema.',
  check: normalizeAgentConfig,
  field: 'config',
});

export const {
  HeadRef: AgentRef,
  RevisionRef: AgentRevisionRef,
  RevisionConnection: AgentRevisionConnection,
} = revisionedSurface({
  kind: AGENTS,
  service: {
    get: getAgent,
    list: listAgents,
    getRevision: getAgentRevision,
    listRevisions: listAgentRevisions,
    create: createAgent,
    update: updateAgent,
    archive: archiveAgent,
    unarchive: unarchiveAgent,
    publish: publishAgentRevision,
    setDefault: setDefaultAgentRevision,
  },
  documentType: AgentConfigurationRef,
  documentScalar: 'AgentConfigurationDocument',
  headFields: (t) => ({
    organizationId: t.exposeString('organizationId'),
    // Unset strings are "" in the representation (as the configuration's `instructions` are), never null.
    imageUrl: t.string({ description: 'the avatar location; "" when the agent has none', resolve: (agent) => agent.imageUrl ?? '' }),
    presetKind: t.string({
      description: 'the managed preset (`composer`); "" for agents that are not presets',
      resolve: (agent) => agent.presetKind ?? '',
    }),
  }),
  listArgs: (arg) => ({ source: arg.string(), presetKind: arg.string(), skillId: arg.string(), skillRevisionId: arg.string() }),
  createFields: (t) => ({ imageUrl: t.string() }),
  updateFields: (t) => ({ imageUrl: t.string() }),
  descriptions: {
    document: 'the agent configuration, typed member by member',
    createDocument: 'the agent configuration (`model` is required)',
    createNote: 'note of revision 1',
    makeDefault: 'default true',
    created: 'false when an identical configuration was already published',
    update: 'Changes head fields only (no revision).',
    revisions: 'Newest first.',
  },
});

builder.mutationFields((t) => ({
  deleteAgentAvatar: t.field({
    type: payloadOf('deleteAgentAvatar', 'agent', AgentRef),
    args: { agentId: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, args, ctx) => deleteAgentAvatar(await ctx.call(), String(args.agentId), args.ifMatch),
  }),
  prepareAgentComposer: t.field({
    type: payloadOf('prepareAgentComposer', 'agent', AgentRef),
    description: "Creates the workspace's composer agent or brings it up to date with the shipped definition.",
    resolve: async (_r, _args, ctx) => prepareComposer(await ctx.call()),
  }),
}));

relation(AgentRef, 'defaultRevision', {
  type: AgentRevisionRef,
  nullable: true,
  id: (agent) => agent.defaultRevisionId,
  description: 'the revision new runs use (defaultRevisionId)',
});
relation(AgentSubagentRef, 'agent', {
  type: AgentRef,
  nullable: true,
  id: (subagent) => subagent.agent_id,
  description: 'the agent the subagent runs (agentId)',
});

childConnection(AgentRef, 'revisions', {
  type: AgentRevisionConnection,
  pages: agentRevisionPages,
  description: "The agent's revisions, newest first: `agentRevisions(agentId:)` (its cursors too).",
});
