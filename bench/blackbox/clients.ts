// The clients the bench drives the service with: REST over HTTP (fetch), GraphQL subscriptions over
// graphql-ws through the repository's typed client package (a few WebSocket connections, subscriptions
// spread over them as many UIs would be) and over server-sent events (the same generated document).
import { print, type DocumentNode } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import WebSocket from 'ws';
import { createClient, RunItemsLiveDocument, type Client, type RunItem } from '@workspace-agent-service/client';

export interface RestResult {
  status: number;
  headers: Headers;
  body: any;
}

export class Rest {
  constructor(
    readonly url: string,
    private readonly apiKey: string,
  ) {}

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RestResult> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  }

  /** A call that must succeed (setup steps): anything else stops the bench with the answer. */
  async ok(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
    const result = await this.call(method, path, body, headers);
    if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body;
  }
}

/**
 * The echo model every run-path bench uses: a `development` provider and its model `dev` (the echo
 * answer, no latency), set up through REST as a user would.
 */
export async function addEchoModel(rest: Rest, providerName = 'bench development'): Promise<void> {
  const provider = await rest.ok('POST', '/api/v1/model-providers', { type: 'development', name: providerName });
  await rest.ok('POST', '/api/v1/models', { key: 'dev', provider_id: provider.id, provider_model: 'echo' });
}

/** An agent on the echo model (addEchoModel first): its id. */
export async function addEchoAgent(rest: Rest, name = 'echo'): Promise<string> {
  return (await rest.ok('POST', '/api/v1/agents', { name, config: { model: 'dev' } })).id;
}

/** A run item as the live subscription sends it (content narrowed to what the bench reads). */
export type RunItemEvent = RunItem & { content: any };

/** graphql-ws connections to /graphql, one typed client each; subscriptions go round-robin over them. */
export class Subscribers {
  private readonly clients: Client[];
  private next = 0;

  constructor(url: string, apiKey: string, connections: number) {
    this.clients = Array.from({ length: connections }, () =>
      // Connected at once and never retried: a dropped socket is a bench failure, not something to hide.
      createClient({ url, apiKey, webSocketImpl: WebSocket, ws: { lazy: false, retryAttempts: 0 } }),
    );
  }

  private client(): Client {
    return this.clients[this.next++ % this.clients.length]!;
  }

  /**
   * Subscribes to `runItems` of a run; `onItem` sees every item event. Resolves when the subscription
   * completes (the run is sealed or waiting); an error event rejects with the client's ServiceError.
   */
  async runItems(runId: string, onItem: (item: RunItemEvent) => void = () => undefined): Promise<void> {
    for await (const item of this.client().runItems(runId)) onItem(item as RunItemEvent);
  }

  /** Any subscription document, over the same connections; resolves when the subscription completes. */
  async subscribe<R>(document: DocumentNode, variables: Record<string, unknown>, onEvent: (event: R) => void): Promise<void> {
    for await (const event of this.client().subscribe(document as TypedDocumentNode<R, Record<string, unknown>>, variables)) onEvent(event);
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close()));
  }
}

// The SSE transport is graphql-yoga's, which the client package does not speak; it sends the package's document.
const RUN_ITEMS = print(RunItemsLiveDocument);

/** `runItems` over server-sent events (graphql-yoga's SSE transport): resolves when the stream ends. */
export async function runItemsOverSse(url: string, apiKey: string, runId: string): Promise<void> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: RUN_ITEMS, variables: { runId } }),
  });
  if (!response.ok || !response.body) throw new Error(`SSE runItems: ${response.status}`);
  const decoder = new TextDecoder();
  let text = '';
  const reader = response.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    text += decoder.decode(value, { stream: true });
    if (text.includes('"errors"')) throw new Error(`SSE runItems: ${text}`);
    if (/event: complete/.test(text)) {
      await reader.cancel();
      return;
    }
  }
}
