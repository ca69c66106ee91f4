// The transport: typed queries and mutations over HTTP (POST /graphql) and typed subscriptions over
// graphql-ws, both authenticated with the same bearer credential. A document decides the variables'
// and the answer's types (TypedDocumentNode from graphql-codegen); any document works, not only the
// generated ones.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type DocumentNode } from 'graphql';
import { createClient as createWsClient, type Client as WsClient, type ClientOptions as WsClientOptions } from 'graphql-ws/client';
import { ServiceError, type GraphQLErrorBody } from './errors.js';

export interface ClientOptions {
  /** The service's base URL (`http://localhost:3000`) or its GraphQL endpoint (`…/graphql`). */
  url: string;
  /** The bearer credential: an API key (`wsk_…`) or a login session token (`wsl_…`). */
  apiKey: string;
  /** The workspace a login session acts in (`X-Workspace-ID`); API keys are bound to theirs. */
  workspaceId?: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** The WebSocket implementation for subscriptions (default: the global one; on Node 20 pass `ws`). */
  webSocketImpl?: unknown;
  /** Extra headers for every HTTP request. */
  headers?: Record<string, string>;
  /** Further graphql-ws client options (lazy, retryAttempts, keepAlive, on, …). */
  ws?: Partial<Omit<WsClientOptions, 'url' | 'webSocketImpl' | 'connectionParams'>>;
}

/** The variables argument: optional when every variable of the operation is. */
// `{}` on purpose: "the empty variables object is a valid value of V", i.e. nothing is required.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type VariablesArg<V> = {} extends V ? [variables?: V] : [variables: V];

export interface GraphQLClient {
  /** Runs a query over HTTP; its `data`, or a ServiceError. */
  query<R, V>(document: TypedDocumentNode<R, V>, ...variables: VariablesArg<V>): Promise<R>;
  /** Runs a mutation over HTTP; its `data`, or a ServiceError. */
  mutate<R, V>(document: TypedDocumentNode<R, V>, ...variables: VariablesArg<V>): Promise<R>;
  /**
   * Subscribes over graphql-ws: every event's `data` in order, ending when the service completes the
   * subscription. An error event throws a ServiceError from the iterator; leaving the loop early
   * (`break`, `return`) unsubscribes.
   */
  subscribe<R, V>(document: TypedDocumentNode<R, V>, ...variables: VariablesArg<V>): AsyncIterableIterator<R>;
  /** Closes the subscription socket (HTTP needs no closing). */
  close(): Promise<void>;
}

// Printing a document costs more than sending it; each document is printed once.
const printed = new WeakMap<DocumentNode, string>();
function source(document: DocumentNode): string {
  let text = printed.get(document);
  if (text === undefined) printed.set(document, (text = print(document)));
  return text;
}

function operationName(document: DocumentNode): string | undefined {
  for (const definition of document.definitions)
    if (definition.kind === 'OperationDefinition' && definition.name) return definition.name.value;
  return undefined;
}

/** `/graphql` of the service: the URL as given when it already names the endpoint. */
export function graphqlEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return /\/graphql$/.test(trimmed) ? trimmed : `${trimmed}/graphql`;
}

export function createTransport(options: ClientOptions): GraphQLClient {
  const endpoint = graphqlEndpoint(options.url);
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const headers: Record<string, string> = {
    ...options.headers,
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    authorization: `Bearer ${options.apiKey}`,
    ...(options.workspaceId ? { 'x-workspace-id': options.workspaceId } : {}),
  };

  async function execute<R>(document: DocumentNode, variables: unknown): Promise<R> {
    const response = await fetchImpl(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: source(document), variables: variables ?? {}, operationName: operationName(document) }),
    });
    const text = await response.text();
    let body: { data?: R | null; errors?: GraphQLErrorBody[] };
    try {
      body = JSON.parse(text);
    } catch {
      // Not a GraphQL answer (a proxy's error page, a cut connection): keep the status and the start of it.
      throw new ServiceError(
        [{ message: `HTTP ${response.status}: ${text.slice(0, 200)}`, extensions: { code: 'transport' } }],
        response.status,
      );
    }
    if (body.errors?.length) throw new ServiceError(body.errors, response.status);
    if (body.data == null)
      throw new ServiceError([{ message: `HTTP ${response.status} without data`, extensions: { code: 'transport' } }], response.status);
    return body.data;
  }

  let ws: WsClient | undefined;
  function socket(): WsClient {
    ws ??= createWsClient({
      ...options.ws,
      url: endpoint.replace(/^http/, 'ws'),
      webSocketImpl: options.webSocketImpl ?? (globalThis as { WebSocket?: unknown }).WebSocket,
      connectionParams: {
        authorization: `Bearer ${options.apiKey}`,
        ...(options.workspaceId ? { 'x-workspace-id': options.workspaceId } : {}),
      },
    });
    return ws;
  }
  // `lazy: false` means connected now, as graphql-ws' own client does it, not at the first subscription:
  // a client that opens its sockets ahead of a burst of subscriptions must not open them in the burst.
  if (options.ws?.lazy === false) socket();

  async function* subscribe<R>(document: DocumentNode, variables: unknown): AsyncGenerator<R> {
    const events = socket().iterate<R>({
      query: source(document),
      variables: (variables ?? {}) as Record<string, unknown>,
      operationName: operationName(document),
    });
    try {
      for await (const event of events) {
        if (event.errors?.length) throw new ServiceError(event.errors as GraphQLErrorBody[]);
        yield event.data as R;
      }
    } catch (error) {
      // graphql-ws rejects with the error list for an `error` message, or a CloseEvent for a closed socket.
      if (error instanceof ServiceError) throw error;
      if (Array.isArray(error)) throw new ServiceError(error as GraphQLErrorBody[]);
      const close = error as { code?: number; reason?: string };
      if (typeof close?.code === 'number') {
        // The service closes a socket whose connection_init carries no valid credential with 4403.
        const code = close.code === 4403 ? 'unauthenticated' : 'transport';
        throw new ServiceError([{ message: `socket closed: ${close.code} ${close.reason ?? ''}`.trim(), extensions: { code } }]);
      }
      throw error;
    } finally {
      await events.return?.(undefined);
    }
  }

  return {
    query: (document, ...[variables]) => execute(document, variables),
    mutate: (document, ...[variables]) => execute(document, variables),
    subscribe: (document, ...[variables]) => subscribe(document, variables),
    close: async () => {
      const current = ws;
      ws = undefined;
      await current?.dispose();
    },
  };
}
