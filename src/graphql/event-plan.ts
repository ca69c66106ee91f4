// A shared subscription event executed by a plan compiled once per (schema, document, operation
// name, variables): graphql-js `execute` collects fields, coerces arguments and builds resolve infos
// again for every event, which was most of the cost of streaming one token to its subscribers. The
// plan does that work once, at subscribe time, and then only reads the event, calls the resolvers
// the types define and serializes the leaves — building the very ExecutionResult `execute` would.
// Whatever it cannot do the same way (an error anywhere, an unusual resolver or value) makes it give
// up on that event, and the caller runs `execute` instead: the answer is the same either way.
import {
  defaultTypeResolver,
  getArgumentValues,
  getDirectiveValues,
  getOperationAST,
  getVariableValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isLeafType,
  isListType,
  isNonNullType,
  Kind,
  typeFromAST,
  TypeNameMetaFieldDef,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLAbstractType,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** An event's execution: its result, or a promise of it (some resolver answered with a promise). */
export type PlannedResult = ExecutionResult | Promise<ExecutionResult>;

/** A compiled operation: runs an event, or returns GIVE_UP (sync) / rejects (async) for `execute`. */
export interface EventPlan {
  run(rootValue: unknown, contextValue: unknown): PlannedResult | typeof GIVE_UP;
}

/** The plan could not build this event's result the way `execute` would: run `execute`. */
export const GIVE_UP: unique symbol = Symbol('event plan gives up');

/** Thrown inside a run to abandon it; never leaves this module except as a rejection. */
class GiveUp extends Error {}
const giveUp = (): never => {
  throw new GiveUp();
};

type Path = GraphQLResolveInfo['path'] | undefined;
interface RunState {
  rootValue: unknown;
  contextValue: unknown;
}
type Complete = (value: unknown, state: RunState, path: Path, info: () => GraphQLResolveInfo) => unknown;

interface FieldPlan {
  responseName: string;
  fieldName: string;
  /** The resolver the field defines; absent: graphql-js' default (a property read). */
  resolve: GraphQLFieldResolver<unknown, unknown> | undefined;
  /** `__typename`: the parent type's name, as graphql-js answers it. */
  typename: string | undefined;
  args: Record<string, unknown>;
  fieldNodes: FieldNode[];
  returnType: GraphQLOutputType;
  parentType: GraphQLObjectType;
  /** Whether the field's completion reads its path (objects and lists, for their fields' infos). */
  nestsPath: boolean;
  complete: Complete;
}

interface Compilation {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  operation: OperationDefinitionNode;
  variableValues: Record<string, unknown>;
}

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/**
 * The plan of a subscription operation's event execution, or null when the operation is not one the
 * plan covers (its variables do not coerce, its arguments fail): `execute` then runs every event.
 */
export function compileEventPlan(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariableValues: Record<string, unknown> | null | undefined,
): EventPlan | null {
  const operation = getOperationAST(document, operationName);
  const rootType = schema.getSubscriptionType();
  if (operation?.operation !== 'subscription' || !rootType) return null;
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null);
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariableValues ?? {}, { maxErrors: 50 });
  if (coerced.errors) return null;
  const compilation: Compilation = { schema, fragments, operation, variableValues: coerced.coerced };
  let rootFields: FieldPlan[];
  try {
    rootFields = planFields(compilation, rootType, collect(compilation, rootType, [operation.selectionSet]));
  } catch {
    return null;
  }
  return {
    run(rootValue, contextValue) {
      const state: RunState = { rootValue, contextValue };
      try {
        const data = runFields(compilation, rootFields, rootValue, state, undefined);
        return isPromise(data)
          ? data.then((resolved) => ({ data: resolved as ExecutionResult['data'] }))
          : { data: data as ExecutionResult['data'] };
      } catch {
        return GIVE_UP;
      }
    },
  };
}

/** graphql-js' field collection (collectFields / collectSubfields), its order and its rules. */
function collect(compilation: Compilation, type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visitedFragments = new Set<string>();
  const visit = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (!included(compilation, selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const name = selection.alias?.value ?? selection.name.value;
        const list = fields.get(name);
        if (list) list.push(selection);
        else fields.set(name, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (conditionMatches(compilation, selection.typeCondition, type)) visit(selection.selectionSet);
      } else {
        const name = selection.name.value;
        if (visitedFragments.has(name)) continue;
        visitedFragments.add(name);
        const fragment = compilation.fragments[name];
        if (fragment && conditionMatches(compilation, fragment.typeCondition, type)) visit(fragment.selectionSet);
      }
    }
  };
  for (const selectionSet of selectionSets) visit(selectionSet);
  return fields;
}

function included(compilation: Compilation, node: Parameters<typeof getDirectiveValues>[1]): boolean {
  if (getDirectiveValues(GraphQLSkipDirective, node, compilation.variableValues)?.if === true) return false;
  if (getDirectiveValues(GraphQLIncludeDirective, node, compilation.variableValues)?.if === false) return false;
  return true;
}

function conditionMatches(
  compilation: Compilation,
  condition: Parameters<typeof typeFromAST>[1] | undefined,
  type: GraphQLObjectType,
): boolean {
  if (!condition) return true;
  const conditionType = typeFromAST(compilation.schema, condition);
  if (conditionType === type) return true;
  return isAbstractType(conditionType) ? compilation.schema.isSubType(conditionType, type) : false;
}

function planFields(compilation: Compilation, parentType: GraphQLObjectType, fields: Map<string, FieldNode[]>): FieldPlan[] {
  const plans: FieldPlan[] = [];
  for (const [responseName, fieldNodes] of fields) {
    const fieldName = fieldNodes[0]!.name.value;
    const isTypename = fieldName === TypeNameMetaFieldDef.name;
    const definition = isTypename ? TypeNameMetaFieldDef : parentType.getFields()[fieldName];
    // graphql-js skips a field the type does not have (validation refuses such documents anyway).
    if (!definition) continue;
    let named: GraphQLOutputType = definition.type;
    while (isNonNullType(named) || isListType(named)) named = named.ofType;
    plans.push({
      responseName,
      fieldName,
      resolve: isTypename ? undefined : definition.resolve,
      typename: isTypename ? parentType.name : undefined,
      args: getArgumentValues(definition, fieldNodes[0]!, compilation.variableValues),
      fieldNodes,
      returnType: definition.type,
      parentType,
      nestsPath: !isLeafType(named) || isListType(isNonNullType(definition.type) ? definition.type.ofType : definition.type),
      complete: completer(compilation, definition.type, fieldNodes),
    });
  }
  return plans;
}

/** graphql-js' completeValue for one type, with its subselections collected ahead. */
function completer(compilation: Compilation, type: GraphQLOutputType, fieldNodes: FieldNode[]): Complete {
  if (isNonNullType(type)) {
    const inner = completer(compilation, type.ofType, fieldNodes);
    const present = (completed: unknown) => (completed === null ? giveUp() : completed);
    return (value, state, path, info) => {
      const completed = inner(value, state, path, info);
      return isPromise(completed) ? completed.then(present) : present(completed);
    };
  }
  if (isListType(type)) {
    const item = completer(compilation, type.ofType, fieldNodes);
    return (value, state, path, info) => {
      if (value instanceof Error) giveUp();
      if (value == null) return null;
      if (typeof value !== 'object' || typeof (value as Iterable<unknown>)[Symbol.iterator] !== 'function') giveUp();
      let pending = false;
      const items: unknown[] = [];
      let index = 0;
      for (const element of value as Iterable<unknown>) {
        const completed = item(element, state, { prev: path, key: index++, typename: undefined }, info);
        if (isPromise(completed)) pending = true;
        items.push(completed);
      }
      return pending ? Promise.all(items) : items;
    };
  }
  if (isLeafType(type)) {
    return (value) => {
      if (value instanceof Error) giveUp();
      if (value == null) return null;
      const serialized = type.serialize(value);
      return serialized == null ? giveUp() : serialized;
    };
  }
  if (isAbstractType(type)) return abstractCompleter(compilation, type, fieldNodes);
  const object = objectCompleter(compilation, type, fieldNodes);
  return (value, state, path, info) => {
    if (value instanceof Error) giveUp();
    if (value == null) return null;
    return object(value, state, path, info);
  };
}

function objectCompleter(compilation: Compilation, type: GraphQLObjectType, fieldNodes: FieldNode[]): Complete {
  const fields = planFields(
    compilation,
    type,
    collect(
      compilation,
      type,
      fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : [])),
    ),
  );
  return (value, state, path, info) => {
    if (type.isTypeOf) {
      const matches = type.isTypeOf(value, state.contextValue, info());
      if (isPromise(matches) || !matches) giveUp();
    }
    return runFields(compilation, fields, value, state, path);
  };
}

function abstractCompleter(compilation: Compilation, type: GraphQLAbstractType, fieldNodes: FieldNode[]): Complete {
  const byType = new Map<string, Complete>();
  for (const possible of compilation.schema.getPossibleTypes(type)) {
    byType.set(possible.name, objectCompleter(compilation, possible, fieldNodes));
  }
  const resolveType = type.resolveType ?? defaultTypeResolver;
  const completeAs = (typeName: unknown, value: unknown, state: RunState, path: Path, info: () => GraphQLResolveInfo) => {
    const object = typeof typeName === 'string' ? byType.get(typeName) : undefined;
    return object ? object(value, state, path, info) : giveUp();
  };
  return (value, state, path, info) => {
    if (value instanceof Error) giveUp();
    if (value == null) return null;
    const typeName = resolveType(value, state.contextValue, info(), type);
    return isPromise(typeName)
      ? typeName.then((name) => completeAs(name, value, state, path, info))
      : completeAs(typeName, value, state, path, info);
  };
}

/** graphql-js' executeFields: the object's fields in order, a promise when some field is one. */
function runFields(compilation: Compilation, fields: FieldPlan[], source: unknown, state: RunState, parentPath: Path): unknown {
  const result: Record<string, unknown> = Object.create(null);
  let pending = false;
  for (const field of fields) {
    const value = runField(compilation, field, source, state, parentPath);
    if (value === undefined) continue;
    if (isPromise(value)) pending = true;
    result[field.responseName] = value;
  }
  if (!pending) return result;
  // As graphql-js' promiseForObject: the same keys, in the same order, once every value is there.
  const keys = Object.keys(result);
  return Promise.all(Object.values(result)).then((values) => {
    const resolved: Record<string, unknown> = Object.create(null);
    keys.forEach((key, index) => (resolved[key] = values[index]));
    return resolved;
  });
}

function runField(compilation: Compilation, field: FieldPlan, source: unknown, state: RunState, parentPath: Path): unknown {
  if (field.typename !== undefined) return field.complete(field.typename, state, undefined, noInfo);
  if (field.resolve === undefined && !field.nestsPath) {
    // The common case (a property of the event, a leaf): no path, no resolve info to build.
    if ((typeof source !== 'object' || source === null) && typeof source !== 'function')
      return field.complete(undefined, state, undefined, noInfo);
    const value = (source as Record<string, unknown>)[field.fieldName];
    if (typeof value === 'function' || isPromise(value)) giveUp();
    return field.complete(value, state, undefined, noInfo);
  }
  const needsPath = field.resolve !== undefined || field.nestsPath;
  const path: Path = needsPath ? { prev: parentPath, key: field.responseName, typename: field.parentType.name } : undefined;
  let built: GraphQLResolveInfo | undefined;
  const info = () => (built ??= resolveInfo(compilation, field, state, path!));
  let value: unknown;
  if (field.resolve) {
    value = field.resolve(source, field.args, state.contextValue, info());
  } else {
    // graphql-js' defaultFieldResolver, except a method (called with args, context, info): give up.
    if ((typeof source !== 'object' || source === null) && typeof source !== 'function')
      return field.complete(undefined, state, path, info);
    value = (source as Record<string, unknown>)[field.fieldName];
    if (typeof value === 'function') giveUp();
  }
  return isPromise(value)
    ? value.then((resolved) => field.complete(resolved, state, path, info))
    : field.complete(value, state, path, info);
}

function resolveInfo(compilation: Compilation, field: FieldPlan, state: RunState, path: NonNullable<Path>): GraphQLResolveInfo {
  return {
    fieldName: field.fieldName,
    fieldNodes: field.fieldNodes,
    returnType: field.returnType,
    parentType: field.parentType,
    path,
    schema: compilation.schema,
    fragments: compilation.fragments,
    rootValue: state.rootValue,
    operation: compilation.operation,
    variableValues: compilation.variableValues,
  };
}

const noInfo = (): GraphQLResolveInfo => giveUp();
