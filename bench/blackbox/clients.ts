// The clients the bench drives the service with: REST over HTTP (fetch), GraphQL subscriptions over
// graphql-ws (a few WebSocket connections, subscriptions spread over them as many UIs would be) and
// over server-sent events.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

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

const RUN_ITEMS = 'subscription($id: ID!) { runItems(runId: $id) { ordinal kind state content } }';

export interface RunItemEvent {
  ordinal: number;
  kind: string;
  state: string;
  content: any;
}

/** graphql-ws connections to /graphql; subscriptions go round-robin over them. */
export class Subscribers {
  private readonly clients: Client[];
  private next = 0;

  constructor(url: string, apiKey: string, connections: number) {
    this.clients = Array.from({ length: connections }, () =>
      createClient({
        url: `${url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${apiKey}` },
        lazy: false,
        retryAttempts: 0,
      }),
    );
  }

  private client(): Client {
    return this.clients[this.next++ % this.clients.length]!;
  }

  /**
   * Subscribes to `runItems` of a run; `onItem` sees every item event. Resolves when the subscription
   * completes (the run is sealed or waiting).
   */
  runItems(runId: string, onItem: (item: RunItemEvent) => void = () => undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      this.client().subscribe(
        { query: RUN_ITEMS, variables: { id: runId } },
        {
          next: (value) => {
            if (value.errors) reject(new Error(JSON.stringify(value.errors)));
            else onItem((value.data as any).runItems);
          },
          error: (error) => reject(error instanceof Error ? error : new Error(JSON.stringify(error))),
          complete: resolve,
        },
      );
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.dispose()));
  }
}

/** `runItems` over server-sent events (graphql-yoga's SSE transport): resolves when the stream ends. */
export async function runItemsOverSse(url: string, apiKey: string, runId: string): Promise<void> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: RUN_ITEMS, variables: { id: runId } }),
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
