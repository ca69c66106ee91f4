// The agent configuration (spec: "Agent revision" → "Agent configuration") and the run options as
// GraphQL object types, member by member, so clients and code generators see their shape instead of
// a JSON scalar. The types are built from the documents' own schemas (src/features/agents/documents/config-schema.ts,
// by src/graphql/document-types.ts), so they cannot drift from what validation admits. JSON stays
// only where the spec leaves a member free-form (`model_settings`, `metadata`, the `config`/`tools`
// objects of toolsets and plugins, `extensions`) or where the member is a JSON Schema document
// (`parameters_json_schema`, the output spec's `schema`). Maps keyed by the caller (toolsets,
// per-tool permissions, reviewer rules, subagents) become lists of entries ordered by key. The stored
// document itself stays readable as JSON (`configDocument`, `optionsDocument`): the REST views answer
// it exactly as stored, and a typed selection cannot (it would add null members and reorder them).
import { builder } from '../../../graphql/builder.js';
import { registerClosedSet } from '../../../graphql/closed-sets.js';
import { DocumentTypes } from '../../../graphql/document-types.js';
import { LABEL_LIST_DESCRIPTION, LabelRef, labelPairs } from '../../../graphql/modules/labels.js';
import { MemoryMountAccessEnum } from '../../../graphql/modules/enums.js';
import {
  agentConfigSchema,
  runOptionsSchema,
  PERMISSIONS,
  REVIEW_ACTIONS,
  RISK_LEVELS,
  SKILL_SYNC_MODES,
  SUBAGENT_MODES,
  type AgentConfigDocument,
  type SubagentDocument,
  type RunOptions,
} from '../documents/config-schema.js';

function closedSet<const T extends readonly string[]>(name: string, values: T, description: string) {
  registerClosedSet(name, values);
  return builder.enumType(name, { values, description });
}

export const ToolPermissionEnum = closedSet(
  'ToolPermission',
  PERMISSIONS,
  'Whether a tool may be called: `inherit` (the enclosing setting decides), `allow`, `ask` (the run waits for an approval) or `deny`.',
);
export const ReviewActionEnum = closedSet(
  'ReviewAction',
  REVIEW_ACTIONS,
  'What the reviewer does with a call: `allow` it, `ask` for an approval, or `deny` it.',
);
export const RiskLevelEnum = closedSet('RiskLevel', RISK_LEVELS, 'How risky the reviewer judges a call, lowest first.');
export const SkillSyncModeEnum = closedSet('SkillSyncMode', SKILL_SYNC_MODES, "How skills' files are placed in environments.");
export const SubagentModeEnum = closedSet(
  'SubagentMode',
  SUBAGENT_MODES,
  'How subagents run: `inline` in the run, or in a `thread` of their own.',
);

const documentTypes = new DocumentTypes(builder, {
  ToolPermission: ToolPermissionEnum,
  ReviewAction: ReviewActionEnum,
  RiskLevel: RiskLevelEnum,
  SkillSyncMode: SkillSyncModeEnum,
  SubagentMode: SubagentModeEnum,
  MemoryMountAccess: MemoryMountAccessEnum,
});

/**
 * A revision's stored configuration, which always has `model`, `instructions` and `user_questions`
 * (the last two by their schema defaults).
 */
export const AgentConfigurationRef = documentTypes.objectType<AgentConfigDocument>(agentConfigSchema);

/** The members of the agent configuration one run overrides: the same fields, all nullable. */
export const AgentConfigurationOverridesRef = documentTypes.objectType<AgentConfigDocument>(agentConfigSchema, {
  name: 'AgentConfigurationOverrides',
  description: 'The members of the agent configuration one run overrides (any subset; a member not overridden is null).',
  partial: 'null when the overrides do not set it',
});

/** An entry of `subagents` (its relation field `agent` is added in relations.ts). */
export const AgentSubagentRef = documentTypes.madeType<SubagentDocument & { name: string }>('AgentSubagent');

export const RunOptionsRef = documentTypes.objectType<RunOptions>(runOptionsSchema);

builder.objectField(RunOptionsRef, 'labelList', (t) =>
  t.field({
    type: [LabelRef],
    nullable: true,
    description: `${LABEL_LIST_DESCRIPTION}; null when the options carry no labels`,
    resolve: (options) => (options.labels ? labelPairs(options.labels) : null),
  }),
);

/** The description of a field that answers a stored configuration document as JSON. */
export const DOCUMENT_DESCRIPTION =
  'the same as one JSON document (snake_case members, only those that are set, in the stored order): what the REST view answers; prefer the typed field';
