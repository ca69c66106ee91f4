// The check of a tool call's arguments against its tool's JSON Schema, before anything runs: a call
// whose arguments break the schema is refused, and the model is told where and why in a short line.
// Schemas come from MCP servers, plugins, client tools and skills, so ajv is lenient about keywords it
// does not know (`strict: false`); a schema it cannot compile at all leaves that tool's calls
// unchecked (with one warning) rather than breaking the run.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ValidatorCache } from '../../lib/json-schema-drafts.js';
import type { Logger } from '../../lib/logger.js';

/** At most this many of ajv's errors are named, and the line is cut at this length: the model reads it. */
const ERRORS_NAMED = 3;
const PROBLEM_MAX_CHARS = 300;

// Shared by every run's toolset: the same tools' schemas come back run after run (bounded, see
// ValidatorCache). A schema's `$schema` picks the draft (2020-12 without one, or for a draft the service
// does not read, such as draft-04: if ajv cannot compile it, the tool's calls go unchecked).
const validators = new ValidatorCache({ strict: false, allErrors: false, logger: false });

/** One ajv error as the model reads it: `/url must be string`, `must have required property 'url'`. */
function describeAjvError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  let message = error.message ?? `fails ${error.keyword}`;
  if (error.keyword === 'additionalProperties') message = `must not have the property '${String(params.additionalProperty)}'`;
  else if (error.keyword === 'enum' && Array.isArray(params.allowedValues))
    message += `: ${params.allowedValues.map((value) => JSON.stringify(value)).join(', ')}`;
  return error.instancePath ? `${error.instancePath} ${message}` : message;
}

/** The refusal for a call whose arguments fail: the first errors, bounded. */
export function describeArgumentErrors(errors: readonly ErrorObject[]): string {
  const line = `invalid arguments: ${errors.slice(0, ERRORS_NAMED).map(describeAjvError).join('; ')}`;
  return line.length > PROBLEM_MAX_CHARS ? `${line.slice(0, PROBLEM_MAX_CHARS - 1)}…` : line;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `value` without the null members its object schema does not require, at every level the schema
 * describes with `properties`; the same value when there are none.
 */
export function withoutOptionalNulls(schema: unknown, value: unknown): unknown {
  if (!isPlainObject(schema) || !isPlainObject(value) || !isPlainObject(schema.properties)) return value;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
  const properties = schema.properties;
  let changed = false;
  const result: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    if (member === null && !required.has(name)) {
      changed = true;
      continue;
    }
    const inner = withoutOptionalNulls(properties[name], member);
    if (inner !== member) changed = true;
    result[name] = inner;
  }
  return changed ? result : value;
}

/**
 * Checks arguments against tool schemas. One per toolset: it remembers which of its tools' schemas
 * could not be compiled (warned once per attempt); the compiled validators are shared (see above).
 */
export class ArgumentChecker {
  /** Each schema's validator; null when ajv could not compile it (its calls go unchecked). */
  private readonly compiled = new Map<object, ValidateFunction | null>();

  constructor(private readonly logger?: Pick<Logger, 'warn'>) {}

  /**
   * Checks `input` against `schema`: the arguments to use, or why they break it (a line for the model).
   * Many models send `null` for an optional member they mean to leave out; arguments that fail only
   * because of such nulls are taken without them (the schema still decides: a member that may be
   * null, or is required, keeps its null).
   */
  check(toolName: string, schema: unknown, input: unknown): { input: unknown; problem?: undefined } | { problem: string } {
    if (!schema || typeof schema !== 'object') return { input };
    const validate = this.validatorOf(toolName, schema);
    if (!validate || validate(input)) return { input };
    const problem = describeArgumentErrors(validate.errors ?? []);
    const withoutNulls = withoutOptionalNulls(schema, input);
    if (withoutNulls !== input && validate(withoutNulls)) return { input: withoutNulls };
    return { problem };
  }

  private validatorOf(toolName: string, schema: object): ValidateFunction | null {
    const known = this.compiled.get(schema);
    if (known !== undefined) return known;
    let validate: ValidateFunction | null = null;
    try {
      validate = validators.validatorOf(schema);
    } catch (error) {
      this.logger?.warn(
        { err: error, tool: toolName },
        "a tool's input schema could not be compiled: its calls' arguments are not checked against it",
      );
    }
    this.compiled.set(schema, validate);
    return validate;
  }
}
