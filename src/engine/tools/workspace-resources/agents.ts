// The `agents` group: list and read the workspace's agents, create one (with its first revision) and
// publish a new revision of one — the same service calls, validation and errors as the agent API.
import type { Agent } from '../../../services/rows.js';
import { createAgent, getAgent, getAgentRevision, listAgents, publishAgentRevision } from '../../../features/agents/agents.js';
import { formatEtag } from '../../../lib/etag.js';
import Type from 'typebox';
import { idArg, listArgs, listSchema, objectSchema, optionalBoolean, pageResult, workspaceTool } from './definition.js';

const agentSummary = (agent: Agent) => ({
  id: agent.id,
  name: agent.name,
  description: agent.description,
  labels: agent.labels,
  source: agent.source,
  default_revision_id: agent.defaultRevisionId,
  archived: agent.archivedAt !== null,
  version: agent.version,
});

// The configuration is checked by the agent service, as the agent API checks it: here only an object.
const CONFIG = Type.Object({}, { description: 'A whole agent configuration (docs: "Agent configuration"); `model` is required.' });
const NOTE = Type.Optional(Type.String({ description: 'A note kept with the revision.' }));

export const AGENT_TOOLS = [
  workspaceTool({
    name: 'list_agents',
    group: 'agents',
    write: false,
    description:
      'List the agents of this workspace, newest first: id, name, description, labels, source, default revision and whether archived. ' +
      'Archived agents are listed only with `archived: true`.',
    inputSchema: listSchema({ archived: Type.Optional(Type.Boolean({ description: 'List archived agents instead.' })) }),
    async execute(call, args) {
      const page = await listAgents(call, { ...listArgs(args), archived: optionalBoolean(args.archived) });
      return pageResult('agents', page, agentSummary);
    },
  }),
  workspaceTool({
    name: 'get_agent',
    group: 'agents',
    write: false,
    description: 'Read one agent of this workspace with its default revision’s configuration.',
    inputSchema: objectSchema({ agent_id: Type.String() }),
    async execute(call, args) {
      const agent = await getAgent(call, idArg(args, 'agent_id'));
      const revision = agent.defaultRevisionId ? await getAgentRevision(call, agent.id, agent.defaultRevisionId) : null;
      return {
        ...agentSummary(agent),
        default_revision: revision ? { id: revision.id, number: revision.number, note: revision.note, config: revision.config } : null,
      };
    },
  }),
  workspaceTool({
    name: 'create_agent',
    group: 'agents',
    write: true,
    description:
      'Create an agent of this workspace with its first revision. The configuration is validated as the agent API validates it; ' +
      'every model, skill, connection, memory and template it names must exist in this workspace.',
    inputSchema: objectSchema({
      name: Type.String(),
      description: Type.Optional(Type.String()),
      labels: Type.Optional(Type.Record(Type.String(), Type.String())),
      config: CONFIG,
      note: NOTE,
    }),
    async execute(call, args) {
      const agent = await createAgent(call, {
        name: args.name,
        description: args.description,
        labels: args.labels,
        config: args.config,
        note: args.note,
      });
      return { ...agentSummary(agent), revision_number: 1 };
    },
  }),
  workspaceTool({
    name: 'publish_agent_revision',
    group: 'agents',
    write: true,
    description:
      'Publish a new revision of an agent of this workspace from a whole configuration; by default it becomes the default revision. ' +
      'A configuration equal to an existing revision gives that revision back (`created: false`). ' +
      'With `version` (the agent’s `version` as read) the publish is refused if the agent changed since.',
    inputSchema: objectSchema({
      agent_id: Type.String(),
      config: CONFIG,
      note: NOTE,
      make_default: Type.Optional(Type.Boolean({ description: 'Make it the default revision (default true).' })),
      version: Type.Optional(Type.Integer({ minimum: 1, description: 'The agent’s version as last read.' })),
    }),
    async execute(call, args) {
      const agentId = idArg(args, 'agent_id');
      // The model holds no ETag: without `version` the publish applies to the agent as it is now.
      const ifMatch = typeof args.version === 'number' ? formatEtag(agentId, args.version) : '*';
      const published = await publishAgentRevision(call, agentId, ifMatch, {
        config: args.config,
        note: args.note,
        makeDefault: optionalBoolean(args.make_default),
      });
      return {
        agent: agentSummary(published.head),
        revision: { id: published.revision.id, number: published.revision.number },
        created: published.created,
      };
    },
  }),
];
