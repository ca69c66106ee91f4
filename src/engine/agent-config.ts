// The agent configuration a run executes with: its pinned revision's configuration with the run's
// overrides applied, read as the fields the engine uses. Revisions never change once published, so
// their configurations are kept by id.
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { Run } from '../services/rows.js';
import { applyOverrides, type RunOptions } from '../agents/config-schema.js';
import type { Deps } from '../services/deps.js';
import { agentRevisionConfig } from '../services/agents.js';
import type { ModelCharacteristics } from './context/budget.js';

export interface ClientToolConfig {
  name: string;
  description?: string;
  instruction?: string;
  parameters_json_schema?: JSONSchema7;
  permission?: 'inherit' | 'allow' | 'ask' | 'deny';
}

export interface ConnectionToolsConfig {
  connection_id: string;
  /** Only these of the server's tools (by the server's names); absent: all. */
  tools?: string[];
  /** The model first gets a tool-search tool; only the tools it finds are loaded. */
  defer_loading?: boolean;
  permission?: 'inherit' | 'allow' | 'ask' | 'deny';
  /** Per tool (the server's name), overriding `permission`. */
  permissions?: Record<string, 'inherit' | 'allow' | 'ask' | 'deny'>;
}

/** One shape of the answer: what the model is told about it, and the schema it is checked against. */
export interface OutputVariant {
  name?: string;
  description?: string;
  resources?: Record<string, unknown>;
  schema?: Record<string, unknown>;
}

export interface OutputSpec extends OutputVariant {
  variants?: OutputVariant[];
}

export interface MemoryMountConfig {
  memory_id: string;
  name?: string;
  access?: string;
  recall?: boolean;
}

/** One entry of `toolsets` (the web toolset's members are checked by `agentConfigSchema`). */
export interface ToolsetConfig {
  enabled?: boolean;
  config?: Record<string, unknown>;
  tools?: Record<string, { enabled?: boolean; permission?: 'inherit' | 'allow' | 'ask' | 'deny' } | undefined>;
}

/** One entry of `subagents`: the agent its delegate tool runs, and how (docs/api/tools.md, "Subagents"). */
export interface SubagentConfig {
  agent_id: string;
  revision_id?: string;
  description?: string;
  permission?: 'inherit' | 'allow' | 'ask' | 'deny';
  overrides?: Record<string, unknown>;
}

export type SubagentMode = 'inline' | 'thread';

/** The fields of an agent configuration the engine reads (the whole document is `agentConfigSchema`). */
export interface RunAgentConfig {
  model: string;
  model_settings?: Record<string, unknown>;
  /** The model's window and the levels of context management (context/budget.ts). */
  model_characteristics?: ModelCharacteristics;
  instructions?: string;
  client_tools?: ClientToolConfig[];
  user_questions?: boolean;
  output_spec?: OutputSpec;
  retries?: { output?: number; tools?: number };
  memory_mounts?: MemoryMountConfig[];
  toolsets?: Record<string, ToolsetConfig | undefined>;
  connection_tools?: ConnectionToolsConfig[];
  plugins?: { plugin_key: string; instance_name?: string; config?: Record<string, unknown> }[];
  reviewer?: ReviewerConfig;
  subagents?: Record<string, SubagentConfig>;
  subagent_mode?: SubagentMode;
  /** Model keys that describe media the main model cannot read (media-understanding.ts). */
  media_understanding?: { audio?: string; image?: string; video?: string };
  default_environment_template_id?: string;
  lazy_environment?: boolean;
  /** The platform tools' groups and permissions (tools/platform-tools.ts). */
  platform_tools?: { groups?: string[]; read_permission?: string; write_permission?: string };
  /** Whether and how the run's skills are written into its environments (tools/skill-sync.ts). */
  skill_sync?: { mode?: 'shared' | 'isolated'; overwrite?: boolean; cleanup?: boolean };
}

export interface ReviewerConfig {
  instruction?: string;
  shell_instruction?: string;
  model?: string;
  model_settings?: Record<string, unknown>;
  on_error?: 'allow' | 'ask' | 'deny';
  on_flagged?: 'allow' | 'ask' | 'deny';
  risk_threshold?: 'low' | 'medium' | 'high' | 'critical';
  rules?: Record<string, { on_flagged?: 'allow' | 'ask' | 'deny'; risk_threshold?: 'low' | 'medium' | 'high' | 'critical' }>;
  timeout_seconds?: number;
}

const revisionConfigs = new Map<string, Record<string, unknown>>();
const MAX_CACHED_REVISIONS = 2_000;

async function revisionConfig(deps: Deps, revisionId: string): Promise<Record<string, unknown>> {
  const cached = revisionConfigs.get(revisionId);
  if (cached) return cached;
  const config = await agentRevisionConfig(deps.db, revisionId);
  if (revisionConfigs.size >= MAX_CACHED_REVISIONS) revisionConfigs.delete(revisionConfigs.keys().next().value!);
  revisionConfigs.set(revisionId, config);
  return config;
}

export async function runAgentConfig(deps: Deps, run: Run): Promise<RunAgentConfig> {
  const options = run.options as RunOptions;
  const config = applyOverrides(await revisionConfig(deps, run.agentRevisionId), options.overrides);
  // The cast is the validation boundary: a revision's configuration and a run's overrides were checked
  // against `agentConfigSchema` when they were written (normalizeAgentConfig, normalizeRunOptions),
  // so the stored JSON has these fields with these types.
  return config as unknown as RunAgentConfig;
}
