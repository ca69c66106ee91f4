// Describes the REST table (routes.ts) as OpenAPI 3.1 documents, one per surface. Nothing here is
// written per route: parameters come from running each route's variable mapping against a recording
// request, request bodies from the GraphQL types of the variables they fill, responses from the
// selection set the route's result path reaches (aliases are the snake_case keys the shim answers),
// and headers, paging and statuses from the route's flags. A route added to the table is described
// by the next start.
import {
  Kind,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  typeFromAST,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type NamedTypeNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { ERROR_STATUS } from '../src/lib/errors.js';
import { loadOperations } from './router.js';
import { deprecationHeaders } from './deprecation.js';
import { routes as defaultRoutes, type Route, type RouteRequest, type Surface } from './routes.js';

export type JsonSchema = Record<string, unknown>;
type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };

const camelToSnake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The version labels of the two surfaces (the workspace API's is also its path prefix, `/api/v1`). */
export const SURFACE_INFO: Record<Surface, { title: string; version: string; description: string }> = {
  v1: {
    title: 'Workspace Agent Service — workspace API',
    version: '1',
    description:
      'The workspace API under `/api/v1`: a translation of the GraphQL operations at `/graphql`. Errors answer ' +
      '`{"error": {"code", "message", "details"}}` with the status of their code. Lists answer `{"items", "next_cursor"}`; ' +
      'pass `next_cursor` back as `cursor` for the next page. Single reads answer an `ETag`; changes take it in `If-Match`. ' +
      'Compatibility and deprecation rules: docs/api/compatibility.md.',
  },
  support: {
    title: 'Workspace Agent Service — support API',
    version: '1',
    description:
      'The UI-support API under `/api` (login, web push, status, presence, device pairing). Validation failures answer 422 ' +
      'with `{"detail": [{"loc", "msg", "type"}]}`; other errors answer `{"error": {"code", "message", "details"}}`.',
  },
};

// ── JSON Schema for GraphQL types ──

const SCALARS: Record<string, JsonSchema> = {
  ID: { type: 'string' },
  String: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: {},
};

function scalarSchema(type: GraphQLNamedType): JsonSchema {
  const known = SCALARS[type.name];
  return known ? { ...known } : { description: type.description ?? `${type.name} scalar` };
}

/** The same schema accepting null as well. */
function nullable(schema: JsonSchema): JsonSchema {
  if (Object.keys(schema).length === 0 || (Object.keys(schema).length === 1 && 'description' in schema)) return schema;
  if (typeof schema.type === 'string' && !('$ref' in schema)) {
    const out: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function withDocs(schema: JsonSchema, description?: string | null, deprecationReason?: string | null): JsonSchema {
  const out = { ...schema };
  if (description) out.description = description;
  if (deprecationReason) {
    out.deprecated = true;
    out.description = `${description ? `${description}\n\n` : ''}Deprecated: ${deprecationReason}`;
  }
  return out;
}

/** Input types are shared components (they can be recursive); the top level of an `input` body is inlined snake_case. */
class InputSchemas {
  readonly components: Record<string, JsonSchema> = {};
  constructor(private readonly schema: GraphQLSchema) {}

  of(type: GraphQLInputType): JsonSchema {
    if (isNonNullType(type)) return this.named(type.ofType);
    return nullable(this.named(type));
  }

  private named(type: GraphQLInputType): JsonSchema {
    if (isListType(type)) return { type: 'array', items: this.of(type.ofType) };
    if (isEnumType(type)) return this.enumRef(type.name);
    if (isInputObjectType(type)) {
      if (!this.components[type.name]) {
        this.components[type.name] = {}; // placeholder: a recursive type refers to itself
        this.components[type.name] = this.object(type.name, (name) => name);
      }
      return { $ref: `#/components/schemas/${type.name}` };
    }
    return scalarSchema(type as GraphQLNamedType);
  }

  enumRef(name: string): JsonSchema {
    const type = this.schema.getType(name);
    if (!type || !isEnumType(type)) throw new Error(`${name} is not an enum`);
    if (!this.components[name]) {
      this.components[name] = withDocs({ type: 'string', enum: type.getValues().map((value) => value.value as string) }, type.description);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /** An input object's fields as a closed JSON object, its keys renamed by `key`. */
  object(typeName: string, key: (name: string) => string): JsonSchema {
    const type = this.schema.getType(typeName);
    if (!type || !isInputObjectType(type)) throw new Error(`${typeName} is not an input type`);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      properties[key(field.name)] = withDocs(this.of(field.type), field.description, field.deprecationReason);
      if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(key(field.name));
    }
    return withDocs(
      { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
      type.description,
    );
  }
}

// ── JSON Schema for a selection set (what a GraphQL result of that document looks like) ──

interface CollectedField {
  nodes: FieldNode[];
  parent: GraphQLNamedType;
  always: boolean;
}
interface Collected {
  /** Response key → the field nodes selected under it, and whether every object of the parent type has it. */
  fields: Map<string, CollectedField>;
}

class ResultSchemas {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly inputs: InputSchemas,
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    /** Where a view (a selection that is one fragment on its own type) is described once, under the fragment's name. */
    private readonly components: Record<string, JsonSchema>,
  ) {}

  /** Groups a selection set's fields by response key, following fragments (a type condition other than the parent's makes them conditional). */
  collect(parent: GraphQLNamedType, selectionSet: SelectionSetNode, into: Collected = { fields: new Map() }, always = true): Collected {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const entry = into.fields.get(key);
        if (entry) {
          entry.nodes.push(selection);
          entry.always ||= always;
        } else into.fields.set(key, { nodes: [selection], parent, always });
        continue;
      }
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? this.fragments.get(selection.name.value) : selection;
      if (!fragment) continue;
      const condition = fragment.typeCondition ? this.schema.getType(fragment.typeCondition.name.value) : parent;
      if (!condition) continue;
      const covers =
        condition === parent || (isObjectType(parent) && isInterfaceType(condition) && parent.getInterfaces().includes(condition));
      this.collect(covers ? parent : condition, fragment.selectionSet, into, always && covers);
    }
    return into;
  }

  fieldDefinition(parent: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | null {
    if (isObjectType(parent) || isInterfaceType(parent)) return parent.getFields()[name] ?? null;
    return null;
  }

  /** The schema of one response key: its field's type with the merged sub-selections. */
  field(key: string, entry: CollectedField): JsonSchema {
    const name = entry.nodes[0]!.name.value;
    if (name === '__typename') {
      const possible = isObjectType(entry.parent)
        ? [entry.parent.name]
        : this.schema.getPossibleTypes(entry.parent as never).map((t) => t.name);
      return { type: 'string', enum: possible };
    }
    const definition = this.fieldDefinition(entry.parent, name);
    if (!definition) throw new Error(`${entry.parent.name} has no field ${name} (response key ${key})`);
    const selections = entry.nodes.flatMap((node) => node.selectionSet?.selections ?? []);
    const merged: SelectionSetNode | undefined = selections.length ? { kind: Kind.SELECTION_SET, selections } : undefined;
    return withDocs(this.output(definition.type, merged), definition.description, definition.deprecationReason);
  }

  output(type: GraphQLOutputType, selectionSet?: SelectionSetNode): JsonSchema {
    if (isNonNullType(type)) return this.outputNamed(type.ofType, selectionSet);
    return nullable(this.outputNamed(type, selectionSet));
  }

  private outputNamed(type: GraphQLOutputType, selectionSet?: SelectionSetNode): JsonSchema {
    if (isListType(type)) return { type: 'array', items: this.output(type.ofType, selectionSet) };
    if (isEnumType(type)) return this.inputs.enumRef(type.name);
    if (isScalarType(type)) return scalarSchema(type);
    if (!selectionSet) throw new Error(`${type.name} selected without a selection set`);
    return this.object(type as GraphQLNamedType, selectionSet);
  }

  object(parent: GraphQLNamedType, selectionSet: SelectionSetNode): JsonSchema {
    const only = selectionSet.selections.length === 1 ? selectionSet.selections[0]! : null;
    const fragment = only?.kind === Kind.FRAGMENT_SPREAD ? this.fragments.get(only.name.value) : undefined;
    if (fragment && fragment.typeCondition.name.value === parent.name) {
      const name = fragment.name.value;
      this.components[name] ??= this.inline(parent, selectionSet);
      return { $ref: `#/components/schemas/${name}` };
    }
    return this.inline(parent, selectionSet);
  }

  private inline(parent: GraphQLNamedType, selectionSet: SelectionSetNode): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, entry] of this.collect(parent, selectionSet).fields) {
      properties[key] = this.field(key, entry);
      if (entry.always) required.push(key);
    }
    const unionOrInterface = isUnionType(parent) || isInterfaceType(parent);
    return withDocs(
      { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
      unionOrInterface
        ? `One of: ${this.schema
            .getPossibleTypes(parent as never)
            .map((t) => t.name)
            .join(', ')}`
        : parent.description,
    );
  }
}

// ── what a route's variable mapping reads ──

type ParameterSource = 'path' | 'header' | 'query' | 'queryList' | 'queryInt' | 'queryBool' | 'queryDate';
interface ReadParameter {
  source: ParameterSource;
  name: string;
  /** The GraphQL variable the value lands in, when the mapping passes it on unchanged. */
  variable?: string;
}

/**
 * Runs `route.variables` against a request that records what it reads and hands out markers it can
 * trace to the variables they land in. Texts and lists carry marker strings and integers marker
 * numbers; booleans first get symbols (told apart), and if the mapping cannot handle a symbol (it
 * formats or compares it), it runs again with plain `true` and booleans stay untraced. A mapping that
 * fails even so is described by the reads it made before failing.
 */
function readParameters(route: Route): ReadParameter[] {
  let read: ReadParameter[] = [];
  const attempt = (distinctBooleans: boolean): boolean => {
    read = [];
    let next = 1_000_000_007;
    const markers = new Map<unknown, ReadParameter>();
    const mark = (source: ParameterSource, name: string, marker: unknown) => {
      const parameter = { source, name };
      read.push(parameter);
      markers.set(marker, parameter);
      return marker;
    };
    const text = (source: ParameterSource) => (name: string) => mark(source, name, `\u0000${source}:${name}`) as string;
    const recorder: RouteRequest = {
      path: text('path'),
      header: text('header'),
      query: text('query'),
      queryDate: text('queryDate'),
      queryList: (name) => [mark('queryList', name, `\u0000queryList:${name}`) as string],
      queryInt: (name) => mark('queryInt', name, next++) as number,
      queryBool: (name) =>
        distinctBooleans ? (mark('queryBool', name, Symbol(name)) as unknown as boolean) : (read.push({ source: 'queryBool', name }), true),
    };
    let variables: Record<string, unknown>;
    try {
      variables = route.variables?.(recorder) ?? {};
    } catch {
      return false;
    }
    for (const [variable, value] of Object.entries(variables)) {
      const parameter = markers.get(Array.isArray(value) && value.length === 1 ? value[0] : value);
      if (parameter && !parameter.variable) parameter.variable = variable;
    }
    return true;
  };
  if (!attempt(true)) attempt(false);
  // Path parameters the mapping does not read are still part of the path.
  for (const match of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    if (!read.some((p) => p.source === 'path' && p.name === match[1])) read.push({ source: 'path', name: match[1]! });
  }
  return read;
}

// ── the documents ──

const HEADER_NAMES: Record<string, string> = {
  'if-match': 'If-Match',
  'idempotency-key': 'Idempotency-Key',
  'x-workspace-id': 'X-Workspace-ID',
  prefer: 'Prefer',
};
const headerName = (name: string) =>
  HEADER_NAMES[name.toLowerCase()] ?? name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

const HEADER_DOCS: Record<string, string> = {
  'If-Match':
    'The ETag of the representation this change was made against (from a read). A stale one answers 412; ' +
    'changes that need it answer 428 without it. `*` matches any current representation.',
  'Idempotency-Key':
    'Makes a retry of this request answer the first outcome instead of acting again; the same key with a different body answers 409 `idempotency_key_reused`.',
  Prefer:
    '`wait=N` (RFC 7240): wait up to N seconds for the run to settle before answering; `Preference-Applied` says when it was honoured.',
};

const IF_MATCH_OPTIONAL =
  'Optional here: the ETag of the representation this change was made against (from a read). A stale one answers 412; ' +
  'without it the change is made on whatever is current. `*` matches any current representation.';

const ERROR_BODY: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          enum: Object.keys(ERROR_STATUS),
          description: 'A stable machine-readable code; the status follows from it.',
        },
        message: { type: 'string', description: 'For people; its wording may change.' },
        details: {
          type: 'object',
          description: '`field` names the offending input as the caller sent it (a body key, query or path parameter, or header).',
          properties: { field: { type: 'string' } },
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

const VALIDATION_BODY: JsonSchema = {
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        required: ['loc', 'msg', 'type'],
        properties: {
          loc: {
            type: 'array',
            items: { type: 'string' },
            description: 'Where: `body`, `query`, `path` or `header`, then the field path.',
          },
          msg: { type: 'string' },
          type: { type: 'string' },
        },
      },
    },
  },
};

const errorResponse = (description: string, ref = 'Error') => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
});

const requestIdHeader = { 'X-Request-ID': { $ref: '#/components/headers/RequestId' } };

function operationIds(table: Route[]): Map<Route, string> {
  const uses = new Map<string, number>();
  for (const route of table) uses.set(route.operation, (uses.get(route.operation) ?? 0) + 1);
  return new Map(
    table.map((route) => {
      if (uses.get(route.operation) === 1) return [route, route.operation];
      // One operation behind several paths (a provider kind each): the path's resource segment tells them apart.
      const segment = route.path
        .replace(/^\/api(\/v1)?\//, '')
        .split('/')[0]!
        .replace(/[^A-Za-z0-9]+/g, '_');
      return [route, `${route.operation}_${segment}`];
    }),
  );
}

const tagOf = (route: Route) => route.path.replace(/^\/api(\/v1)?\//, '').split('/')[0]!;

function isPublic(schema: GraphQLSchema, operation: OperationDefinitionNode): boolean {
  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  return operation.selectionSet.selections.every(
    (s) => s.kind === Kind.FIELD && root?.getFields()[s.name.value]?.extensions?.publicAccess === true,
  );
}

/** Walks a route's dotted result path through the document: the schema of what the shim answers, before its reshaping. */
function resultSchema(results: ResultSchemas, schema: GraphQLSchema, operation: OperationDefinitionNode, path: string): JsonSchema {
  const root = operation.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  let parent: GraphQLNamedType = root;
  let selectionSet: SelectionSetNode = operation.selectionSet;
  let lists = 0;
  const steps = path.split('.');
  for (const [index, key] of steps.entries()) {
    const entry: CollectedField | undefined = results.collect(parent, selectionSet).fields.get(key);
    if (!entry) throw new Error(`result path ${path}: ${key} is not selected`);
    if (index === steps.length - 1) {
      let out = results.field(key, entry);
      for (let i = 0; i < lists; i++) out = { type: 'array', items: out };
      return out;
    }
    const definition: GraphQLField<unknown, unknown> = results.fieldDefinition(entry.parent, entry.nodes[0]!.name.value)!;
    let type: GraphQLOutputType = definition.type;
    for (;;) {
      if (isNonNullType(type)) type = type.ofType;
      else if (isListType(type)) {
        lists++;
        type = type.ofType;
      } else break;
    }
    parent = getNamedType(type);
    selectionSet = { kind: Kind.SELECTION_SET, selections: entry.nodes.flatMap((n: FieldNode) => n.selectionSet?.selections ?? []) };
  }
  throw new Error(`empty result path on ${operation.name?.value}`);
}

/** The object schema without some of its properties (fields the shim moves into headers or drops). */
function without(schema: JsonSchema, keys: string[], components: Record<string, JsonSchema>): JsonSchema {
  // A view described as a component: its REST form (the view without `etag`, which travels in the
  // ETag header) is a component too, named after the type (`RunView` → `Run`).
  if (typeof schema.$ref === 'string') {
    const base = schema.$ref.replace('#/components/schemas/', '');
    const stripped = keys.length === 1 && keys[0] === 'etag' ? base.replace(/View$/, '') : `${base}_without_${keys.join('_')}`;
    const name = stripped === base || (components[stripped] && !components[stripped]!['x-view-of']) ? `${base}Body` : stripped;
    components[name] ??= { ...without(resolveComponent(schema, components), keys, components), 'x-view-of': base };
    return { $ref: `#/components/schemas/${name}` };
  }
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) {
    if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: (schema.anyOf as JsonSchema[]).map((s) => without(s, keys, components)) };
    return schema;
  }
  const out: JsonSchema = { ...schema, properties: Object.fromEntries(Object.entries(properties).filter(([k]) => !keys.includes(k))) };
  if (Array.isArray(schema.required)) out.required = (schema.required as string[]).filter((k) => !keys.includes(k));
  return out;
}

const resolveComponent = (schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema =>
  typeof schema.$ref === 'string' ? (components[schema.$ref.replace('#/components/schemas/', '')] ?? {}) : schema;

const hasProperty = (schema: JsonSchema, key: string, components: Record<string, JsonSchema>): boolean => {
  const resolved = resolveComponent(schema, components);
  return (
    Boolean((resolved.properties as Record<string, unknown> | undefined)?.[key]) ||
    (Array.isArray(resolved.anyOf) && (resolved.anyOf as JsonSchema[]).some((s) => hasProperty(s, key, components)))
  );
};

const page = (items: JsonSchema, end: 'cursor' | 'null' | 'none'): JsonSchema => ({
  type: 'object',
  required: end === 'none' ? ['items'] : ['items', 'next_cursor'],
  properties: {
    items: { type: 'array', items },
    ...(end === 'cursor'
      ? { next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' } }
      : end === 'null'
        ? { next_cursor: { type: 'null', description: 'Always null: the list is one whole page.' } }
        : {}),
  },
  additionalProperties: false,
});

export interface BuildOptions {
  routes?: Route[];
  operations?: ReturnType<typeof loadOperations>;
}

/** The OpenAPI 3.1 document of one surface, from the table and the schema the shim executes against. */
export function buildOpenApi(schema: GraphQLSchema, surface: Surface, options: BuildOptions = {}): OpenApiDocument {
  const table = (options.routes ?? defaultRoutes).filter((route) => route.surface === surface);
  const operations = options.operations ?? loadOperations();
  const inputs = new InputSchemas(schema);
  const ids = operationIds(options.routes ?? defaultRoutes);
  const paths: OpenApiDocument['paths'] = {};

  for (const route of table) {
    const compiled = operations.get(route.operation);
    if (!compiled) throw new Error(`route ${route.method} ${route.path} names missing operation ${route.operation}`);
    const fragments = new Map(
      compiled.document.definitions
        .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
        .map((d) => [d.name.value, d]),
    );
    const operation = compiled.document.definitions.find(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === route.operation,
    );
    if (!operation) throw new Error(`operations/${route.operation}.graphql has no operation ${route.operation}`);
    const variableType = (name: string): GraphQLInputType | null => {
      const declared = operation.variableDefinitions?.find((v) => v.variable.name.value === name);
      return declared ? ((typeFromAST(schema, declared.type as NamedTypeNode) as GraphQLInputType | undefined) ?? null) : null;
    };
    const results = new ResultSchemas(schema, inputs, fragments, inputs.components);
    const components = inputs.components;
    const open = isPublic(schema, operation);

    // Parameters.
    const parameters: Record<string, unknown>[] = [];
    const headersRead = new Set<string>();
    for (const read of readParameters(route)) {
      if (parameters.some((p) => p.name === (read.source === 'header' ? headerName(read.name) : read.name))) continue;
      const type = read.variable ? variableType(read.variable) : null;
      const byType = type ? inputs.of(type) : null;
      let schemaOf: JsonSchema;
      if (read.source === 'queryList') {
        const element =
          type && isListType(getNullableType(type))
            ? inputs.of((getNullableType(type) as { ofType: GraphQLInputType }).ofType)
            : { type: 'string' };
        schemaOf = { type: 'array', items: element };
      } else if (read.source === 'queryInt') schemaOf = { type: 'integer' };
      else if (read.source === 'queryBool') schemaOf = { type: 'boolean' };
      else if (read.source === 'queryDate') schemaOf = { type: 'string', format: 'date-time' };
      else
        schemaOf =
          byType && !('anyOf' in byType)
            ? { ...byType, type: Array.isArray(byType.type) ? byType.type[0] : byType.type }
            : { type: 'string' };
      if (Array.isArray(schemaOf.enum)) schemaOf.enum = (schemaOf.enum as unknown[]).filter((v) => v !== null);
      if (read.source === 'header') {
        const name = headerName(read.name);
        headersRead.add(name);
        const description = name === 'If-Match' && route.ifMatchOptional ? IF_MATCH_OPTIONAL : HEADER_DOCS[name];
        parameters.push({
          name,
          in: 'header',
          required: false,
          schema: { type: 'string' },
          ...(description ? { description } : {}),
        });
      } else if (read.source === 'path') {
        parameters.push({ name: read.name, in: 'path', required: true, schema: { type: 'string' } });
      } else {
        const description =
          read.name === 'limit' && route.connection
            ? 'Page size.'
            : read.name === 'cursor'
              ? 'The `next_cursor` of the previous page.'
              : read.source === 'queryList'
                ? 'Repeat the parameter for several values.'
                : undefined;
        parameters.push({
          name: read.name,
          in: 'query',
          required: false,
          schema: schemaOf,
          ...(read.source === 'queryList' ? { style: 'form', explode: true } : {}),
          ...(description ? { description } : {}),
        });
      }
    }
    if (route.wait) {
      headersRead.add('Prefer');
      parameters.push({
        name: 'Prefer',
        in: 'header',
        required: false,
        schema: { type: 'string', examples: ['wait=10'] },
        description: HEADER_DOCS.Prefer,
      });
    }
    if (!open) parameters.push({ $ref: '#/components/parameters/WorkspaceId' });

    // Request body.
    let requestBody: Record<string, unknown> | undefined;
    if (route.upload) {
      // Streamed uploads: the raw file with its own Content-Type (the other fields in the query), or a
      // multipart form whose `file` part is the file and whose other parts are the input's fields.
      const type = variableType(route.upload.input);
      const named = type ? getNamedType(type) : null;
      const fields: Record<string, JsonSchema> = {};
      if (named && isInputObjectType(named))
        for (const name of Object.keys(named.getFields()).filter((name) => name !== 'file'))
          fields[camelToSnake(name)] = {
            type: 'string',
            description: route.upload.json.includes(camelToSnake(name)) ? 'JSON text' : undefined,
          };
      requestBody = {
        required: true,
        description: 'The file: its bytes as the whole body with their Content-Type, or a multipart/form-data body.',
        content: {
          '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['file'],
              properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' }, ...JSON.parse(JSON.stringify(fields)) },
            },
          },
        },
      };
    } else if (route.rawBody) {
      requestBody = {
        required: true,
        description: 'The file itself; its Content-Type is its media type.',
        content: { 'image/*': { schema: {} } },
      };
    } else if (route.body && route.body !== 'none') {
      let bodySchema: JsonSchema;
      if ('input' in route.body) {
        const type = variableType(route.body.input);
        const named = type ? getNamedType(type) : null;
        if (!named || !isInputObjectType(named)) throw new Error(`${route.operation}: $${route.body.input} is not an input object`);
        bodySchema = inputs.object(named.name, camelToSnake);
      } else {
        const properties: Record<string, JsonSchema> = {};
        const required: string[] = [];
        for (const [key, variable] of Object.entries(route.body.fields)) {
          const type = variableType(variable);
          if (!type) throw new Error(`${route.operation}: body field ${key} fills undeclared $${variable}`);
          properties[key] = inputs.of(type);
          if (isNonNullType(type)) required.push(key);
        }
        bodySchema = { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
      }
      requestBody = { required: Boolean(route.body.required), content: { 'application/json': { schema: bodySchema } } };
    }

    // The success response.
    const status = route.empty ? 204 : (route.status ?? 200);
    const responseHeaders: Record<string, unknown> = { ...requestIdHeader };
    let success: Record<string, unknown>;
    if (route.empty) success = { description: 'Done; no body.', headers: responseHeaders };
    else if (route.download) {
      responseHeaders.ETag = { $ref: '#/components/headers/ETag' };
      responseHeaders['Cache-Control'] = { schema: { type: 'string' } };
      responseHeaders['Accept-Ranges'] = { schema: { type: 'string', const: 'bytes' } };
      responseHeaders['Content-Length'] = { schema: { type: 'integer' } };
      success = {
        description: 'The bytes, with their media type as Content-Type.',
        headers: responseHeaders,
        content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
      };
    } else if (route.binary) {
      if (route.binary.etag) responseHeaders.ETag = { $ref: '#/components/headers/ETag' };
      responseHeaders['Cache-Control'] = { schema: { type: 'string' } };
      success = {
        description: 'The bytes, with their media type as Content-Type.',
        headers: responseHeaders,
        content: { '*/*': { schema: {} } },
      };
    } else {
      let body = resultSchema(results, schema, operation, route.result);
      if (route.wait && route.wait !== true) body = without(body, [route.wait.applied], components);
      if (route.wrapItems) body = page((body.items as JsonSchema | undefined) ?? body, route.wrapItems === 'page' ? 'null' : 'none');
      else if (route.connection) {
        const connection = resolveComponent((body.anyOf as JsonSchema[] | undefined)?.[0] ?? body, components);
        const nodes = (connection.properties as Record<string, JsonSchema> | undefined)?.nodes;
        const items = ((nodes as JsonSchema | undefined)?.items as JsonSchema | undefined) ?? {};
        body = page(without(items, ['etag'], components), 'cursor');
      } else if (hasProperty(body, 'etag', components)) {
        body = without(body, ['etag'], components);
        responseHeaders.ETag = { $ref: '#/components/headers/ETag' };
      } else if (hasProperty(body, 'items', components)) {
        body = resolveComponent(body, components);
        const properties = body.properties as Record<string, JsonSchema>;
        body = {
          ...body,
          properties: {
            ...properties,
            items: { ...properties.items, items: without((properties.items!.items as JsonSchema) ?? {}, ['etag'], components) },
          },
        };
      }
      if (route.wait) {
        responseHeaders['Preference-Applied'] = { schema: { type: 'string' }, description: '`wait=N` when the wait was honoured.' };
      }
      success = {
        description: status === 201 ? 'Created.' : 'OK.',
        headers: responseHeaders,
        content: { 'application/json': { schema: body } },
      };
    }

    // Error responses: the statuses this route can answer besides the ones every route can.
    const responses: Record<string, unknown> = { [String(status)]: success };
    if (surface === 'support') responses['422'] = errorResponse('The input is not valid.', 'ValidationError');
    else responses['400'] = errorResponse('`invalid_argument`: the input is not valid; `details.field` names it.');
    if (!open) {
      responses['401'] = errorResponse('`unauthenticated`: no valid credential.');
      responses['403'] = errorResponse('`permission_denied`: the credential lacks the permission.');
    }
    if (route.path.includes(':') || !open) responses['404'] = errorResponse('`not_found`: no such resource in the caller’s workspace.');
    if (route.method !== 'GET')
      responses['409'] = errorResponse('The resource’s state does not allow this (`conflict`, `archived`, `disabled`, …).');
    if (headersRead.has('If-Match')) {
      responses['412'] = errorResponse('`precondition_failed`: If-Match does not name the current ETag.');
      if (!route.ifMatchOptional) responses['428'] = errorResponse('`precondition_required`: this change needs If-Match.');
    }
    if (requestBody) responses['413'] = errorResponse('`payload_too_large`.');
    if (route.rawBody || route.upload) responses['415'] = errorResponse('`unsupported_media_type`.');
    if (route.download) {
      responses['206'] = {
        description: 'One range of the bytes (`Range: bytes=…`, honoured unless `If-Range` names another ETag).',
        headers: { ...requestIdHeader, 'Content-Range': { schema: { type: 'string' } }, ETag: { $ref: '#/components/headers/ETag' } },
        content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
      };
      responses['304'] = { description: '`If-None-Match` names the current ETag.', headers: { ...requestIdHeader } };
      responses['416'] = errorResponse('`range_not_satisfiable`: the range lies outside the content.');
      for (const name of ['Range', 'If-Range', 'If-None-Match'])
        parameters.push({ name, in: 'header', required: false, schema: { type: 'string' } });
    }
    // Requests with a credential are counted against the caller's rate limit (docs/api/README.md,
    // "Rate limits"): every counted answer says where the caller stands.
    const rateLimitHeaders = open
      ? {}
      : { RateLimit: { $ref: '#/components/headers/RateLimit' }, 'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' } };
    Object.assign(responseHeaders, rateLimitHeaders);
    responses['429'] = {
      ...errorResponse('`rate_limited`: retry after the `Retry-After` seconds.'),
      headers: { ...requestIdHeader, 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...rateLimitHeaders },
    };
    responses['503'] = errorResponse(
      '`unavailable`: a dependency cannot be reached right now (`details.dependency`: `database` or `redis`); retry after the `Retry-After` seconds.',
    );
    responses.default = errorResponse('Any other error, by its code.');

    if (route.deprecated) {
      const headers = deprecationHeaders(route.deprecated);
      for (const name of Object.keys(headers)) {
        responseHeaders[name] = { $ref: `#/components/headers/${name}` };
      }
    }
    const definitionDoc = operation.description?.value;
    const openApiPath = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    paths[openApiPath] ??= {};
    paths[openApiPath]![route.method.toLowerCase()] = {
      operationId: ids.get(route)!,
      tags: [tagOf(route)],
      summary: `${route.method} ${route.path}`,
      description:
        (definitionDoc ? `${definitionDoc}\n\n` : '') +
        (route.deprecated
          ? `**Deprecated** since ${route.deprecated.since}; may be removed after ${route.deprecated.sunset}` +
            `${route.deprecated.successor ? `; use ${route.deprecated.successor}` : ''}.\n\n`
          : '') +
        `Runs the GraphQL ${operation.operation} \`${route.operation}\` (${compiled.source}).`,
      ...(route.deprecated ? { deprecated: true } : {}),
      ...(open ? { security: [] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }

  const info = SURFACE_INFO[surface];
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [...new Set(table.map(tagOf))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key, or a login session token (then name the workspace in X-Workspace-ID).',
        },
      },
      parameters: {
        WorkspaceId: {
          name: 'X-Workspace-ID',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description: 'The workspace to act in, for login sessions that can act in several; API keys belong to one.',
        },
      },
      headers: {
        RequestId: {
          schema: { type: 'string' },
          description: 'The request’s id (the caller’s X-Request-ID when valid), also in the logs.',
        },
        ETag: { schema: { type: 'string' }, description: 'The representation’s version; send it as If-Match to change it.' },
        Deprecation: { schema: { type: 'string' }, description: 'RFC 9745: `@` and the Unix time the operation was deprecated.' },
        Sunset: { schema: { type: 'string' }, description: 'RFC 8594: the HTTP date after which the operation may be removed.' },
        Link: { schema: { type: 'string' }, description: 'The successor operation, `rel="successor-version"`.' },
        RateLimit: {
          schema: { type: 'string' },
          description:
            'The caller’s standing in its rate-limit window (IETF draft-ietf-httpapi-ratelimit-headers-10): `"default";r=17;t=42`, `r` the requests left, `t` the seconds until the window ends. On every answer to a counted request.',
        },
        'RateLimit-Policy': {
          schema: { type: 'string' },
          description:
            'The caller’s rate limit: `"default";q=1200;w=60` (`q` requests per `w` seconds; `"key"` for an API key’s own limit). On every answer to a counted request.',
        },
        'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before trying again.' },
      },
      schemas: { Error: ERROR_BODY, ValidationError: VALIDATION_BODY, ...sortKeys(referenced(inputs.components, paths)) },
    },
  };
}

/**
 * The components the paths use, directly or through each other (a view whose REST form is all the
 * document answers is left out), without the generator's bookkeeping member.
 */
function referenced(components: Record<string, JsonSchema>, paths: unknown): Record<string, JsonSchema> {
  const used = new Set<string>();
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
          const name = value.slice('#/components/schemas/'.length);
          if (!used.has(name) && components[name]) {
            used.add(name);
            visit(components[name]);
          }
        } else visit(value);
      }
    }
  };
  visit(paths);
  return Object.fromEntries(
    [...used].map((name) => {
      const { 'x-view-of': _base, ...schema } = components[name]!;
      return [name, schema];
    }),
  );
}

const sortKeys = <T>(record: Record<string, T>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));

/** Both documents, built once per schema (the schema is fixed for a process's life). */
const cache = new WeakMap<GraphQLSchema, Record<Surface, OpenApiDocument>>();
export function openApiDocuments(schema: GraphQLSchema): Record<Surface, OpenApiDocument> {
  let documents = cache.get(schema);
  if (!documents) {
    const operations = loadOperations();
    cache.set(
      schema,
      (documents = { v1: buildOpenApi(schema, 'v1', { operations }), support: buildOpenApi(schema, 'support', { operations }) }),
    );
  }
  return documents;
}

export type { OpenApiDocument };
