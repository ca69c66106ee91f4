// The agent configuration (spec: "Agent configuration") as JSON Schema, validated with ajv.
// Value sets the spec shows only by samples are fixed here and documented in docs/api/agents.md.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, AnySchema } from 'ajv';
import { invalidArgument, quoteInput } from '../lib/errors.js';
import { ajvOfDraft, declaredDraft, ValidatorCache, type DraftAjv, type JsonSchemaDraft } from '../lib/json-schema-drafts.js';
import { PERMISSIONS } from './permission-values.js';
import { PLATFORM_TOOL_GROUPS } from './platform-tool-groups.js';
import { validatePlugins } from './plugins.js';

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

const permission = { enum: PERMISSIONS };
const object = { type: 'object' };
const str = { type: 'string' };
const strMax = (max: number) => ({ type: 'string', maxLength: max });
const closed = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** `toolsets.web`: web_search and web_fetch through a web provider (docs/api/tools.md, "The web toolset"). */
const webToolTuning = closed({ enabled: { type: 'boolean' }, permission });
const webToolset = closed({
  enabled: { type: 'boolean' },
  config: closed({
    provider_id: str,
    fetch_provider_id: str,
    max_results: { type: 'integer', minimum: 1, maximum: 20 },
    max_page_bytes: { type: 'integer', minimum: 1024, maximum: 16 * 1024 * 1024 },
    max_text_chars: { type: 'integer', minimum: 500, maximum: 500_000 },
    timeout_seconds: { type: 'integer', minimum: 1, maximum: 120 },
  }),
  tools: closed({ web_search: webToolTuning, web_fetch: webToolTuning }),
});

const outputVariant = closed({ name: strMax(200), description: strMax(4000), resources: object, schema: object });

export const agentConfigSchema = closed(
  {
    model: { type: 'string', pattern: MODEL_KEY },
    model_settings: object,
    // The thresholds are shares of the usable window (docs/api/context.md): above 0, at most 1.
    model_characteristics: closed({
      compact_threshold: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      context_window_tokens: { type: 'integer', minimum: 1 },
      proactive_context_management_threshold: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    }),
    instructions: strMax(200_000),
    client_tools: {
      type: 'array',
      maxItems: 128,
      items: closed(
        {
          name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
          description: strMax(4000),
          instruction: strMax(20_000),
          metadata: object,
          parameters_json_schema: object,
          permission,
        },
        ['name'],
      ),
    },
    connection_tools: {
      type: 'array',
      maxItems: 64,
      items: closed(
        {
          connection_id: str,
          tools: { type: 'array', items: str },
          defer_loading: { type: 'boolean' },
          permission,
          permissions: { type: 'object', additionalProperties: permission },
        },
        ['connection_id'],
      ),
    },
    // Like an unknown platform tool group, an unknown toolset would offer nothing without a word: refused by name.
    toolsets: { type: 'object', properties: { web: webToolset }, additionalProperties: false },
    // An unknown group would offer nothing without a word: refused by name.
    platform_tools: closed({
      groups: { type: 'array', items: { enum: PLATFORM_TOOL_GROUPS } },
      read_permission: permission,
      write_permission: permission,
    }),
    builtin_skills: { type: 'array', maxItems: 64, items: str },
    // Without `revision_id` a run uses the skill's default revision at the time it starts.
    skills: { type: 'array', maxItems: 64, items: closed({ skill_id: str, revision_id: str }, ['skill_id']) },
    skill_sync: closed({ cleanup: { type: 'boolean' }, mode: { enum: SKILL_SYNC_MODES }, overwrite: { type: 'boolean' } }),
    memory_mounts: {
      type: 'array',
      maxItems: 32,
      items: closed({ memory_id: str, name: strMax(200), access: { enum: MEMORY_ACCESS }, recall: { type: 'boolean' } }, ['memory_id']),
    },
    plugins: { type: 'array', items: closed({ plugin_key: str, instance_name: str, config: object }, ['plugin_key']) },
    subagents: {
      type: 'object',
      maxProperties: MAX_SUBAGENTS,
      propertyNames: { pattern: SUBAGENT_NAME },
      // `overrides` is checked like a run's overrides (normalizeAgentConfig).
      additionalProperties: closed({ agent_id: str, revision_id: str, description: strMax(4000), permission, overrides: object }, [
        'agent_id',
      ]),
    },
    subagent_mode: { enum: SUBAGENT_MODES },
    default_environment_template_id: str,
    lazy_environment: { type: 'boolean' },
    media_understanding: closed({ audio: str, image: str, video: str }),
    output_spec: closed({ ...outputVariant.properties, variants: { type: 'array', items: outputVariant } }),
    retries: closed({ output: { type: 'integer', minimum: 0, maximum: 20 }, tools: { type: 'integer', minimum: 0, maximum: 20 } }),
    reviewer: closed({
      instruction: strMax(20_000),
      shell_instruction: strMax(20_000),
      model: { type: 'string', pattern: MODEL_KEY },
      model_settings: object,
      on_error: { enum: REVIEW_ACTIONS },
      on_flagged: { enum: REVIEW_ACTIONS },
      risk_threshold: { enum: RISK_LEVELS },
      rules: {
        type: 'object',
        additionalProperties: closed({ on_flagged: { enum: REVIEW_ACTIONS }, risk_threshold: { enum: RISK_LEVELS } }),
      },
      timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600 },
    }),
    user_questions: { type: 'boolean' },
  },
  ['model'],
);

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

export type AgentConfig = Record<string, unknown> & { model: string };

/**
 * An output spec's schemas (its own and its variants') must be JSON Schemas of a draft the service
 * reads, and ones ajv can compile: the run checks its answer against them.
 */
function checkOutputSchemas(spec: { schema?: unknown; variants?: { schema?: unknown }[] } | undefined, prefix: string): void {
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

/**
 * Validates a configuration and returns its canonical representation: the spec's defaults filled
 * (`instructions` "" and `user_questions` false), every other unset field left out.
 */
/** Stubbing old tool results must start no later than compaction does: proactive ≤ compact. */
export function checkContextThresholds(characteristics: Record<string, number> | undefined, prefix: string) {
  const proactive = characteristics?.proactive_context_management_threshold;
  const compact = characteristics?.compact_threshold;
  if (proactive !== undefined && compact !== undefined && proactive > compact) {
    const field = `${prefix}.proactive_context_management_threshold`;
    throw invalidArgument(`${field} must be at most compact_threshold (${compact})`, field);
  }
}

export function normalizeAgentConfig(config: unknown, prefix = 'config'): AgentConfig {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw invalidArgument(`${prefix} must be an object`, prefix);
  if (!validateConfig(config)) {
    const error = validateConfig.errors![0]!;
    const field = fieldPath(prefix, error);
    throw invalidArgument(`${field} ${describe(error)}`, field);
  }
  const typed = config as AgentConfig;
  for (const [index, tool] of ((typed.client_tools as { parameters_json_schema?: unknown }[] | undefined) ?? []).entries()) {
    if (tool.parameters_json_schema === undefined) continue;
    const problem = schemaProblem(tool.parameters_json_schema as Record<string, unknown>);
    if (problem) {
      const field = `${prefix}.client_tools[${index}].parameters_json_schema`;
      throw invalidArgument(`${field} is not a valid JSON Schema: ${problem}`, field);
    }
  }
  checkOutputSchemas(typed.output_spec as Parameters<typeof checkOutputSchemas>[0], `${prefix}.output_spec`);
  checkContextThresholds(typed.model_characteristics as Record<string, number> | undefined, `${prefix}.model_characteristics`);
  validatePlugins(typed.plugins, `${prefix}.plugins`);
  checkSubagentOverrides(typed.subagents, `${prefix}.subagents`);
  const names = new Set<string>();
  for (const [index, tool] of ((typed.client_tools as { name: string }[] | undefined) ?? []).entries()) {
    if (names.has(tool.name))
      throw invalidArgument(`client tool name ${quoteInput(tool.name)} is used twice`, `${prefix}.client_tools[${index}].name`);
    names.add(tool.name);
  }
  return { ...typed, instructions: typed.instructions ?? '', user_questions: typed.user_questions ?? false };
}

// ── run options (spec: "Run options"): configuration, labels, max_usage, overrides ──
const runOptionsSchema = closed({
  configuration: closed({
    allowed_hosts: { type: 'array', maxItems: 256, items: { type: 'string', minLength: 1, maxLength: 253 } },
    extensions: object,
  }),
  labels: { type: 'object', additionalProperties: { type: 'string' } },
  max_usage: closed({ requests: { type: 'integer', minimum: 1 } }),
  // Any agent-configuration field may be overridden for one run; none is required.
  overrides: { ...agentConfigSchema, required: [] },
});
const validateRunOptionsSchema = ajv.compile(runOptionsSchema as AnySchema);

export type RunOptions = {
  configuration?: { allowed_hosts?: string[]; extensions?: Record<string, unknown> };
  labels?: Record<string, string>;
  max_usage?: { requests?: number };
  overrides?: Record<string, unknown>;
};

export function normalizeRunOptions(options: unknown, prefix = 'options'): RunOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) throw invalidArgument(`${prefix} must be an object`, prefix);
  if (!validateRunOptionsSchema(options)) {
    const error = validateRunOptionsSchema.errors![0]!;
    const field = fieldPath(prefix, error);
    throw invalidArgument(`${field} ${describe(error)}`, field);
  }
  validatePlugins((options as RunOptions).overrides?.plugins, `${prefix}.overrides.plugins`);
  checkContextThresholds(
    (options as RunOptions).overrides?.model_characteristics as Record<string, number> | undefined,
    `${prefix}.overrides.model_characteristics`,
  );
  checkSubagentOverrides((options as RunOptions).overrides?.subagents, `${prefix}.overrides.subagents`);
  return options as RunOptions;
}

/** A subagent's `overrides` are the overrides of its child runs: checked as a run's overrides are. */
function checkSubagentOverrides(subagents: unknown, prefix: string) {
  for (const [name, subagent] of Object.entries((subagents as Record<string, { overrides?: unknown }> | undefined) ?? {}))
    if (subagent.overrides !== undefined) normalizeRunOptions({ overrides: subagent.overrides }, `${prefix}.${name}`);
}

/** The agent view of a run: the revision's configuration with the run's overrides applied. */
export function applyOverrides(config: Record<string, unknown>, overrides: Record<string, unknown> | undefined): Record<string, unknown> {
  return overrides ? { ...config, ...overrides } : { ...config };
}
