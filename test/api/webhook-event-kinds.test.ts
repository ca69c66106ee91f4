// The list of webhook event kinds: readable by any authenticated caller (a reader included, though
// every other webhook operation needs admin), refused without a credential, and exactly the kinds
// the table of docs/api/webhooks.md documents (webhook.ping aside: no subscription asks for it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey } from '../../src/features/access/admin.js';

let t: TestApp;
let readKey: string;
beforeAll(async () => {
  t = await startTestApp();
  readKey = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: ['read'] })).token;
});
afterAll(async () => {
  await t?.stop();
});

/** The kinds in the first column of the docs' event table, in its order. */
function documentedKinds(): string[] {
  const docs = readFileSync(new URL('../../docs/api/webhooks.md', import.meta.url), 'utf8');
  return [...docs.matchAll(/^\| `([a-z_]+\.[a-z_]+)` \|/gm)].map((match) => match[1]!).filter((kind) => kind !== 'webhook.ping');
}

describe('webhook event kinds', () => {
  it('a reader lists them over REST and GraphQL, the same list, as the docs table has them', async () => {
    const rest = await t.rest('GET', '/api/v1/webhook-event-kinds', { token: readKey });
    expect(rest.status).toBe(200);
    const kinds = rest.body.items.map((item: { kind: string }) => item.kind);
    expect(kinds).toEqual(documentedKinds());
    for (const item of rest.body.items) expect(item.description).toMatch(/\S/);

    const gql = await t.graphql('{ webhookEventKinds { kind description } }', {}, { token: readKey });
    expect(gql.errors).toBeUndefined();
    expect(gql.data.webhookEventKinds).toEqual(rest.body.items);

    // The subscriptions themselves stay admin-only.
    expect((await t.rest('GET', '/api/v1/webhook-subscriptions', { token: readKey })).status).toBe(403);
  });

  it('without a credential: 401', async () => {
    expect((await t.rest('GET', '/api/v1/webhook-event-kinds', { token: null })).status).toBe(401);
  });
});
