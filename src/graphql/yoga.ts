// The one GraphQL pipeline: HTTP (POST/GET), SSE subscriptions, and — through `getEnveloped` in
// ws.ts — graphql-ws. All of them build their context with createContext().
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import type { Deps } from '../services/deps.js';
import { CLIENT_ADDRESS_HEADER, createContext, credentialsFromConnectionParams, type GraphQLContext, type RequestCredentials } from './context.js';
import { createErrorMasker } from './errors.js';
import { getSchema } from './schema.js';
import { useInputRules } from './input-rules.js';

export type Yoga = YogaServerInstance<Record<string, unknown>, GraphQLContext>;

export function createYogaServer(deps: Deps): Yoga {
  const maskError = createErrorMasker(deps.logger);
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema: getSchema(),
    graphqlEndpoint: '/graphql',
    graphiql: deps.config.graphiql,
    landingPage: false,
    logging: false,
    maskedErrors: { maskError: (error) => maskError(error) },
    // Input rules (NUL, lone surrogates, nesting depth, id length) before any operation runs.
    plugins: [useErrorCodesForInvalidDocuments(), useInputRules()],
    context: (initial) => {
      // graphql-ws passes its connection_init payload; HTTP requests carry headers.
      // The REST shim executes its operations with the caller's credentials taken from its request.
      const restCredentials = (initial as { restCredentials?: RequestCredentials }).restCredentials;
      if (restCredentials) return createContext(deps, restCredentials);
      const connectionParams = (initial as { connectionParams?: Record<string, unknown> }).connectionParams;
      if (connectionParams !== undefined) {
        return createContext(deps, credentialsFromConnectionParams(connectionParams));
      }
      const headers = initial.request.headers;
      return createContext(deps, {
        authorization: headers.get('authorization'),
        workspaceHeader: headers.get('x-workspace-id'),
        requestId: headers.get('x-request-id'),
        clientAddress: headers.get(CLIENT_ADDRESS_HEADER),
      });
    },
  });
}

/** Documents that do not parse or validate are the caller's mistake: code invalid_argument. */
function useErrorCodesForInvalidDocuments(): Plugin {
  const recode = (error: Error) =>
    new GraphQLError(error.message, {
      ...(error instanceof GraphQLError ? { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path } : {}),
      extensions: { code: 'invalid_argument', http: { status: 400 } },
    });
  return {
    onValidate: () => ({ result, setResult }) => {
      if (result.length) setResult(result.map(recode));
    },
    onParse: () => ({ result, replaceParseResult }) => {
      if (result instanceof Error) replaceParseResult(recode(result));
    },
  };
}
