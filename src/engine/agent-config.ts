// The agent configuration a run executes with: its pinned revision's configuration with the run's
// overrides applied, read as the fields the engine uses. Revisions never change once published, so
// their configurations are kept by id.
import type { Run } from '../services/rows.js';
import { applyOverrides, runOptionsSchema, type AgentConfig } from '../features/agents/documents/config-schema.js';
import { readDocument } from '../lib/json-documents.js';
import type { Deps } from '../services/deps.js';
import { agentRevisionConfig } from '../features/agents/agents.js';

export type { OutputSpec, OutputVariant } from '../features/agents/documents/output-spec.js';

// The engine's names for the members it reads; the types come from the configuration's schema.
/** The agent configuration a run executes with (the whole document: `agentConfigSchema`). */
export type RunAgentConfig = AgentConfig;
export type ClientToolConfig = NonNullable<AgentConfig['client_tools']>[number];
export type ConnectionToolsConfig = NonNullable<AgentConfig['connection_tools']>[number];
export type MemoryMountConfig = NonNullable<AgentConfig['memory_mounts']>[number];
/** One entry of `toolsets` (docs/api/tools.md, "The web toolset"). */
export type ToolsetConfig = NonNullable<NonNullable<AgentConfig['toolsets']>['web']>;
/** One entry of `subagents`: the agent its delegate tool runs, and how (docs/api/tools.md, "Subagents"). */
export type SubagentConfig = NonNullable<AgentConfig['subagents']>[string];
export type SubagentMode = NonNullable<AgentConfig['subagent_mode']>;
export type ReviewerConfig = NonNullable<AgentConfig['reviewer']>;

const revisionConfigs = new Map<string, AgentConfig>();
const MAX_CACHED_REVISIONS = 2_000;

async function revisionConfig(deps: Deps, revisionId: string): Promise<AgentConfig> {
  const cached = revisionConfigs.get(revisionId);
  if (cached) return cached;
  const config = await agentRevisionConfig(deps.db, revisionId);
  if (revisionConfigs.size >= MAX_CACHED_REVISIONS) revisionConfigs.delete(revisionConfigs.keys().next().value!);
  revisionConfigs.set(revisionId, config);
  return config;
}

export async function runAgentConfig(deps: Deps, run: Run): Promise<RunAgentConfig> {
  // The run's overrides were checked against the configuration's schema when the run was created
  // (normalizeRunOptions): with them applied, the configuration is still one.
  const options = readDocument(runOptionsSchema, run.options, 'runs.options');
  return applyOverrides(await revisionConfig(deps, run.agentRevisionId), options.overrides);
}
