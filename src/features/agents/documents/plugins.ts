// The plugin catalog: every `plugin_key` an agent configuration may name, with the JSON Schema of its
// `config`. Plugins are server-side tool packs registered in code; their tools are built by the
// engine (src/engine/tools/plugins/), this module only describes them so that a configuration naming
// an unknown key or an invalid config is refused when it is written (400 `invalid_argument`).
// Every plugin's config also takes `permission` and `permissions` (the permission of its tools).
// Each config is defined once, as a TypeBox schema: ajv checks configurations against it when they
// are written, and the engine's plugins read their config through it (typed, no casts).
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import Type, { type Static, type TSchema } from 'typebox';
import { invalidArgument, quoteInput } from '../../../lib/errors.js';
import { PERMISSIONS } from './permission-values.js';

export interface PluginDefinition {
  key: string;
  description: string;
  /** The JSON Schema of `config`: the members the plugin itself reads and the permission settings. */
  config: TSchema;
}

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const HTTP_REQUEST_LIMITS = {
  maxResponseBytes: { default: 1_048_576, max: 4_194_304 },
  timeoutSeconds: { default: 30, max: 120 },
  maxRequestBodyBytes: 1_048_576,
} as const;

const permission = Type.Enum(PERMISSIONS);
/** What every plugin's config takes besides its own members: the permission of its tools (`inherit` → the agent's default). */
export const PluginPermissionSettings = Type.Object({
  permission: Type.Optional(permission),
  permissions: Type.Optional(Type.Record(Type.String(), permission)),
});
export type PluginPermissionSettings = Static<typeof PluginPermissionSettings>;

/** The `http_request` plugin's config. */
export const HttpRequestConfig = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    methods: Type.Optional(Type.Array(Type.Enum(HTTP_METHODS), { minItems: 1, uniqueItems: true })),
    max_response_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: HTTP_REQUEST_LIMITS.maxResponseBytes.max })),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: HTTP_REQUEST_LIMITS.timeoutSeconds.max })),
    ...PluginPermissionSettings.properties,
  },
  { additionalProperties: false },
);
export type HttpRequestConfig = Static<typeof HttpRequestConfig>;

export const PLUGINS: readonly PluginDefinition[] = [
  {
    key: 'http_request',
    description:
      "An `http_request` tool: method, url, headers, body; bounded by the run's `configuration.allowed_hosts` and the endpoint policy, with size and time limits.",
    config: HttpRequestConfig,
  },
];

const ajv = new Ajv2020({ allErrors: false, strict: false });
const validators = new Map<string, ValidateFunction>(PLUGINS.map((plugin) => [plugin.key, ajv.compile(plugin.config)]));

export const pluginDefinition = (key: string) => PLUGINS.find((plugin) => plugin.key === key);

/** Refuses an unknown `plugin_key` and a `config` its plugin does not accept, naming the field. */
export function validatePlugins(plugins: unknown, prefix: string) {
  if (!Array.isArray(plugins)) return;
  for (const [index, entry] of plugins.entries()) {
    const { plugin_key: key, config } = entry as { plugin_key: string; config?: unknown };
    const validate = validators.get(key);
    if (!validate)
      throw invalidArgument(
        `unknown plugin_key ${quoteInput(key)}; known: ${PLUGINS.map((p) => p.key).join(', ')}`,
        `${prefix}[${index}].plugin_key`,
      );
    if (config !== undefined && !validate(config)) {
      const error = validate.errors![0]!;
      const path = error.instancePath
        .split('/')
        .slice(1)
        .concat(error.keyword === 'additionalProperties' ? [String(error.params.additionalProperty)] : [])
        .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
        .join('');
      const field = `${prefix}[${index}].config${path}`;
      const problem = error.keyword === 'additionalProperties' ? 'is not a known field' : (error.message ?? 'is invalid');
      throw invalidArgument(`${field} ${problem}`, field);
    }
  }
}
