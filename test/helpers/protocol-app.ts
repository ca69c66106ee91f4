// What the protocol adapters' tests (AG-UI, A2A) stand on: the real service with a scripted model `dev`
// and a loopback model `loop` (streams held by gates) in workspace A, a second workspace B with its
// own `dev` for tenancy, agents made through the REST API, and a run followed over graphql-ws.
import { expect } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from './app.js';
import { insertModel } from './fixtures.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer } from './model-servers.js';
import { createWorkspace } from '../../src/features/access/admin.js';

export interface ProtocolApp {
  t: TestApp;
  loopback: ModelServer;
  other: { workspaceId: string; apiKey: string };
  stop(): Promise<void>;
}

export async function startProtocolApp(): Promise<ProtocolApp> {
  const loopback = await startOpenAICompatibleServer();
  const t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
  await addLoopbackModel(t, loopback, 'loop');
  const created = await createWorkspace(t.app.deps, { name: 'B' });
  const other = { workspaceId: created.workspace.id, apiKey: created.apiKey.token };
  await insertModel(t, 'dev', { workspaceId: other.workspaceId });
  return {
    t,
    loopback,
    other,
    async stop() {
      await t.stop();
      await loopback.close();
    },
  };
}

/** An agent made with `POST /api/v1/agents` (in the key's workspace). */
export async function createAgent(t: TestApp, name: string, config: Record<string, unknown>, token = t.apiKey, description?: string) {
  const response = await t.rest('POST', '/api/v1/agents', { token, body: { name, config, ...(description ? { description } : {}) } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; name: string };
}

/**
 * A run followed over graphql-ws with `query` (a subscription taking `$id`): the values it sends, and
 * `done` when the subscription completes (the run sealed or waiting).
 */
export function followOverWs(t: TestApp, query: string, runId: string) {
  const ws = createClient({
    url: `${t.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${t.apiKey}` },
  });
  const values: Record<string, any>[] = [];
  const done = new Promise<void>((resolve, reject) => {
    ws.subscribe({ query, variables: { id: runId } }, { next: (value) => void values.push(value.data!), error: reject, complete: resolve });
  }).finally(() => ws.dispose());
  return { values, done };
}
