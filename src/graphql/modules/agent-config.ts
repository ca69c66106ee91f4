// The agent configuration (spec: "Agent revision" → "Agent configuration") and the run options as
// GraphQL object types, member by member, so clients and code generators see their shape instead of
// a JSON scalar. JSON stays only where the spec leaves a member free-form (`model_settings`,
// `metadata`, the `config`/`tools` objects of toolsets and plugins, `extensions`) or
// where the member is a JSON Schema document (`parameters_json_schema`, the output spec's `schema`).
// Maps keyed by the caller (toolsets, per-tool permissions, reviewer rules, labels) become lists of
// entries ordered by key. The stored document itself stays readable as JSON (`configDocument`,
// `optionsDocument`): the REST views answer it exactly as stored, and a typed selection cannot (it
// would add null members and reorder them).
import { builder } from '../builder.js';
import { registerClosedSet } from '../closed-sets.js';
import type { ObjectFieldBuilder } from '@pothos/core';
import type { Types } from './common.js';
import { LABEL_LIST_DESCRIPTION, LabelRef, labelPairs } from './labels.js';
import { MemoryMountAccessEnum } from './enums.js';
import { PERMISSIONS, REVIEW_ACTIONS, RISK_LEVELS, SKILL_SYNC_MODES, SUBAGENT_MODES, type RunOptions } from '../../agents/config-schema.js';
import {
  entriesByKey,
  type AgentConfigDocument,
  type ClientToolDocument,
  type ConnectionToolsDocument,
  type OutputVariantDocument,
  type ReviewerDocument,
  type SubagentDocument,
  type ToolsetDocument,
} from '../../agents/config-document.js';

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

/** A member of a document, or null when the document does not set it. */
const orNull = <T>(value: T | undefined | null): T | null => value ?? null;

const ModelCharacteristicsRef = builder
  .objectRef<NonNullable<AgentConfigDocument['model_characteristics']>>('ModelCharacteristics')
  .implement({
    description: "What the service should assume about the model's context (`model_characteristics`).",
    fields: (t) => ({
      compactThreshold: t.float({ nullable: true, resolve: (c) => orNull(c.compact_threshold) }),
      contextWindowTokens: t.int({ nullable: true, resolve: (c) => orNull(c.context_window_tokens) }),
      proactiveContextManagementThreshold: t.float({
        nullable: true,
        resolve: (c) => orNull(c.proactive_context_management_threshold),
      }),
    }),
  });

const ClientToolRef = builder.objectRef<ClientToolDocument>('ClientTool').implement({
  description: 'A tool the client executes: the run waits for its result (`client_tools`).',
  fields: (t) => ({
    name: t.string({ resolve: (tool) => tool.name }),
    description: t.string({ nullable: true, resolve: (tool) => orNull(tool.description) }),
    instruction: t.string({ nullable: true, resolve: (tool) => orNull(tool.instruction) }),
    metadata: t.field({
      type: 'JSON',
      nullable: true,
      description: 'free-form (the spec gives it no members): handed to the client with each call',
      resolve: (tool) => orNull(tool.metadata),
    }),
    parametersJsonSchema: t.field({
      type: 'JSON',
      nullable: true,
      description: "a JSON Schema document (the tool's arguments), kept as the document it is",
      resolve: (tool) => orNull(tool.parameters_json_schema),
    }),
    permission: t.field({ type: ToolPermissionEnum, nullable: true, resolve: (tool) => orNull(tool.permission) }),
  }),
});

const ToolPermissionRuleRef = builder.objectRef<{ tool: string; permission: ToolPermissionDoc }>('ToolPermissionRule').implement({
  description: "One tool's own permission (an entry of `permissions`, a map from tool name to permission).",
  fields: (t) => ({
    tool: t.exposeString('tool'),
    permission: t.field({ type: ToolPermissionEnum, resolve: (rule) => rule.permission }),
  }),
});
type ToolPermissionDoc = (typeof PERMISSIONS)[number];

const ConnectionToolsRef = builder.objectRef<ConnectionToolsDocument>('ConnectionTools').implement({
  description: 'The tools of one connection the agent may use (`connection_tools`).',
  fields: (t) => ({
    connectionId: t.string({ resolve: (c) => c.connection_id }),
    tools: t.stringList({ nullable: true, resolve: (c) => orNull(c.tools) }),
    deferLoading: t.boolean({ nullable: true, resolve: (c) => orNull(c.defer_loading) }),
    permission: t.field({ type: ToolPermissionEnum, nullable: true, resolve: (c) => orNull(c.permission) }),
    permissions: t.field({
      type: [ToolPermissionRuleRef],
      nullable: true,
      description: 'per-tool permissions (the map `permissions`), ordered by tool name',
      resolve: (c) => (c.permissions ? entriesByKey(c.permissions).map(([tool, permission]) => ({ tool, permission })) : null),
    }),
  }),
});

const ToolsetRef = builder.objectRef<ToolsetDocument & { name: string }>('Toolset').implement({
  description: 'One toolset (an entry of `toolsets`, a map from toolset name to its settings).',
  fields: (t) => ({
    name: t.exposeString('name'),
    config: t.field({
      type: 'JSON',
      nullable: true,
      description: "free-form: the toolset's own settings, whose members depend on the toolset",
      resolve: (s) => orNull(s.config),
    }),
    enabled: t.boolean({ nullable: true, resolve: (s) => orNull(s.enabled) }),
    tools: t.field({
      type: 'JSON',
      nullable: true,
      description: 'free-form: per-tool settings of the toolset, whose members depend on the toolset',
      resolve: (s) => orNull(s.tools),
    }),
  }),
});

const PlatformToolsRef = builder.objectRef<NonNullable<AgentConfigDocument['platform_tools']>>('PlatformTools').implement({
  description: "The service's own tools (`platform_tools`).",
  fields: (t) => ({
    groups: t.stringList({ nullable: true, resolve: (p) => orNull(p.groups) }),
    readPermission: t.field({ type: ToolPermissionEnum, nullable: true, resolve: (p) => orNull(p.read_permission) }),
    writePermission: t.field({ type: ToolPermissionEnum, nullable: true, resolve: (p) => orNull(p.write_permission) }),
  }),
});

const AgentSkillReferenceRef = builder.objectRef<{ skill_id: string; revision_id: string }>('AgentSkillReference').implement({
  description: 'A skill the agent uses, pinned to one of its revisions (`skills`).',
  fields: (t) => ({
    skillId: t.string({ resolve: (s) => s.skill_id }),
    revisionId: t.string({ resolve: (s) => s.revision_id }),
  }),
});

const SkillSyncRef = builder.objectRef<NonNullable<AgentConfigDocument['skill_sync']>>('SkillSync').implement({
  description: "How skills' files reach environments (`skill_sync`).",
  fields: (t) => ({
    cleanup: t.boolean({ nullable: true, resolve: (s) => orNull(s.cleanup) }),
    mode: t.field({ type: SkillSyncModeEnum, nullable: true, resolve: (s) => orNull(s.mode) }),
    overwrite: t.boolean({ nullable: true, resolve: (s) => orNull(s.overwrite) }),
  }),
});

const AgentMemoryMountRef = builder.objectRef<NonNullable<AgentConfigDocument['memory_mounts']>[number]>('AgentMemoryMount').implement({
  description: 'A memory the agent mounts (`memory_mounts`).',
  fields: (t) => ({
    memoryId: t.string({ resolve: (m) => m.memory_id }),
    name: t.string({ nullable: true, resolve: (m) => orNull(m.name) }),
    access: t.field({ type: MemoryMountAccessEnum, nullable: true, resolve: (m) => orNull(m.access) }),
    recall: t.boolean({ nullable: true, resolve: (m) => orNull(m.recall) }),
  }),
});

const AgentPluginRef = builder.objectRef<NonNullable<AgentConfigDocument['plugins']>[number]>('AgentPlugin').implement({
  description: 'A plugin instance (`plugins`).',
  fields: (t) => ({
    pluginKey: t.string({ resolve: (p) => p.plugin_key }),
    instanceName: t.string({ nullable: true, resolve: (p) => orNull(p.instance_name) }),
    config: t.field({
      type: 'JSON',
      nullable: true,
      description: "free-form: the plugin's own settings, whose members depend on the plugin",
      resolve: (p) => orNull(p.config),
    }),
  }),
});

const MediaUnderstandingRef = builder.objectRef<NonNullable<AgentConfigDocument['media_understanding']>>('MediaUnderstanding').implement({
  description: 'How audio, images and video are understood (`media_understanding`).',
  fields: (t) => ({
    audio: t.string({ nullable: true, resolve: (m) => orNull(m.audio) }),
    image: t.string({ nullable: true, resolve: (m) => orNull(m.image) }),
    video: t.string({ nullable: true, resolve: (m) => orNull(m.video) }),
  }),
});

/** The four members an output spec and each of its variants share. */
function outputVariantFields(t: ObjectFieldBuilder<Types, OutputVariantDocument>) {
  return {
    name: t.string({ nullable: true, resolve: (v) => orNull(v.name) }),
    description: t.string({ nullable: true, resolve: (v) => orNull(v.description) }),
    resources: t.field({
      type: 'JSON',
      nullable: true,
      description: 'free-form (the spec gives it no members)',
      resolve: (v) => orNull(v.resources),
    }),
    schema: t.field({
      type: 'JSON',
      nullable: true,
      description: "a JSON Schema document (the answer's shape), kept as the document it is",
      resolve: (v) => orNull(v.schema),
    }),
  };
}

const OutputVariantRef = builder.objectRef<OutputVariantDocument>('OutputVariant').implement({
  description: 'One variant of the output spec.',
  fields: (t) => outputVariantFields(t),
});

const OutputSpecRef = builder.objectRef<NonNullable<AgentConfigDocument['output_spec']>>('OutputSpec').implement({
  description: "The shape the run's answer must have (`output_spec`).",
  fields: (t) => ({
    ...outputVariantFields(t),
    variants: t.field({ type: [OutputVariantRef], nullable: true, resolve: (o) => orNull(o.variants) }),
  }),
});

const RetriesRef = builder.objectRef<NonNullable<AgentConfigDocument['retries']>>('Retries').implement({
  description: 'How often a failed output check or tool call is retried (`retries`).',
  fields: (t) => ({
    output: t.int({ nullable: true, resolve: (r) => orNull(r.output) }),
    tools: t.int({ nullable: true, resolve: (r) => orNull(r.tools) }),
  }),
});

type ReviewerRuleDocument = NonNullable<ReviewerDocument['rules']>[string] & { key: string };

const ReviewerRuleRef = builder.objectRef<ReviewerRuleDocument>('ReviewerRule').implement({
  description: 'One reviewer rule (an entry of `rules`, a map from rule key to its settings).',
  fields: (t) => ({
    key: t.exposeString('key'),
    onFlagged: t.field({ type: ReviewActionEnum, nullable: true, resolve: (r) => orNull(r.on_flagged) }),
    riskThreshold: t.field({ type: RiskLevelEnum, nullable: true, resolve: (r) => orNull(r.risk_threshold) }),
  }),
});

const ReviewerRef = builder.objectRef<ReviewerDocument>('Reviewer').implement({
  description: "The reviewer that judges the agent's tool calls (`reviewer`).",
  fields: (t) => ({
    instruction: t.string({ nullable: true, resolve: (r) => orNull(r.instruction) }),
    shellInstruction: t.string({ nullable: true, resolve: (r) => orNull(r.shell_instruction) }),
    model: t.string({ nullable: true, description: 'a model key', resolve: (r) => orNull(r.model) }),
    modelSettings: t.field({
      type: 'JSON',
      nullable: true,
      description: 'free-form (the spec says so): settings handed to the model',
      resolve: (r) => orNull(r.model_settings),
    }),
    onError: t.field({ type: ReviewActionEnum, nullable: true, resolve: (r) => orNull(r.on_error) }),
    onFlagged: t.field({ type: ReviewActionEnum, nullable: true, resolve: (r) => orNull(r.on_flagged) }),
    riskThreshold: t.field({ type: RiskLevelEnum, nullable: true, resolve: (r) => orNull(r.risk_threshold) }),
    rules: t.field({
      type: [ReviewerRuleRef],
      nullable: true,
      description: 'the map `rules`, ordered by key',
      resolve: (r) => (r.rules ? entriesByKey(r.rules).map(([key, rule]) => ({ ...rule, key })) : null),
    }),
    timeoutSeconds: t.int({ nullable: true, resolve: (r) => orNull(r.timeout_seconds) }),
  }),
});

// Declared before they are implemented: a subagent's overrides are configuration overrides, whose
// `subagents` are subagents again.
export const AgentConfigurationOverridesRef = builder.objectRef<AgentConfigDocument>('AgentConfigurationOverrides');
export const AgentSubagentRef = builder.objectRef<SubagentDocument & { name: string }>('AgentSubagent');

AgentSubagentRef.implement({
  description: 'A subagent the agent may delegate to (an entry of `subagents`, a map from name to settings).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'the key in `subagents`; the delegate tool is `delegate_to_<name>`' }),
    agentId: t.string({ description: 'an agent of the same workspace', resolve: (s) => s.agent_id }),
    revisionId: t.string({
      nullable: true,
      description: "a pinned revision of that agent; null: the agent's default",
      resolve: (s) => orNull(s.revision_id),
    }),
    description: t.string({ nullable: true, resolve: (s) => orNull(s.description) }),
    permission: t.field({
      type: ToolPermissionEnum,
      nullable: true,
      description: "the delegate tool's permission",
      resolve: (s) => orNull(s.permission),
    }),
    overrides: t.field({
      type: AgentConfigurationOverridesRef,
      nullable: true,
      description: 'the overrides of the child runs',
      resolve: (s) => orNull(s.overrides),
    }),
  }),
});

/**
 * The members of a configuration. `complete`: a revision's stored configuration, which always has
 * `model`, `instructions` and `user_questions`; otherwise overrides, where every member is optional.
 */
function configurationFields(t: ObjectFieldBuilder<Types, AgentConfigDocument>, complete: boolean) {
  const unset = complete ? '' : '; null when the overrides do not set it';
  return {
    model: complete
      ? t.string({ description: 'the model key', resolve: (c) => c.model ?? '' })
      : t.string({ nullable: true, description: `the model key${unset}`, resolve: (c) => orNull(c.model) }),
    modelSettings: t.field({
      type: 'JSON',
      nullable: true,
      description: 'free-form (the spec says so): settings handed to the model',
      resolve: (c) => orNull(c.model_settings),
    }),
    modelCharacteristics: t.field({ type: ModelCharacteristicsRef, nullable: true, resolve: (c) => orNull(c.model_characteristics) }),
    instructions: complete
      ? t.string({ description: '"" when unset', resolve: (c) => c.instructions ?? '' })
      : t.string({ nullable: true, resolve: (c) => orNull(c.instructions) }),
    clientTools: t.field({ type: [ClientToolRef], nullable: true, resolve: (c) => orNull(c.client_tools) }),
    connectionTools: t.field({ type: [ConnectionToolsRef], nullable: true, resolve: (c) => orNull(c.connection_tools) }),
    toolsets: t.field({
      type: [ToolsetRef],
      nullable: true,
      description: 'the map `toolsets`, ordered by toolset name',
      resolve: (c) => (c.toolsets ? entriesByKey(c.toolsets).map(([name, toolset]) => ({ ...toolset, name })) : null),
    }),
    platformTools: t.field({ type: PlatformToolsRef, nullable: true, resolve: (c) => orNull(c.platform_tools) }),
    builtinSkills: t.stringList({ nullable: true, resolve: (c) => orNull(c.builtin_skills) }),
    skills: t.field({ type: [AgentSkillReferenceRef], nullable: true, resolve: (c) => orNull(c.skills) }),
    skillSync: t.field({ type: SkillSyncRef, nullable: true, resolve: (c) => orNull(c.skill_sync) }),
    memoryMounts: t.field({ type: [AgentMemoryMountRef], nullable: true, resolve: (c) => orNull(c.memory_mounts) }),
    plugins: t.field({ type: [AgentPluginRef], nullable: true, resolve: (c) => orNull(c.plugins) }),
    subagents: t.field({
      type: [AgentSubagentRef],
      nullable: true,
      description: 'the map `subagents`, ordered by name',
      resolve: (c) => (c.subagents ? entriesByKey(c.subagents).map(([name, subagent]) => ({ ...subagent, name })) : null),
    }),
    subagentMode: t.field({ type: SubagentModeEnum, nullable: true, resolve: (c) => orNull(c.subagent_mode) }),
    defaultEnvironmentTemplateId: t.string({ nullable: true, resolve: (c) => orNull(c.default_environment_template_id) }),
    lazyEnvironment: t.boolean({ nullable: true, resolve: (c) => orNull(c.lazy_environment) }),
    mediaUnderstanding: t.field({ type: MediaUnderstandingRef, nullable: true, resolve: (c) => orNull(c.media_understanding) }),
    outputSpec: t.field({ type: OutputSpecRef, nullable: true, resolve: (c) => orNull(c.output_spec) }),
    retries: t.field({ type: RetriesRef, nullable: true, resolve: (c) => orNull(c.retries) }),
    reviewer: t.field({ type: ReviewerRef, nullable: true, resolve: (c) => orNull(c.reviewer) }),
    userQuestions: complete
      ? t.boolean({ description: 'false when unset', resolve: (c) => c.user_questions ?? false })
      : t.boolean({ nullable: true, resolve: (c) => orNull(c.user_questions) }),
  };
}

export const AgentConfigurationRef = builder.objectRef<AgentConfigDocument>('AgentConfiguration').implement({
  description:
    'An agent configuration, member by member (the spec\'s "Agent configuration"). A member the configuration does not set is null, except `model`, `instructions` ("" when unset) and `userQuestions` (false when unset).',
  fields: (t) => configurationFields(t, true),
});

AgentConfigurationOverridesRef.implement({
  description: 'The members of the agent configuration one run overrides (any subset; a member not overridden is null).',
  fields: (t) => configurationFields(t, false),
});

const RunOptionsConfigurationRef = builder.objectRef<NonNullable<RunOptions['configuration']>>('RunOptionsConfiguration').implement({
  description: "The run's environment settings (`configuration`).",
  fields: (t) => ({
    allowedHosts: t.stringList({ nullable: true, resolve: (c) => orNull(c.allowed_hosts) }),
    extensions: t.field({
      type: 'JSON',
      nullable: true,
      description: 'free-form (the spec gives it no members)',
      resolve: (c) => orNull(c.extensions),
    }),
  }),
});

const RunMaxUsageRef = builder.objectRef<NonNullable<RunOptions['max_usage']>>('RunMaxUsage').implement({
  description: 'Limits of one run (`max_usage`).',
  fields: (t) => ({ requests: t.int({ nullable: true, description: 'model requests, at least 1', resolve: (u) => orNull(u.requests) }) }),
});

export const RunOptionsRef = builder.objectRef<RunOptions>('RunOptions').implement({
  description: 'The options a run was started with (the spec\'s "Run options"); a member the request did not set is null.',
  fields: (t) => ({
    configuration: t.field({ type: RunOptionsConfigurationRef, nullable: true, resolve: (o) => orNull(o.configuration) }),
    labels: t.field({
      type: 'JSON',
      nullable: true,
      description: 'the map of string to string the options carry',
      resolve: (o) => orNull(o.labels),
    }),
    labelList: t.field({
      type: [LabelRef],
      nullable: true,
      description: `${LABEL_LIST_DESCRIPTION}; null when the options carry no labels`,
      resolve: (o) => (o.labels ? labelPairs(o.labels) : null),
    }),
    maxUsage: t.field({ type: RunMaxUsageRef, nullable: true, resolve: (o) => orNull(o.max_usage) }),
    overrides: t.field({
      type: AgentConfigurationOverridesRef,
      nullable: true,
      resolve: (o) => orNull(o.overrides as AgentConfigDocument | undefined),
    }),
  }),
});

/** The description of a field that answers a stored configuration document as JSON. */
export const DOCUMENT_DESCRIPTION =
  'the same as one JSON document (snake_case members, only those that are set, in the stored order): what the REST view answers; prefer the typed field';
