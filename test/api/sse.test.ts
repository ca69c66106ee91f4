// GraphQL subscriptions over HTTP with server-sent events (graphql-yoga's SSE transport).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

describe('subscriptions over SSE', () => {
  it('stream events to an authenticated client and refuse an unauthenticated one', async () => {
    const controller = new AbortController();
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { workspaceUpdated { name } }' }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    // Give the subscription a moment to register, then change the workspace.
    setTimeout(() => void t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': '*' }, body: { name: 'over sse' } }), 150);
    let text = '';
    const deadline = Date.now() + 10_000;
    while (!text.includes('over sse') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    expect(text).toContain('"workspaceUpdated":{"name":"over sse"}');

    const refused = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { workspaceUpdated { name } }' }),
    });
    const body = await refused.text();
    expect(body).toContain('unauthenticated');
    expect(body).not.toContain('over sse');
  });
});
