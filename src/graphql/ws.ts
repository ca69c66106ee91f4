// graphql-ws on the /graphql path, sharing Yoga's pipeline (`getEnveloped`), so websocket clients
// get the same context, authentication and plugins as HTTP clients. A connection_init without a
// valid credential is refused (close code 4403 / 4401) before any operation runs.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import {
  GraphQLError,
  getOperationAST,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type execute as graphqlExecute,
  type subscribe as graphqlSubscribe,
} from 'graphql';
import { isAppError } from '../lib/errors.js';
import { unavailableFromError } from '../lib/unavailable.js';
import type { Deps } from '../services/deps.js';
import { authenticate } from '../features/access/auth.js';
import { credentialsFromConnectionParams } from './context.js';
import type { Yoga } from './yoga.js';
import type { RateLimiter } from '../features/access/rate-limit.js';
import { countOpenSubscription } from '../lib/service-metrics.js';
import { deferPayload, sharedPayloadText, spliceEncodedPayloads } from './encoded-next.js';

/** The ids of a connection's operations that stream (subscriptions), kept until each completes. */
const streamingIds = new WeakMap<object, Set<string>>();
const streaming = (ctx: object) => {
  let ids = streamingIds.get(ctx);
  if (!ids) streamingIds.set(ctx, (ids = new Set()));
  return ids;
};
const isAsyncIterable = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';

/** The WebSocket close code for "the server cannot serve this now" (RFC 6455 registry). */
const TRY_AGAIN_LATER = 1013;

/** A websocket server without its own listener: app.ts routes upgrade requests to it by path. */
export function createGraphQLWebSocketServer(yoga: Yoga, deps: Deps, limiter: RateLimiter) {
  const wsServer = new WebSocketServer({ noServer: true });
  wsServer.on('connection', (client: WebSocket, request: IncomingMessage) => {
    coalesceFrames(client, request.socket);
    spliceEncodedPayloads(client);
  });
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
          // The credential could not be checked (the database is away): 1013 Try Again Later, which
          // graphql-ws clients retry, instead of 4500 Internal Error, which they do not.
          const down = unavailableFromError(error);
          if (down) {
            ctx.extra.socket.close(TRY_AGAIN_LATER, down.message);
            return false;
          }
          throw error;
        }
      },
      // `extensions.http` is the HTTP status for Yoga's HTTP answers; it means nothing on a socket.
      onError: (_ctx, _id, _payload, errors) => errors.map(formatForSocket),
      // A shared execution's payload is JSON made once for all its subscribers (encoded-next.ts).
      onNext: (ctx, id, _payload, _args, result) => {
        if (result.errors?.length) return { ...result, errors: result.errors.map(formatForSocket) };
        const text = sharedPayloadText(result);
        return text === undefined ? undefined : deferPayload(ctx.extra.socket, id, text);
      },
      // Open subscriptions (the metrics' gauge): a streaming result counts until graphql-ws completes
      // it — by the client, by its end, or by the socket closing, which completes every stream.
      onOperation: (ctx, id, _payload, _args, result) => {
        if (isAsyncIterable(result)) {
          streaming(ctx).add(id);
          countOpenSubscription(1);
        }
      },
      onComplete: (ctx, id) => {
        if (streaming(ctx).delete(id)) countOpenSubscription(-1);
      },
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
        // A query or mutation over the socket counts against its caller's rate limit as it would over
        // HTTP (a subscription does not: a stream is one long request). Over the limit the operation
        // fails with `rate_limited` (a socket has no headers: the details say when to retry); the
        // connection stays open.
        if (getOperationAST(document, params.operationName)?.operation !== 'subscription') {
          const credentials = credentialsFromConnectionParams(ctx.connectionParams);
          const refusal = (await limiter.check(credentials.authorization, credentials.workspaceHeader))?.refusal;
          if (refusal) return [new GraphQLError(refusal.message, { extensions: { code: refusal.code, details: refusal.details } })];
        }
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

/** Below this many bytes waiting in a socket's buffer, a send counts as done at once (see coalesceFrames). */
const SEND_BUFFER_BYTES = 1 << 20;

/**
 * Frames sent to one socket in the same tick leave in one write: the socket is corked at the first
 * send and uncorked once the tick's work is done. graphql-ws waits for each frame's write before it
 * sends the subscription's next one; while the socket's buffer holds less than SEND_BUFFER_BYTES, a
 * send is reported done at once instead, so a replay of several items and the `complete` after the
 * last one join the same write. A slow client still holds its subscriptions back: past that buffer,
 * sends wait for their writes again. An item change fanned out to many subscriptions of one
 * connection, or a replay, costs one system call instead of one per frame (`ws` writes each frame on
 * its own otherwise).
 */
function coalesceFrames(client: WebSocket, socket: Socket) {
  const send = client.send.bind(client) as (data: unknown, options: object, callback?: (error?: Error) => void) => void;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  client.send = ((data: unknown, optionsOrCallback?: unknown, maybeCallback?: unknown) => {
    const callback = (typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback) as ((error?: Error) => void) | undefined;
    if (!corked && socket.writable) {
      corked = true;
      socket.cork();
      // After the microtasks of this tick (the other subscriptions' sends) have run.
      process.nextTick(uncork);
    }
    const options = typeof optionsOrCallback === 'object' && optionsOrCallback !== null ? optionsOrCallback : {};
    if (!callback || socket.writableLength >= SEND_BUFFER_BYTES) return send(data, options, callback);
    // A failed write closes the socket, which ends its subscriptions: nothing to report here.
    send(data, options, () => undefined);
    queueMicrotask(() => callback());
  }) as WebSocket['send'];
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
