// The one GraphQL pipeline: HTTP (POST/GET), SSE subscriptions, and — through `getEnveloped` in
// ws.ts — graphql-ws. All of them build their context with createContext().
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { useOperationLabel } from './operation-label.js';
import { GraphQLError } from 'graphql';
import type { Deps } from '../services/deps.js';
import {
  CLIENT_ADDRESS_HEADER,
  createContext,
  credentialsFromConnectionParams,
  type GraphQLContext,
  type RequestCredentials,
} from './context.js';
import { createErrorMasker } from './errors.js';
import { documentRefusalIn } from './document-refusal.js';
import { getSchema } from './schema.js';
import { useInputRules } from './input-rules.js';
import { useJsonVariables } from './json-variables.js';
import { gateOf, useCallerGate } from './access.js';
import { useDocumentLimits, useExecutionDeadline } from './limits.js';
import { useIntrospectionCache } from './introspection-cache.js';
import { useSharedSubscriptionExecution } from './shared-subscription-execution.js';
import { graphiqlOptions, renderLocalGraphiQL } from './graphiql.js';

export type Yoga = YogaServerInstance<Record<string, unknown>, GraphQLContext>;

export function createYogaServer(deps: Deps): Yoga {
  const maskError = createErrorMasker(deps.logger);
  const schema = getSchema();
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    // GraphiQL (development): its assets are served inline by the service, never from a CDN.
    graphiql: deps.config.graphiql ? graphiqlOptions() : false,
    renderGraphiQL: renderLocalGraphiQL,
    landingPage: false,
    logging: false,
    maskedErrors: { maskError: (error) => maskError(error) },
    plugins: [
      // Who may call what, before the document is parsed or validated for the caller.
      useCallerGate(deps, schema),
      ...useDocumentLimits(deps.config),
      useExecutionDeadline(deps.config.graphqlTimeoutMs),
      useErrorCodesForInvalidDocuments(),
      // v1's JSON variables stay valid where an input became a document scalar.
      useJsonVariables(),
      // Input rules (NUL, lone surrogates, nesting depth, id length) before any operation runs.
      useInputRules(),
      useErrorStatusForEveryMediaType(),
      // Introspection-only operations: executed once per document and variables, then answered from memory.
      ...(deps.config.graphqlIntrospectionCache ? [useIntrospectionCache()] : []),
      // Run-item subscriptions: each streamed event executed once for all its subscribers.
      useSharedSubscriptionExecution(),
      // Which kind of operation an HTTP request ran, for the HTTP metrics.
      useOperationLabel(),
    ],
    context: (initial) => {
      // graphql-ws passes its connection_init payload; HTTP requests carry headers.
      // The REST shim executes its operations with the caller's credentials taken from its request.
      const restCredentials = (initial as { restCredentials?: RequestCredentials }).restCredentials;
      if (restCredentials) return createContext(deps, restCredentials);
      const connectionParams = (initial as { connectionParams?: Record<string, unknown> }).connectionParams;
      if (connectionParams !== undefined) {
        const socket = (initial as { socket?: SocketLike }).socket;
        return createContext(deps, { ...credentialsFromConnectionParams(connectionParams), signal: socket ? socketClosed(socket) : null });
      }
      const headers = initial.request.headers;
      return createContext(
        deps,
        {
          authorization: headers.get('authorization'),
          workspaceHeader: headers.get('x-workspace-id'),
          requestId: headers.get('x-request-id'),
          clientAddress: headers.get(CLIENT_ADDRESS_HEADER),
          signal: initial.request.signal,
        },
        gateOf(initial)?.actor ?? undefined,
      );
    },
  });
}

interface SocketLike {
  once(event: 'close', listener: () => void): unknown;
}
const socketSignals = new WeakMap<SocketLike, AbortSignal>();

/** One signal per websocket, aborted when it closes (operations on it stop waiting). */
function socketClosed(socket: SocketLike): AbortSignal {
  let signal = socketSignals.get(socket);
  if (!signal) {
    const controller = new AbortController();
    socket.once('close', () => controller.abort());
    socketSignals.set(socket, (signal = controller.signal));
  }
  return signal;
}

/** Documents that do not parse or validate are the caller's mistake: code invalid_argument. */
function useErrorCodesForInvalidDocuments(): Plugin {
  const recode = (error: Error) =>
    // A literal a document scalar refused: the services' own error (document-scalars.ts).
    documentRefusalIn(error)?.at(undefined) ??
    new GraphQLError(error.message, {
      ...(error instanceof GraphQLError ? { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path } : {}),
      extensions: { code: 'invalid_argument', http: { status: 400 } },
    });
  return {
    onValidate:
      () =>
      ({ result, setResult }) => {
        if (result.length) setResult(result.map(recode));
      },
    onParse:
      () =>
      ({ result, replaceParseResult }) => {
        if (result instanceof Error) replaceParseResult(recode(result));
      },
  };
}

/**
 * A request refused before execution (a document that does not parse or validate, a limit, the
 * caller gate) answers its error's status, 400 for invalid documents, whatever the Accept header.
 * GraphQL over HTTP requires a 4xx for `application/graphql-response+json` and allows it for
 * `application/json`, where Yoga would answer 200: one status for both keeps the error table's
 * promise that a malformed request is a 400 on every surface. Yoga honours a status set on the
 * result itself for every media type.
 */
function useErrorStatusForEveryMediaType(): Plugin {
  return {
    onExecutionResult({ result, setResult }) {
      if (!result || Array.isArray(result) || Symbol.asyncIterator in result) return;
      if ('data' in result || !result.errors?.length) return;
      const statuses = result.errors.map((error) => (error.extensions?.http as { status?: number } | undefined)?.status ?? 0);
      const status = Math.max(...statuses);
      if (status < 400) return;
      const http = (result.extensions?.http ?? {}) as Record<string, unknown>;
      setResult({ ...result, extensions: { ...result.extensions, http: { ...http, status } } });
    },
  };
}
