// The read-only workspace groups: `skills`, `models`, `connections`, `memories` and
// `environment_templates` — what an agent's configuration may name, listed the way the API lists
// them. Nothing secret is answered: no credentials, headers or provider secrets, and of a connection
// only its transport and where it points (the URL without user info or query).
import type { Connection, EnvironmentTemplate, Memory, Model, Skill } from '../../../services/rows.js';
import { connectionConfig, listConnections } from '../../../features/tools/connections.js';
import { listEnvironmentTemplates } from '../../../features/environments/environment-templates.js';
import { listMemories } from '../../../features/memories/memories.js';
import { listModels } from '../../../features/models/models.js';
import { providerSummaries } from '../../../features/models/providers.js';
import { getSkill, getSkillRevision, listSkills, skillContent } from '../../../features/agents/skills.js';
import type { CallContext } from '../../../services/call-context.js';
import type { Page } from '../../../lib/cursor.js';
import Type from 'typebox';
import { idArg, listArgs, listSchema, objectSchema, optionalBoolean, pageResult, workspaceTool } from './definition.js';

const ENABLED = Type.Optional(Type.Boolean({ description: 'Only enabled (true) or disabled (false) rows.' }));

/** List arguments with the `enabled` filter. */
const enabledListArgs = (args: Record<string, unknown>) => ({ ...listArgs(args), enabled: optionalBoolean(args.enabled) });

/** A page of rows that each name a provider, viewed with that provider (its type, whether enabled), read for the page at once. */
async function providerPage<T extends { providerId: string }>(
  call: CallContext,
  key: string,
  page: Page<T>,
  view: (row: T, provider: { type: string; enabled: boolean } | undefined) => unknown,
) {
  const providers = await providerSummaries(
    call,
    page.items.map((row) => row.providerId),
  );
  return pageResult(key, page, (row) => view(row, providers.get(row.providerId)));
}

const skillSummary = (skill: Skill) => ({
  id: skill.id,
  name: skill.name,
  description: skill.description,
  labels: skill.labels,
  source: skill.source,
  default_revision_id: skill.defaultRevisionId,
  archived: skill.archivedAt !== null,
});

/** The fields a connection, memory or environment template is listed with first, in this order. */
const providedResourceSummary = (row: Pick<Memory, 'id' | 'name' | 'description' | 'labels' | 'providerId'>) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  labels: row.labels,
  provider_id: row.providerId,
});

/** Where a connection points, without anything that may carry a secret (user info, query, fragment). */
function connectionServer(config: Record<string, unknown>): { transport: string; server: string | null } {
  const transport = typeof config.transport === 'string' ? config.transport : 'streamable_http';
  if (transport === 'stdio') return { transport, server: typeof config.command === 'string' ? config.command : null };
  try {
    const url = new URL(String(config.url));
    return { transport, server: `${url.origin}${url.pathname}` };
  } catch {
    return { transport, server: null };
  }
}

export const RESOURCE_TOOLS = [
  workspaceTool({
    name: 'list_skills',
    group: 'skills',
    write: false,
    description: 'List the skills of this workspace, newest first: id, name, description, labels, source and default revision.',
    inputSchema: listSchema({ archived: Type.Optional(Type.Boolean({ description: 'List archived skills instead.' })) }),
    async execute(call, args) {
      return pageResult('skills', await listSkills(call, { ...listArgs(args), archived: optionalBoolean(args.archived) }), skillSummary);
    },
  }),
  workspaceTool({
    name: 'get_skill',
    group: 'skills',
    write: false,
    description: 'Read one skill of this workspace: its default revision’s name, description, instructions and file paths.',
    inputSchema: objectSchema({ skill_id: Type.String() }),
    async execute(call, args) {
      const skill = await getSkill(call, idArg(args, 'skill_id'));
      const revision = skill.defaultRevisionId ? await getSkillRevision(call, skill.id, skill.defaultRevisionId) : null;
      const content = revision ? skillContent(revision) : null;
      return {
        ...skillSummary(skill),
        default_revision:
          revision && content
            ? {
                id: revision.id,
                number: revision.number,
                name: content.name,
                description: content.description,
                instructions: content.instructions,
                files: content.files.map((file) => file.path),
              }
            : null,
      };
    },
  }),
  workspaceTool({
    name: 'list_models',
    group: 'models',
    write: false,
    description:
      'List the models of this workspace by key: name, description, provider type, upstream model, characteristics, whether enabled, ' +
      'and `usable` (enabled and its provider enabled: what an agent’s `model` may name and run with).',
    inputSchema: listSchema({ enabled: ENABLED }),
    async execute(call, args) {
      return providerPage(call, 'models', await listModels(call, enabledListArgs(args)), (model: Model, provider) => ({
        key: model.key,
        name: model.name,
        description: model.description,
        labels: model.labels,
        provider_id: model.providerId,
        provider_type: provider?.type ?? null,
        provider_model: model.providerModel,
        api: model.api,
        characteristics: model.characteristics,
        enabled: model.enabled,
        usable: model.enabled && provider?.enabled === true,
      }));
    },
  }),
  workspaceTool({
    name: 'list_connections',
    group: 'connections',
    write: false,
    description:
      'List the connections (MCP servers) of this workspace, newest first: id, name, description, provider type, transport, ' +
      'the server it reaches and whether enabled. Their tools are not listed (that means contacting each server); an agent names ' +
      'a connection in `connection_tools`.',
    inputSchema: listSchema({ enabled: ENABLED }),
    async execute(call, args) {
      const page = await listConnections(call, enabledListArgs(args));
      return providerPage(call, 'connections', page, (connection: Connection, provider) => ({
        ...providedResourceSummary(connection),
        provider_type: provider?.type ?? null,
        ...connectionServer(connectionConfig(connection)),
        enabled: connection.enabled,
      }));
    },
  }),
  workspaceTool({
    name: 'list_memories',
    group: 'memories',
    write: false,
    description:
      'List the memories of this workspace, newest first: id, name, description, labels and whether enabled. ' +
      'An agent mounts one in `memory_mounts`.',
    inputSchema: listSchema({}),
    async execute(call, args) {
      return pageResult('memories', await listMemories(call, listArgs(args)), (memory: Memory) => ({
        ...providedResourceSummary(memory),
        enabled: memory.enabled,
      }));
    },
  }),
  workspaceTool({
    name: 'list_environment_templates',
    group: 'environment_templates',
    write: false,
    description:
      'List the environment templates of this workspace, newest first: id, name, description, provider type and whether enabled. ' +
      'An agent names one in `default_environment_template_id`.',
    inputSchema: listSchema({ enabled: ENABLED }),
    async execute(call, args) {
      const page = await listEnvironmentTemplates(call, enabledListArgs(args));
      return providerPage(call, 'environment_templates', page, (template: EnvironmentTemplate, provider) => ({
        ...providedResourceSummary(template),
        provider_type: provider?.type ?? null,
        enabled: template.enabled,
      }));
    },
  }),
];
