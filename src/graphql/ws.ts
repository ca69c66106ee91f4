// graphql-ws on the /graphql path, sharing Yoga's pipeline (`getEnveloped`), so websocket clients
// get the same context, authentication and plugins as HTTP clients. A connection_init without a
// valid credential is refused (close code 4403 / 4401) before any operation runs.
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import {
  GraphQLError,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type execute as graphqlExecute,
  type subscribe as graphqlSubscribe,
} from 'graphql';
import { isAppError } from '../lib/errors.js';
import type { Deps } from '../services/deps.js';
import { authenticate } from '../services/auth.js';
import { credentialsFromConnectionParams } from './context.js';
import type { Yoga } from './yoga.js';

/** A websocket server without its own listener: app.ts routes upgrade requests to it by path. */
export function createGraphQLWebSocketServer(yoga: Yoga, deps: Deps) {
  const wsServer = new WebSocketServer({ noServer: true });
  const disposable = useServer(
    {
      onConnect: async (ctx) => {
        const credentials = credentialsFromConnectionParams(ctx.connectionParams);
        try {
          await authenticate(deps, credentials.authorization, credentials.workspaceHeader);
          return true;
        } catch (error) {
          if (isAppError(error)) {
            // graphql-ws closes with 4403 Forbidden when onConnect returns false; say why first.
            deps.logger.info({ code: error.code }, 'websocket connection refused');
            return false;
          }
          throw error;
        }
      },
      // `extensions.http` is the HTTP status for Yoga's HTTP answers; it means nothing on a socket.
      onError: (_ctx, _id, _payload, errors) => errors.map(formatForSocket),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors?.length ? { ...result, errors: result.errors.map(formatForSocket) } : undefined,
      execute: (args: ExecutionArgs) => envelopedRoot(args).execute(args),
      subscribe: (args: ExecutionArgs) => envelopedRoot(args).subscribe(args),
      onSubscribe: async (ctx, _id, params) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          connectionParams: ctx.connectionParams ?? {},
        });
        let document: DocumentNode;
        try {
          document = parse(params.query);
        } catch (error) {
          // A syntax error (or a document over the token limit) is the operation's error, not the socket's.
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        const args = {
          schema,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
        const errors = validate(args.schema, args.document);
        if (errors.length) return errors;
        return args;
      },
    },
    wsServer,
  );
  return {
    wsServer,
    async close() {
      await disposable.dispose();
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
    },
  };
}

/** The operation's own execute and subscribe (with every plugin), put in `rootValue` by onSubscribe. */
interface EnvelopedRoot {
  execute: typeof graphqlExecute;
  subscribe: typeof graphqlSubscribe;
}
// graphql types `rootValue` as unknown; onSubscribe is the only writer of it, with an EnvelopedRoot.
const envelopedRoot = (args: ExecutionArgs) => args.rootValue as EnvelopedRoot;

function formatForSocket(error: GraphQLError | GraphQLFormattedError): GraphQLFormattedError {
  const formatted = 'toJSON' in error && typeof error.toJSON === 'function' ? error.toJSON() : (error as GraphQLFormattedError);
  if (!formatted.extensions || !('http' in formatted.extensions)) return formatted;
  const { http: _http, ...extensions } = formatted.extensions;
  return { ...formatted, extensions };
}
