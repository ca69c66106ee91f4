// Introspection answered from memory. A full introspection of this schema is tens of milliseconds of
// synchronous work: a few dozen callers repeating it would hold the event loop and starve every
// other request (health checks included). The schema does not change while the process runs, and
// an introspection answer reads nothing but the schema — never the caller — so an operation that
// selects only `__schema` / `__type` (and `__typename`) is executed once per document text,
// operation name and variables, and later requests get that result.
//
// The caller gate (who may introspect) and the rate limit (counted before the request reaches
// GraphQL) run for every request as before. A repeated HTTP request of the same text is answered
// right after the gate: its parsing, limits and validation passed for that text the first time.
//
// Serializing the answer (a full introspection is a couple of hundred kilobytes of JSON) is most of
// what such a request still costs, so the JSON text of each kept answer is made once and handed to
// Yoga's own result processor as the answer's serializer: the media type, status and headers are
// chosen exactly as for an answer serialized afresh, and the body is the same text. Only the HTTP
// answer uses it; graphql-ws and the REST shim read the kept result object as before.
import { print, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gateOf, INTROSPECTION_FIELDS, rootResponseKeys } from './access.js';

/** How many distinct introspection requests are kept (clients send a handful of documents). */
const MAX_ENTRIES = 64;

/** The operation `operationName` picks (or the only one), if it is a query of introspection fields only. */
function isIntrospectionOnly(document: DocumentNode, operationName: string | null | undefined): boolean {
  const operations = document.definitions.filter((definition) => definition.kind === 'OperationDefinition');
  const index = operationName ? operations.findIndex((operation) => operation.name?.value === operationName) : 0;
  if (index < 0 || (!operationName && operations.length !== 1)) return false;
  const { operation, keys } = rootResponseKeys(document)[index]!;
  return operation === 'query' && keys.size > 0 && [...keys.values()].every((field) => INTROSPECTION_FIELDS.has(field));
}

/** Where a request's text key is kept between its params and its execution. */
const TEXT_KEY = Symbol('introspection text key');

export function useIntrospectionCache(): Plugin {
  // Printing a document costs far less than executing it, and once per parsed document (Yoga keeps
  // parsed documents by their text, so a repeated query is the same object).
  const texts = new WeakMap<DocumentNode, string>();
  // By the printed document (any way in: HTTP, graphql-ws, the REST shim) and by the text as
  // received over HTTP: a repeated request is then answered before it is even parsed and validated
  // again (both passed for that very text, against the same schema, the first time).
  const results = new Map<string, unknown>();
  const byText = new Map<string, unknown>();
  // Every result either map holds, so the result processor knows an answer from memory by identity.
  const cachedResults = new WeakSet<object>();
  // The JSON text of each kept answer, made the first time an HTTP request is answered with it.
  const serialized = new WeakMap<object, string>();
  const remember = (cache: Map<string, unknown>, key: string, result: unknown) => {
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, result);
    cachedResults.add(result as object);
  };
  return {
    onParams({ params, context, setResult }) {
      // After the caller gate (earlier in the plugin list): a caller it refused is not answered here.
      if (gateOf(context) === undefined || typeof params.query !== 'string' || !params.query.includes('__')) return;
      const key = JSON.stringify([params.query, params.operationName ?? null, params.variables ?? {}]);
      const cached = byText.get(key);
      if (cached) setResult(cached as never);
      else (context as unknown as Record<symbol, string>)[TEXT_KEY] = key;
    },
    onExecute({ args, setResultAndStopExecution }) {
      if (!isIntrospectionOnly(args.document, args.operationName)) return;
      let text = texts.get(args.document);
      if (text === undefined) texts.set(args.document, (text = print(args.document)));
      const key = JSON.stringify([text, args.operationName ?? null, args.variableValues ?? {}]);
      const textKey = (args.contextValue as unknown as Record<symbol, string | undefined>)[TEXT_KEY];
      const cached = results.get(key);
      if (cached) {
        if (textKey) remember(byText, textKey, cached);
        setResultAndStopExecution(cached as never);
        return;
      }
      return {
        onExecuteDone({ result }) {
          // Only a complete answer is kept (not a stream, not one with errors: bad variables, say).
          if (Symbol.asyncIterator in (result as object) || (result as { errors?: unknown }).errors) return;
          remember(results, key, result);
          if (textKey) remember(byText, textKey, result);
        },
      };
    },
    onResultProcess({ result, setResult }) {
      // A kept answer has no errors; one carrying extensions (an HTTP status, say) is serialized as usual.
      if (Array.isArray(result) || Symbol.asyncIterator in result || result.extensions) return;
      if (!cachedResults.has(result)) return;
      let text = serialized.get(result);
      if (text === undefined) serialized.set(result, (text = JSON.stringify(result)));
      const bytes = text;
      setResult({ ...result, stringify: () => bytes });
    },
  };
}
