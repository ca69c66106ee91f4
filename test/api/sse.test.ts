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
    // Nothing tells an SSE client when its subscription is registered: change the workspace until the
    // stream shows a change (the first ones may come before the subscription listens).
    let text = '';
    let seen = false;
    const changer = (async () => {
      for (let changes = 1; !seen; changes++) {
        await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': '*' }, body: { name: `over sse ${changes}` } });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      while (!text.includes('over sse')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    } finally {
      seen = true;
      await changer;
      controller.abort();
    }
    expect(text).toMatch(/"workspaceUpdated":\{"name":"over sse \d+"\}/);

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
