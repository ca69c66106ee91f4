// The workspace groups of the platform tools: offered whenever `platform_tools.groups` names them,
// with or without an environment. Each call runs through the service layer as the run's principal in
// the run's workspace; a service's refusal (not found, invalid argument, archived…) goes back to the
// model as the tool's error, naming its code, and the run goes on.
import { isAppError } from '../../../lib/errors.js';
import type { CallContext } from '../../../services/call-context.js';
import { workspaceOrganizationId } from '../../../features/access/workspaces.js';
import { resolvePermission } from '../permissions.js';
import { toolInputSchema, type RunTool, type ToolSourceContext } from '../tool.js';
import { AGENT_TOOLS } from './agents.js';
import type { WorkspaceToolDefinition } from './definition.js';
import { RESOURCE_TOOLS } from './resources.js';

export const WORKSPACE_TOOL_DEFINITIONS: readonly WorkspaceToolDefinition[] = [...AGENT_TOOLS, ...RESOURCE_TOOLS];

/** `not_found: agent "agt_…" not found` — the code first, so the model can tell a refusal's kind. */
function toolError(error: unknown): Error {
  if (!isAppError(error)) return error instanceof Error ? error : new Error(String(error));
  const field = error.details?.field;
  const named = typeof field === 'string' && !error.message.includes(field) ? ` (field ${field})` : '';
  return new Error(`${error.code}: ${error.message}${named}`);
}

/**
 * The run's call context with the organization filled in: the engine's actor for a run carries only
 * the workspace, and what a tool creates (an agent) records its organization. Read once per toolset.
 */
function organizationCall(call: CallContext): () => Promise<CallContext> {
  let loaded: Promise<CallContext> | null = null;
  return () => (loaded ??= workspaceOrganizationId(call).then((organizationId) => ({ ...call, actor: { ...call.actor, organizationId } })));
}

export function workspaceTools({ call, config }: Pick<ToolSourceContext, 'call' | 'config'>): RunTool[] {
  const settings = config.platform_tools;
  if (!settings) return [];
  const groups = new Set(settings.groups ?? []);
  const actingCall = organizationCall(call);
  return WORKSPACE_TOOL_DEFINITIONS.filter((definition) => groups.has(definition.group)).map((definition): RunTool => ({
    name: definition.name,
    namespace: 'platform',
    description: definition.description,
    inputSchema: toolInputSchema(definition.inputSchema),
    permission: resolvePermission(definition.name, {
      permission: definition.write ? settings.write_permission : settings.read_permission,
    }),
    offered: true,
    execution: {
      kind: 'server',
      execute: async (args) => {
        try {
          return await definition.execute(await actingCall(), args);
        } catch (error) {
          throw toolError(error);
        }
      },
    },
  }));
}
