// Who may ask what on POST/GET /graphql, decided before any GraphQL work is done for the caller:
// a request with a valid credential goes on; one without (missing, unknown, expired, or naming a
// workspace it cannot act in) may only select the root fields that are deliberately open (marked
// PUBLIC_FIELD where they are defined: login, logout, the envd pairing request and poll) and, with
// GRAPHQL_INTROSPECTION=public, introspection; one root field per operation. Anything else answers the credential's own error
// (401 `unauthenticated`, 403 `forbidden`, 400 for a missing X-Workspace-ID) without being validated
// or executed. Anonymous callers also never see "Did you mean …" suggestions, which would map the
// schema for them.
//
// graphql-ws never reaches this hook: its connection_init is authenticated before any operation
// (ws.ts). The REST shim never reaches it either: it executes its trusted documents directly, and
// every resolver asks for the caller it needs (`ctx.actor()`), so REST's open routes stay open.
import { GraphQLError, Kind, parse, type DocumentNode, type GraphQLObjectType, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { invalidArgument, isAppError } from '../lib/errors.js';
import type { Actor, Deps } from '../services/deps.js';
import { authenticate } from '../features/access/auth.js';

/** Field extension marking a root field that needs no credential (or checks its own). */
export const PUBLIC_FIELD = { publicAccess: true } as const;

/** What the gate learned about an HTTP request's caller, kept on Yoga's initial context. */
export interface CallerGate {
  /** The authenticated caller, or null for an anonymous request that selects only open fields. */
  actor: Actor | null;
}

export const GATE_KEY = 'wsaCallerGate';

export function gateOf(context: unknown): CallerGate | undefined {
  return (context as Record<string, CallerGate | undefined> | null | undefined)?.[GATE_KEY];
}

/** True for requests the gate let through without a credential (HTTP only). */
export function isAnonymous(context: unknown): boolean {
  const gate = gateOf(context);
  return gate !== undefined && gate.actor === null;
}

export const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

/**
 * The distinct response keys each operation selects at its root (fragments and inline fragments
 * followed, `__typename` left out): what will run, one entry per executed root field.
 */
export function rootResponseKeys(
  document: DocumentNode,
): { operation: 'query' | 'mutation' | 'subscription'; keys: Map<string, string> }[] {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  }
  const result: { operation: 'query' | 'mutation' | 'subscription'; keys: Map<string, string> }[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const keys = new Map<string, string>(); // response key → field name
    const visited = new Set<string>();
    const walk = (selectionSet: SelectionSetNode) => {
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          if (selection.name.value !== '__typename') keys.set(selection.alias?.value ?? selection.name.value, selection.name.value);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          walk(selection.selectionSet);
        } else if (!visited.has(selection.name.value)) {
          visited.add(selection.name.value);
          const fragment = fragments.get(selection.name.value);
          if (fragment) walk(fragment);
        }
      }
    };
    walk(definition.selectionSet);
    result.push({ operation: definition.operation, keys });
  }
  return result;
}

function openRootFields(schema: GraphQLSchema, introspection: 'authenticated' | 'public' | 'off') {
  const open = (type: GraphQLObjectType | null | undefined) =>
    new Set(
      Object.values(type?.getFields() ?? {})
        .filter((field) => field.extensions?.publicAccess === true)
        .map((field) => field.name),
    );
  const query = open(schema.getQueryType());
  if (introspection === 'public') for (const name of INTROSPECTION_FIELDS) query.add(name);
  return { query, mutation: open(schema.getMutationType()), subscription: open(schema.getSubscriptionType()) };
}

/**
 * Whether an anonymous request may go on: every operation of its document selects only open root
 * fields, and one at most (one sign-in attempt, one pairing request per request: each login hashes a
 * password, and nothing anonymous needs more). A document with a syntax error goes on too: Yoga
 * refuses it with the parse error before anything runs, and a parse error reveals nothing of the
 * schema. One over the token limit does not.
 */
function anonymousVerdict(
  query: string | undefined,
  open: ReturnType<typeof openRootFields>,
  maxTokens: number,
): 'open' | 'closed' | 'too_many' {
  if (typeof query !== 'string') return 'closed';
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens, noLocation: true });
  } catch (error) {
    // Over the token limit: refused without reading further. A syntax error: Yoga reports it.
    return /Document contains more th/.test((error as Error).message) ? 'closed' : 'open';
  }
  const operations = rootResponseKeys(document);
  if (!operations.every(({ operation, keys }) => [...keys.values()].every((name) => open[operation].has(name)))) return 'closed';
  return operations.every(({ keys }) => keys.size <= 1) ? 'open' : 'too_many';
}

/**
 * The same errors without "Did you mean …?". New error objects, never the old ones changed: Yoga
 * caches validation results per document and shares them between callers (which is why GraphQL
 * Armor's block-field-suggestions plugin, which rewrites messages in place, is not used here).
 */
export function withoutSuggestions<E extends Error>(errors: readonly E[]): (E | GraphQLError)[] {
  return errors.map((error) => {
    if (!(error instanceof GraphQLError)) return error;
    const message = error.message.replace(/\s*Did you mean [^?]*\?/g, '');
    if (message === error.message) return error;
    return new GraphQLError(message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      originalError: error.originalError,
      extensions: error.extensions,
    });
  });
}

export function useCallerGate(deps: Deps, schema: GraphQLSchema): Plugin {
  const open = openRootFields(schema, deps.config.graphqlIntrospection);
  return {
    async onParams({ request, params, context, setResult }) {
      const headers = request.headers;
      try {
        const actor = await authenticate(deps, headers.get('authorization'), headers.get('x-workspace-id'));
        (context as Record<string, CallerGate>)[GATE_KEY] = { actor };
        return;
      } catch (error) {
        if (!isAppError(error)) throw error;
        const verdict = anonymousVerdict(params.query, open, deps.config.graphqlLimits.maxTokens);
        if (verdict === 'open') {
          (context as Record<string, CallerGate>)[GATE_KEY] = { actor: null };
          return;
        }
        setResult({
          errors: [
            verdict === 'too_many' ? invalidArgument('without a credential an operation may select one root field', 'query') : error,
          ],
        });
      }
    },
    // Suggestions are only taken out for anonymous callers: they help whoever holds a credential.
    onValidate({ context }) {
      if (!isAnonymous(context)) return undefined;
      return ({ valid, result, setResult }) => {
        if (!valid) setResult(withoutSuggestions(result));
      };
    },
    onExecute({ args }) {
      // Variable values that do not fit their types are reported during execution, with suggestions too.
      if (!isAnonymous(args.contextValue)) return undefined;
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result || !result.errors?.length) return;
          setResult({ ...result, errors: withoutSuggestions(result.errors) });
        },
      };
    },
  };
}
