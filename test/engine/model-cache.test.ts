// The AI SDK model of a workspace's model is built once per configuration and reused by every
// request (building it constructs the provider package's client and zod schemas), and a change of
// the model, its provider or the provider's credential reaches the next request at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { resolveModel } from '../../src/engine/models.js';

let loopback: ModelServer;
let t: TestApp;
let agentId: string;
beforeAll(async () => {
  loopback = await startOpenAICompatibleServer('sk-first-key');
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await addLoopbackModel(t, loopback, 'cached');
  agentId = (await t.rest('POST', '/api/v1/agents', { body: { name: 'cache', config: { model: 'cached' } } })).body.id;
});
afterAll(async () => {
  await t?.stop();
  await loopback?.close();
});

const input = { content: [{ type: 'text', text: 'hello' }] };
const resolve = (settings: Record<string, unknown> = {}) => resolveModel(t.app.deps, t.workspaceId, 'cached', settings);

async function runStatus(): Promise<string> {
  const created = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input } });
  expect(created.status).toBe(201);
  return (await settleRun(t, created.body.id)).status;
}

async function patch(path: string, body: Record<string, unknown>) {
  const current = await t.rest('GET', path);
  const changed = await t.rest('PATCH', path, { headers: { 'If-Match': current.headers.get('etag')! }, body });
  expect(changed.status).toBe(200);
}

describe('the AI SDK model of a request', () => {
  it('is built once per configuration and settings, and rebuilt after a change', async () => {
    const first = await resolve();
    expect((await resolve()).model).toBe(first.model);
    expect((await resolve()).download).toBe(first.download);
    // Other settings (an agent's model_settings) are another model.
    const tuned = await resolve({ temperature: 0.5 });
    expect(tuned.model).not.toBe(first.model);
    expect((await resolve({ temperature: 0.5 })).model).toBe(tuned.model);
    await patch('/api/v1/models/cached', { settings: { temperature: 0.2 } });
    const changed = await resolve();
    expect(changed.model).not.toBe(first.model);
    expect(changed.settings).toMatchObject({ temperature: 0.2 });
  });

  it("sends a provider's new credential with the next request", async () => {
    expect(await runStatus()).toBe('completed');
    const providerId = (await t.rest('GET', '/api/v1/models/cached')).body.provider_id;
    // The server now wants another key: the provider still holds the old one, so the request is refused.
    loopback.apiKey = 'sk-second-key';
    expect(await runStatus()).toBe('failed');
    await patch(`/api/v1/model-providers/${providerId}`, { credential: { api_key: 'sk-second-key' } });
    expect(await runStatus()).toBe('completed');
    expect(loopback.requests.at(-1)!.headers.authorization).toBe('Bearer sk-second-key');
  });
});
