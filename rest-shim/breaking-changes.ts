// Finds the breaking changes between two published contracts: a baseline (the contracts as last
// released, committed under contracts/) and the current ones. The rules are docs/api/compatibility.md's:
// GraphQL by graphql-js's own `findBreakingChanges`; OpenAPI by comparing every baseline operation with
// its current description — a request the baseline accepted must still be accepted, and an answer the
// current service gives must still be one the baseline promised (new members and new enum values in
// answers excepted: clients must ignore members and tolerate values they do not know).
import { BreakingChangeType, buildSchema, findBreakingChanges, isInputObjectType, type BreakingChange } from 'graphql';

type Schema = Record<string, any>;
type Document = { paths?: Record<string, Record<string, Schema>>; components?: Record<string, Record<string, Schema>> };

/**
 * The breaking changes between two GraphQL SDL texts, as `TYPE: description` lines. `documentScalars`
 * names the current schema's document scalars (src/graphql/json-variables.ts): an input field or
 * argument whose type went from JSON to one of them, with the same nullability and list wrappers, is
 * not one — the service accepts a variable declared JSON there (its own validation rule), and the
 * value on the wire is the same JSON. Nothing else is let through: not an output field, not another
 * scalar, not a change of nullability.
 */
export function graphqlBreakingChanges(
  baselineSdl: string,
  currentSdl: string,
  documentScalars: ReadonlySet<string> = new Set(),
): string[] {
  const current = buildSchema(currentSdl);
  const jsonToDocument = (change: BreakingChange) => {
    const inputField =
      change.type === BreakingChangeType.FIELD_CHANGED_KIND && isInputObjectType(current.getType(change.description.split('.')[0]!));
    if (!inputField && change.type !== BreakingChangeType.ARG_CHANGED_KIND) return false;
    const types = / changed type from (\S+) to (\S+)\.$/.exec(change.description);
    if (!types) return false;
    const [, before, after] = types as unknown as [string, string, string];
    const scalar = /[A-Za-z_][A-Za-z0-9_]*/.exec(after)?.[0];
    return scalar !== undefined && documentScalars.has(scalar) && before.replace(/\bJSON\b/, scalar) === after;
  };
  return findBreakingChanges(buildSchema(baselineSdl), current)
    .filter((change) => !jsonToDocument(change))
    .map((change) => `${change.type}: ${change.description}`);
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

function resolver(document: Document) {
  return function resolve(schema: Schema | undefined): Schema {
    let out = schema ?? {};
    for (let hops = 0; typeof out.$ref === 'string' && hops < 32; hops++) {
      const path = (out.$ref as string).replace(/^#\//, '').split('/');
      out = path.reduce<any>((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document) ?? {};
    }
    return out;
  };
}

/** A schema in the shapes the generator emits, flattened: its types (null included), enum, object and array parts. */
interface Flat {
  any: boolean;
  types: Set<string>;
  enum?: unknown[];
  properties: Record<string, Schema>;
  required: Set<string>;
  closed: boolean;
  items?: Schema;
}

function flatten(schema: Schema, resolve: (s: Schema) => Schema): Flat {
  const s = resolve(schema);
  if (Array.isArray(s.anyOf)) {
    // `anyOf: [X, {type: 'null'}]`: X, nullable.
    const parts = (s.anyOf as Schema[]).map((part) => flatten(part, resolve));
    const base = parts.find((part) => !(part.types.size === 1 && part.types.has('null'))) ?? parts[0]!;
    for (const part of parts) for (const type of part.types) base.types.add(type);
    if (base.enum && !base.enum.includes(null)) base.enum = [...base.enum, null];
    return base;
  }
  const types = new Set<string>(Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : []);
  return {
    any: types.size === 0 && !s.enum && !s.properties,
    types,
    enum: Array.isArray(s.enum) ? s.enum : undefined,
    properties: (s.properties as Record<string, Schema>) ?? {},
    required: new Set<string>((s.required as string[]) ?? []),
    closed: s.additionalProperties === false,
    items: s.items as Schema | undefined,
  };
}

/** `integer` values are `number` values. */
const includesType = (types: Set<string>, type: string) => types.has(type) || (type === 'integer' && types.has('number'));

/**
 * Checks that what flows in `direction` is still compatible: `request` — every value the baseline
 * accepted is still accepted; `response` — every value now sent is one the baseline described.
 */
function compare(
  baseline: Schema,
  current: Schema,
  direction: 'request' | 'response',
  at: string,
  resolveBase: (s: Schema) => Schema,
  resolveCurrent: (s: Schema) => Schema,
  problems: string[],
  seen: Set<string>,
): void {
  const key = `${direction}|${JSON.stringify(baseline)}|${JSON.stringify(current)}|${at.split('.').length > 12 ? 'deep' : at}`;
  if (seen.has(key)) return;
  seen.add(key);
  const base = flatten(baseline, resolveBase);
  const now = flatten(current, resolveCurrent);
  if (direction === 'request' ? now.any : base.any) return;
  if (direction === 'request' ? base.any : now.any) {
    problems.push(`${at}: ${direction === 'request' ? 'accepts less than any value now' : 'may now be any value'}`);
    return;
  }
  const [wide, narrow] = direction === 'request' ? [now, base] : [base, now];
  for (const type of narrow.types) {
    if (!includesType(wide.types, type))
      problems.push(`${at}: type ${type} ${direction === 'request' ? 'is no longer accepted' : 'is now sent but was not described'}`);
  }
  if (base.enum) {
    const removed = base.enum.filter((value) => !(now.enum ?? base.enum)!.includes(value));
    if (removed.length) problems.push(`${at}: enum value(s) removed: ${removed.map((v) => JSON.stringify(v)).join(', ')}`);
  } else if (now.enum && direction === 'request') problems.push(`${at}: now restricted to the values ${JSON.stringify(now.enum)}`);
  if (direction === 'request') {
    for (const name of now.required) if (!base.required.has(name)) problems.push(`${at}.${name}: newly required`);
    for (const name of Object.keys(base.properties)) {
      if (!(name in now.properties)) {
        if (now.closed) problems.push(`${at}.${name}: no longer accepted`);
      } else
        compare(base.properties[name]!, now.properties[name]!, direction, `${at}.${name}`, resolveBase, resolveCurrent, problems, seen);
    }
  } else {
    for (const name of Object.keys(base.properties)) {
      if (!(name in now.properties)) problems.push(`${at}.${name}: removed`);
      else {
        if (base.required.has(name) && !now.required.has(name)) problems.push(`${at}.${name}: no longer always present`);
        compare(base.properties[name]!, now.properties[name]!, direction, `${at}.${name}`, resolveBase, resolveCurrent, problems, seen);
      }
    }
  }
  if (base.items && now.items) compare(base.items, now.items, direction, `${at}[]`, resolveBase, resolveCurrent, problems, seen);
}

/** The breaking changes between two OpenAPI documents of one surface, one line each. */
export function openApiBreakingChanges(baseline: Document, current: Document): string[] {
  const problems: string[] = [];
  const resolveBase = resolver(baseline);
  const resolveCurrent = resolver(current);
  const seen = new Set<string>();
  for (const [path, baseMethods] of Object.entries(baseline.paths ?? {})) {
    for (const method of METHODS) {
      const base = baseMethods[method];
      if (!base) continue;
      const at = `${method.toUpperCase()} ${path}`;
      const now = current.paths?.[path]?.[method];
      if (!now) {
        problems.push(`${at}: operation removed`);
        continue;
      }
      if (base.operationId !== now.operationId) problems.push(`${at}: operationId ${base.operationId} renamed to ${now.operationId}`);

      // Parameters, by where and name.
      const parameters = (operation: Schema, resolve: (s: Schema) => Schema) =>
        new Map(
          ((operation.parameters as Schema[]) ?? []).map((p) => resolve(p)).map((p) => [`${p.in} ${String(p.name).toLowerCase()}`, p]),
        );
      const baseParameters = parameters(base, resolveBase);
      const nowParameters = parameters(now, resolveCurrent);
      for (const [name, parameter] of baseParameters) {
        const next = nowParameters.get(name);
        if (!next) problems.push(`${at}: parameter ${name} removed`);
        else {
          if (next.required && !parameter.required) problems.push(`${at}: parameter ${name} newly required`);
          compare(
            parameter.schema ?? {},
            next.schema ?? {},
            'request',
            `${at} parameter ${name}`,
            resolveBase,
            resolveCurrent,
            problems,
            seen,
          );
        }
      }
      for (const [name, parameter] of nowParameters) {
        if (!baseParameters.has(name) && parameter.required) problems.push(`${at}: new required parameter ${name}`);
      }

      // The request body.
      const baseBody = resolveBase(base.requestBody);
      const nowBody = resolveCurrent(now.requestBody);
      if (nowBody.required && !baseBody.required) problems.push(`${at}: request body newly required`);
      for (const [mediaType, content] of Object.entries<Schema>(baseBody.content ?? {})) {
        const next = nowBody.content?.[mediaType];
        if (!next) problems.push(`${at}: request body ${mediaType} no longer accepted`);
        else compare(content.schema ?? {}, next.schema ?? {}, 'request', `${at} body`, resolveBase, resolveCurrent, problems, seen);
      }
      if (!baseBody.content && nowBody.content && nowBody.required) problems.push(`${at}: now needs a request body`);

      // Successful answers: the same statuses, headers and bodies the baseline described.
      const successes = (operation: Schema) => Object.keys(operation.responses ?? {}).filter((status) => /^2\d\d$/.test(status));
      const nowSuccesses = successes(now);
      for (const status of successes(base)) {
        if (!nowSuccesses.includes(status)) {
          problems.push(`${at}: no longer answers ${status} (now ${nowSuccesses.join(', ')})`);
          continue;
        }
        const baseResponse = resolveBase(base.responses[status]);
        const nowResponse = resolveCurrent(now.responses[status]);
        for (const header of Object.keys(baseResponse.headers ?? {})) {
          if (!nowResponse.headers?.[header]) problems.push(`${at} ${status}: header ${header} removed`);
        }
        for (const [mediaType, content] of Object.entries<Schema>(baseResponse.content ?? {})) {
          const next = nowResponse.content?.[mediaType];
          if (!next) problems.push(`${at} ${status}: ${mediaType} body removed`);
          else compare(content.schema ?? {}, next.schema ?? {}, 'response', `${at} ${status}`, resolveBase, resolveCurrent, problems, seen);
        }
      }
    }
  }
  return problems;
}
