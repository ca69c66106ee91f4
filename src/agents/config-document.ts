// The shape of a validated agent configuration document (spec: "Agent configuration"), member by
// member, as TypeScript types: what agentConfigSchema (config-schema.ts) admits. Every member is
// optional here because run overrides carry any subset of them; a revision's stored configuration
// always has `model`, `instructions` and `user_questions` (normalizeAgentConfig fills the last two).
// Members the spec calls free-form objects stay `JsonObject`.
import type { MEMORY_ACCESS, PERMISSIONS, REVIEW_ACTIONS, RISK_LEVELS, SKILL_SYNC_MODES, SUBAGENT_MODES } from './config-schema.js';

export type JsonObject = Record<string, unknown>;
type ToolPermission = (typeof PERMISSIONS)[number];
type ReviewAction = (typeof REVIEW_ACTIONS)[number];
type RiskLevel = (typeof RISK_LEVELS)[number];

export interface ClientToolDocument {
  name: string;
  description?: string;
  instruction?: string;
  metadata?: JsonObject;
  parameters_json_schema?: JsonObject;
  permission?: ToolPermission;
}

export interface ConnectionToolsDocument {
  connection_id: string;
  tools?: string[];
  defer_loading?: boolean;
  permission?: ToolPermission;
  permissions?: Record<string, ToolPermission>;
}

export interface ToolsetDocument {
  config?: JsonObject;
  enabled?: boolean;
  tools?: JsonObject;
}

export interface OutputVariantDocument {
  name?: string;
  description?: string;
  resources?: JsonObject;
  schema?: JsonObject;
}

export interface ReviewerDocument {
  instruction?: string;
  shell_instruction?: string;
  model?: string;
  model_settings?: JsonObject;
  on_error?: ReviewAction;
  on_flagged?: ReviewAction;
  risk_threshold?: RiskLevel;
  rules?: Record<string, { on_flagged?: ReviewAction; risk_threshold?: RiskLevel }>;
  timeout_seconds?: number;
}

export interface AgentConfigDocument {
  model?: string;
  model_settings?: JsonObject;
  model_characteristics?: {
    compact_threshold?: number;
    context_window_tokens?: number;
    proactive_context_management_threshold?: number;
  };
  instructions?: string;
  client_tools?: ClientToolDocument[];
  connection_tools?: ConnectionToolsDocument[];
  toolsets?: Record<string, ToolsetDocument>;
  platform_tools?: { groups?: string[]; read_permission?: ToolPermission; write_permission?: ToolPermission };
  builtin_skills?: string[];
  skills?: { skill_id: string; revision_id: string }[];
  skill_sync?: { cleanup?: boolean; mode?: (typeof SKILL_SYNC_MODES)[number]; overwrite?: boolean };
  memory_mounts?: { memory_id: string; name?: string; access?: (typeof MEMORY_ACCESS)[number]; recall?: boolean }[];
  plugins?: { plugin_key: string; instance_name?: string; config?: JsonObject }[];
  subagents?: Record<string, SubagentDocument>;
  subagent_mode?: (typeof SUBAGENT_MODES)[number];
  default_environment_template_id?: string;
  lazy_environment?: boolean;
  media_understanding?: { audio?: string; image?: string; video?: string };
  output_spec?: OutputVariantDocument & { variants?: OutputVariantDocument[] };
  retries?: { output?: number; tools?: number };
  reviewer?: ReviewerDocument;
  user_questions?: boolean;
}

/** One entry of `subagents` (docs/api/tools.md, "Subagents"). */
export interface SubagentDocument {
  agent_id: string;
  revision_id?: string;
  description?: string;
  permission?: ToolPermission;
  overrides?: AgentConfigDocument;
}

/** A map's entries ordered by key (code point order): the order of the typed lists built from maps. */
export function entriesByKey<V>(map: Record<string, V> | undefined | null): [string, V][] {
  return Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
