// The agent configuration (spec: "Agent configuration") and the run options (spec: "Run options"),
// each defined once, as a TypeBox schema: JSON Schema that ajv validates with, the TypeScript types
// (`Static`), and the GraphQL types built from it (src/features/agents/graphql/agent-config.ts). Value sets
// the spec shows only by samples are fixed here and documented in docs/api/agents.md. Descriptions
// and `title`s are the GraphQL types' (an object's title is its type name), `x-graphql` hints say
// how a member is answered in GraphQL (schema-parts.ts); ajv ignores both.
import Type, { type Static } from 'typebox';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, AnySchema } from 'ajv';
import { invalidArgument, quoteInput } from '../../../lib/errors.js';
import { ajvOfDraft, declaredDraft, ValidatorCache, type DraftAjv, type JsonSchemaDraft } from '../../../lib/json-schema-drafts.js';
import { PERMISSIONS } from './permission-values.js';
import { PLATFORM_TOOL_GROUPS } from './platform-tool-groups.js';
import { validatePlugins } from './plugins.js';
import { outputSpecSchema, type OutputSpec } from './output-spec.js';
import { closed, freeForm, mapOf, oneOf, strMax, type PartOptions } from './schema-parts.js';

export { PERMISSIONS };
export const REVIEW_ACTIONS = ['allow', 'ask', 'deny'] as const;
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export const MODEL_KEY = '^[a-z0-9][a-z0-9.-]{0,127}$';
export const SKILL_SYNC_MODES = ['shared', 'isolated'] as const;
export const SUBAGENT_MODES = ['inline', 'thread'] as const;
export const MEMORY_ACCESS = ['read', 'write'] as const;
/** A subagent's name: its key in `subagents`, the child thread's `subagent` and part of its delegate tool's name. */
export const SUBAGENT_NAME = '^[a-z0-9_-]{1,48}$';
export const MAX_SUBAGENTS = 16;

// Enum titles are the GraphQL enum types' names.
const permission = (options: PartOptions = {}) => oneOf(PERMISSIONS, { ...options, title: 'ToolPermission' });
const reviewAction = oneOf(REVIEW_ACTIONS, { title: 'ReviewAction' });
const riskLevel = oneOf(RISK_LEVELS, { title: 'RiskLevel' });
const modelKey = (description: string) => Type.String({ pattern: MODEL_KEY, description });
const modelSettings = freeForm({ description: 'free-form (the spec says so): settings handed to the model' });
/** Members typed in GraphQL as another document type (subagent overrides are configuration overrides). */
const overridesOfChildRuns = freeForm({
  description: 'the overrides of the child runs',
  'x-graphql': { type: 'AgentConfigurationOverrides' },
});

/** `toolsets.web`: web_search and web_fetch through a web provider (docs/api/tools.md, "The web toolset"). */
const webToolTuning = closed({ enabled: Type.Optional(Type.Boolean()), permission: Type.Optional(permission()) });
const webToolset = closed({
  enabled: Type.Optional(Type.Boolean()),
  config: Type.Optional(
    closed({
      provider_id: Type.Optional(Type.String()),
      fetch_provider_id: Type.Optional(Type.String()),
      max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
      max_page_bytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 16 * 1024 * 1024 })),
      max_text_chars: Type.Optional(Type.Integer({ minimum: 500, maximum: 500_000 })),
      timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 120 })),
    }),
  ),
  tools: Type.Optional(closed({ web_search: Type.Optional(webToolTuning), web_fetch: Type.Optional(webToolTuning) })),
});
/**
 * How GraphQL answers any toolset: the members every toolset has, its own settings free-form (their
 * members depend on the toolset). Only a view: what a toolset admits is `webToolset` above.
 */
const toolsetEntry = closed(
  {
    config: Type.Optional(freeForm({ description: "free-form: the toolset's own settings, whose members depend on the toolset" })),
    enabled: Type.Optional(Type.Boolean()),
    tools: Type.Optional(freeForm({ description: 'free-form: per-tool settings of the toolset, whose members depend on the toolset' })),
  },
  { title: 'Toolset', description: 'One toolset (an entry of `toolsets`, a map from toolset name to its settings).' },
);

const clientTool = closed(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    description: Type.Optional(strMax(4000)),
    instruction: Type.Optional(strMax(20_000)),
    metadata: Type.Optional(freeForm({ description: 'free-form (the spec gives it no members): handed to the client with each call' })),
    parameters_json_schema: Type.Optional(
      freeForm({ description: "a JSON Schema document (the tool's arguments), kept as the document it is" }),
    ),
    permission: Type.Optional(permission()),
  },
  { title: 'ClientTool', description: 'A tool the client executes: the run waits for its result (`client_tools`).' },
);

const connectionTools = closed(
  {
    connection_id: Type.String(),
    tools: Type.Optional(Type.Array(Type.String())),
    defer_loading: Type.Optional(Type.Boolean()),
    permission: Type.Optional(permission()),
    permissions: Type.Optional(
      mapOf(permission(), {
        description: 'per-tool permissions (the map `permissions`), ordered by tool name',
        'x-graphql': {
          entries: 'tool',
          value: 'permission',
          entry: Type.Object(
            {},
            {
              title: 'ToolPermissionRule',
              description: "One tool's own permission (an entry of `permissions`, a map from tool name to permission).",
            },
          ),
        },
      }),
    ),
  },
  { title: 'ConnectionTools', description: 'The tools of one connection the agent may use (`connection_tools`).' },
);

const reviewerRule = closed(
  { on_flagged: Type.Optional(reviewAction), risk_threshold: Type.Optional(riskLevel) },
  { title: 'ReviewerRule', description: 'One reviewer rule (an entry of `rules`, a map from rule key to its settings).' },
);

const reviewer = closed(
  {
    instruction: Type.Optional(strMax(20_000)),
    shell_instruction: Type.Optional(strMax(20_000)),
    model: Type.Optional(modelKey('a model key')),
    model_settings: Type.Optional(modelSettings),
    on_error: Type.Optional(reviewAction),
    on_flagged: Type.Optional(reviewAction),
    risk_threshold: Type.Optional(riskLevel),
    rules: Type.Optional(mapOf(reviewerRule, { description: 'the map `rules`, ordered by key', 'x-graphql': { entries: 'key' } })),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
  },
  { title: 'Reviewer', description: "The reviewer that judges the agent's tool calls (`reviewer`)." },
);

/** One entry of `subagents` (docs/api/tools.md, "Subagents"). */
const subagent = closed(
  {
    agent_id: Type.String({ description: 'an agent of the same workspace' }),
    revision_id: Type.Optional(Type.String({ description: "a pinned revision of that agent; null: the agent's default" })),
    description: Type.Optional(strMax(4000)),
    permission: Type.Optional(permission({ description: "the delegate tool's permission" })),
    // Checked like a run's overrides (normalizeAgentConfig).
    overrides: Type.Optional(overridesOfChildRuns),
  },
  { title: 'AgentSubagent', description: 'A subagent the agent may delegate to (an entry of `subagents`, a map from name to settings).' },
);

export const agentConfigSchema = closed(
  {
    model: modelKey('the model key'),
    model_settings: Type.Optional(modelSettings),
    // The thresholds are shares of the usable window (docs/api/context.md): above 0, at most 1.
    model_characteristics: Type.Optional(
      closed(
        {
          compact_threshold: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
          context_window_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
          proactive_context_management_threshold: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
        },
        {
          title: 'ModelCharacteristics',
          description: "What the service should assume about the model's context (`model_characteristics`).",
        },
      ),
    ),
    // `default`: what normalizeAgentConfig fills in, so a stored configuration always has it.
    instructions: Type.Optional(strMax(200_000, { default: '' })),
    client_tools: Type.Optional(Type.Array(clientTool, { maxItems: 128 })),
    connection_tools: Type.Optional(Type.Array(connectionTools, { maxItems: 64 })),
    // Like an unknown platform tool group, an unknown toolset would offer nothing without a word: refused by name.
    toolsets: Type.Optional(
      closed(
        { web: Type.Optional(webToolset) },
        { description: 'the map `toolsets`, ordered by toolset name', 'x-graphql': { entries: 'name', entry: toolsetEntry } },
      ),
    ),
    // An unknown group would offer nothing without a word: refused by name.
    platform_tools: Type.Optional(
      closed(
        {
          groups: Type.Optional(Type.Array(oneOf(PLATFORM_TOOL_GROUPS))),
          read_permission: Type.Optional(permission()),
          write_permission: Type.Optional(permission()),
        },
        { title: 'PlatformTools', description: "The service's own tools (`platform_tools`)." },
      ),
    ),
    builtin_skills: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    // Without `revision_id` a run uses the skill's default revision at the time it starts.
    skills: Type.Optional(
      Type.Array(
        closed(
          {
            skill_id: Type.String(),
            revision_id: Type.Optional(
              Type.String({ description: "a pinned revision of the skill; null: the skill's default revision when a run starts" }),
            ),
          },
          { title: 'AgentSkillReference', description: 'A skill the agent uses, optionally pinned to one of its revisions (`skills`).' },
        ),
        { maxItems: 64 },
      ),
    ),
    skill_sync: Type.Optional(
      closed(
        {
          cleanup: Type.Optional(Type.Boolean()),
          mode: Type.Optional(oneOf(SKILL_SYNC_MODES, { title: 'SkillSyncMode' })),
          overwrite: Type.Optional(Type.Boolean()),
        },
        { title: 'SkillSync', description: "How skills' files reach environments (`skill_sync`)." },
      ),
    ),
    memory_mounts: Type.Optional(
      Type.Array(
        closed(
          {
            memory_id: Type.String(),
            name: Type.Optional(strMax(200)),
            access: Type.Optional(oneOf(MEMORY_ACCESS, { title: 'MemoryMountAccess' })),
            recall: Type.Optional(Type.Boolean()),
          },
          { title: 'AgentMemoryMount', description: 'A memory the agent mounts (`memory_mounts`).' },
        ),
        { maxItems: 32 },
      ),
    ),
    plugins: Type.Optional(
      Type.Array(
        closed(
          {
            plugin_key: Type.String(),
            instance_name: Type.Optional(Type.String()),
            config: Type.Optional(freeForm({ description: "free-form: the plugin's own settings, whose members depend on the plugin" })),
          },
          { title: 'AgentPlugin', description: 'A plugin instance (`plugins`).' },
        ),
      ),
    ),
    subagents: Type.Optional(
      mapOf(subagent, {
        maxProperties: MAX_SUBAGENTS,
        propertyNames: { pattern: SUBAGENT_NAME },
        description: 'the map `subagents`, ordered by name',
        'x-graphql': { entries: 'name', keyDescription: 'the key in `subagents`; the delegate tool is `delegate_to_<name>`' },
      }),
    ),
    subagent_mode: Type.Optional(oneOf(SUBAGENT_MODES, { title: 'SubagentMode' })),
    default_environment_template_id: Type.Optional(Type.String()),
    lazy_environment: Type.Optional(Type.Boolean()),
    media_understanding: Type.Optional(
      closed(
        { audio: Type.Optional(Type.String()), image: Type.Optional(Type.String()), video: Type.Optional(Type.String()) },
        { title: 'MediaUnderstanding', description: 'How audio, images and video are understood (`media_understanding`).' },
      ),
    ),
    output_spec: Type.Optional(outputSpecSchema),
    retries: Type.Optional(
      closed(
        {
          output: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
          tools: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
        },
        { title: 'Retries', description: 'How often a failed output check or tool call is retried (`retries`).' },
      ),
    ),
    reviewer: Type.Optional(reviewer),
    user_questions: Type.Optional(Type.Boolean({ default: false })),
  },
  {
    title: 'AgentConfiguration',
    description:
      'An agent configuration, member by member (the spec\'s "Agent configuration"). A member the configuration does not set is null, except `model`, `instructions` ("" when unset) and `userQuestions` (false when unset).',
  },
);

/** A validated agent configuration document, or a run's overrides of one (every member optional). */
export type AgentConfigDocument = Partial<Static<typeof agentConfigSchema>>;
/** A valid agent configuration: `model` set, every other member optional. */
export type AgentConfig = Static<typeof agentConfigSchema>;
/** A stored (normalized) agent configuration: `instructions` and `user_questions` are always set too. */
export type StoredAgentConfig = AgentConfig & { instructions: string; user_questions: boolean };
export type ClientToolDocument = Static<typeof clientTool>;
export type ConnectionToolsDocument = Static<typeof connectionTools>;
export type SubagentDocument = Static<typeof subagent>;
export type ReviewerDocument = Static<typeof reviewer>;
export type WebToolsetDocument = Static<typeof webToolset>;

const ajv = new Ajv2020({ allErrors: false, strict: false });
/** The meta-schema checks of a client tool's schema, by the draft its `$schema` names (2020-12 without one). */
const metaCheckers = new Map<JsonSchemaDraft, DraftAjv>([['2020-12', ajv]]);

/** Why `schema` is not a JSON Schema of a draft the service reads, or null. */
function schemaProblem(schema: Record<string, unknown>): string | null {
  const draft = declaredDraft(schema);
  if (draft === null)
    return `$schema ${quoteInput(schema.$schema)} names a draft the service does not read (use draft-07, 2019-09 or 2020-12, or leave $schema out)`;
  const checker = metaCheckers.get(draft ?? '2020-12') ?? ajvOfDraft(draft!, { allErrors: false, strict: false });
  metaCheckers.set(draft ?? '2020-12', checker);
  try {
    return checker.validateSchema(schema as AnySchema) ? null : checker.errorsText(checker.errors);
  } catch (error) {
    // ajv throws rather than answers for some schemas (a meta-schema it cannot resolve): still a refusal.
    return (error as Error).message;
  }
}
const validateConfig = ajv.compile(agentConfigSchema as AnySchema);

/** `/a/0/b` → `a[0].b`, prefixed with the body field name. */
export function fieldPath(prefix: string, error: ErrorObject): string {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'additionalProperties') parts.push(String((error.params as { additionalProperty: string }).additionalProperty));
  if (error.keyword === 'required') parts.push(String((error.params as { missingProperty: string }).missingProperty));
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : `${path}.${part}`), prefix);
}

/** The toolsets an agent may configure (`toolsets.<name>`). */
export const TOOLSET_NAMES = ['web'] as const;

function describe(error: ErrorObject): string {
  switch (error.keyword) {
    case 'additionalProperties':
      return error.instancePath.endsWith('/toolsets')
        ? `is not a known toolset (the toolsets are ${TOOLSET_NAMES.map((name) => JSON.stringify(name)).join(', ')})`
        : 'is not a known field';
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * An output spec's schemas (its own and its variants') must be JSON Schemas of a draft the service
 * reads, and ones ajv can compile: the run checks its answer against them.
 */
function checkOutputSchemas(spec: OutputSpec | undefined, prefix: string): void {
  const schemas: [unknown, string][] = [
    [spec?.schema, `${prefix}.schema`],
    ...(spec?.variants ?? []).map((variant, index): [unknown, string] => [variant.schema, `${prefix}.variants[${index}].schema`]),
  ];
  for (const [schema, field] of schemas) {
    if (schema === undefined) continue;
    const problem = schemaProblem(schema as Record<string, unknown>) ?? compileProblem(schema as Record<string, unknown>);
    if (problem) throw invalidArgument(`${field} is not a valid JSON Schema: ${problem}`, field);
  }
}

// Compiling proves a schema usable (validators kept in a bounded cache: the same specs come back).
const outputValidators = new ValidatorCache({ strict: false, logger: false });

/** Why ajv cannot compile `schema` (a `$ref` that points nowhere, say), or null. */
function compileProblem(schema: Record<string, unknown>): string | null {
  try {
    outputValidators.validatorOf(schema);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Stubbing old tool results must start no later than compaction does: proactive ≤ compact. */
export function checkContextThresholds(characteristics: AgentConfigDocument['model_characteristics'], prefix: string) {
  const proactive = characteristics?.proactive_context_management_threshold;
  const compact = characteristics?.compact_threshold;
  if (proactive !== undefined && compact !== undefined && proactive > compact) {
    const field = `${prefix}.proactive_context_management_threshold`;
    throw invalidArgument(`${field} must be at most compact_threshold (${compact})`, field);
  }
}

/** The most fallback models one `model_settings` lists: each is asked only after the one before gave up. */
export const MAX_FALLBACK_MODELS = 5;

/** The keys of `model_settings.fallback_models`, asked in order when the model keeps refusing for load. */
export function fallbackModels(settings: Record<string, unknown>): string[] {
  const listed = settings.fallback_models;
  return Array.isArray(listed) ? listed.filter((key): key is string => typeof key === 'string') : [];
}

/**
 * `model_settings.fallback_models` (the settings are otherwise free-form): a list of distinct model
 * keys, at most MAX_FALLBACK_MODELS. That each names a model of the workspace is checked with the
 * other references (agents.ts, checkConfigReferences).
 */
export function checkFallbackModels(settings: unknown, prefix: string) {
  const listed = (settings as Record<string, unknown> | undefined)?.fallback_models;
  if (listed === undefined) return;
  const field = `${prefix}.fallback_models`;
  if (!Array.isArray(listed) || listed.some((key) => typeof key !== 'string' || key.length === 0 || key.length > 200))
    throw invalidArgument(`${field} must be a list of model keys`, field);
  if (listed.length > MAX_FALLBACK_MODELS) throw invalidArgument(`${field} lists at most ${MAX_FALLBACK_MODELS} models`, field);
  if (new Set(listed).size !== listed.length) throw invalidArgument(`${field} names a model twice`, field);
}

/**
 * Validates a configuration and returns its canonical representation: the spec's defaults filled
 * (`instructions` "" and `user_questions` false), every other unset field left out.
 */
export function normalizeAgentConfig(config: unknown, prefix = 'config'): StoredAgentConfig {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw invalidArgument(`${prefix} must be an object`, prefix);
  if (!validateConfig(config)) {
    const error = validateConfig.errors![0]!;
    const field = fieldPath(prefix, error);
    throw invalidArgument(`${field} ${describe(error)}`, field);
  }
  const typed = config as AgentConfig;
  for (const [index, tool] of (typed.client_tools ?? []).entries()) {
    if (tool.parameters_json_schema === undefined) continue;
    const problem = schemaProblem(tool.parameters_json_schema);
    if (problem) {
      const field = `${prefix}.client_tools[${index}].parameters_json_schema`;
      throw invalidArgument(`${field} is not a valid JSON Schema: ${problem}`, field);
    }
  }
  checkOutputSchemas(typed.output_spec, `${prefix}.output_spec`);
  checkContextThresholds(typed.model_characteristics, `${prefix}.model_characteristics`);
  checkFallbackModels(typed.model_settings, `${prefix}.model_settings`);
  checkFallbackModels(typed.reviewer?.model_settings, `${prefix}.reviewer.model_settings`);
  validatePlugins(typed.plugins, `${prefix}.plugins`);
  checkSubagentOverrides(typed.subagents, `${prefix}.subagents`);
  const names = new Set<string>();
  for (const [index, tool] of (typed.client_tools ?? []).entries()) {
    if (names.has(tool.name))
      throw invalidArgument(`client tool name ${quoteInput(tool.name)} is used twice`, `${prefix}.client_tools[${index}].name`);
    names.add(tool.name);
  }
  return { ...typed, instructions: typed.instructions ?? '', user_questions: typed.user_questions ?? false };
}

// ── run options (spec: "Run options"): configuration, labels, max_usage, overrides ──
export const runOptionsSchema = closed(
  {
    configuration: Type.Optional(
      closed(
        {
          allowed_hosts: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 256 })),
          extensions: Type.Optional(freeForm({ description: 'free-form (the spec gives it no members)' })),
        },
        { title: 'RunOptionsConfiguration', description: "The run's environment settings (`configuration`)." },
      ),
    ),
    labels: Type.Optional(mapOf(Type.String(), { description: 'the map of string to string the options carry' })),
    max_usage: Type.Optional(
      closed(
        { requests: Type.Optional(Type.Integer({ minimum: 1, description: 'model requests, at least 1' })) },
        { title: 'RunMaxUsage', description: 'Limits of one run (`max_usage`).' },
      ),
    ),
    // Any agent-configuration field may be overridden for one run; none is required.
    overrides: Type.Optional(
      // Without the configuration's title and description: the field is described by its type.
      Type.Unsafe<AgentConfigDocument>({
        ...agentConfigSchema,
        title: undefined,
        description: undefined,
        required: [],
        'x-graphql': { type: 'AgentConfigurationOverrides' },
      }),
    ),
  },
  {
    title: 'RunOptions',
    description: 'The options a run was started with (the spec\'s "Run options"); a member the request did not set is null.',
  },
);
const validateRunOptionsSchema = ajv.compile(runOptionsSchema as AnySchema);

export type RunOptions = Static<typeof runOptionsSchema>;

export function normalizeRunOptions(options: unknown, prefix = 'options'): RunOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) throw invalidArgument(`${prefix} must be an object`, prefix);
  if (!validateRunOptionsSchema(options)) {
    const error = validateRunOptionsSchema.errors![0]!;
    const field = fieldPath(prefix, error);
    throw invalidArgument(`${field} ${describe(error)}`, field);
  }
  const valid = options as RunOptions;
  validatePlugins(valid.overrides?.plugins, `${prefix}.overrides.plugins`);
  checkContextThresholds(valid.overrides?.model_characteristics, `${prefix}.overrides.model_characteristics`);
  checkFallbackModels(valid.overrides?.model_settings, `${prefix}.overrides.model_settings`);
  checkFallbackModels(valid.overrides?.reviewer?.model_settings, `${prefix}.overrides.reviewer.model_settings`);
  checkSubagentOverrides(valid.overrides?.subagents, `${prefix}.overrides.subagents`);
  return valid;
}

/** A subagent's `overrides` are the overrides of its child runs: checked as a run's overrides are. */
function checkSubagentOverrides(subagents: AgentConfigDocument['subagents'], prefix: string) {
  for (const [name, subagent] of Object.entries(subagents ?? {}))
    if (subagent.overrides !== undefined) normalizeRunOptions({ overrides: subagent.overrides }, `${prefix}.${name}`);
}

/** The agent view of a run: the revision's configuration with the run's overrides applied. */
export function applyOverrides<C extends AgentConfigDocument>(config: C, overrides: AgentConfigDocument | undefined): C {
  return overrides ? { ...config, ...overrides } : { ...config };
}
