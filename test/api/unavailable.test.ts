// The database out of reach: the app reaches PostgreSQL through a loopback relay the test cuts (as
// when the server stops). Meanwhile GraphQL and REST answer 503 `unavailable` with Retry-After,
// never 500; a graphql-ws connection whose credential cannot be checked closes with 1013 (try again
// later); /readyz is not ready and names the database; /healthz stays alive. Restored, the same
// requests succeed again without a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { createTestDatabase } from '../helpers/app.js';
import { RETRY_AFTER_SECONDS } from '../../src/lib/errors.js';
import { createApiKey } from '../../src/features/access/admin.js';
import WebSocket from 'ws';

let proxy: TcpProxy;
let t: TestApp;
let dropDatabase: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase();
  dropDatabase = database.drop;
  const direct = new URL(database.url);
  // The relay is TCP. The embedded server's URL names its socket directory (`host`); it also listens
  // on 127.0.0.1 at the same port, which the proxy forwards to.
  const socketDirectory = direct.searchParams.get('host');
  proxy = await startTcpProxy({ host: socketDirectory ? '127.0.0.1' : direct.hostname, port: Number(direct.port || 5432) });
  const relayed = new URL(database.url);
  relayed.searchParams.delete('host');
  relayed.hostname = '127.0.0.1';
  relayed.port = String(proxy.port);
  t = await startTestApp({ databaseUrl: relayed.toString() });
});
afterAll(async () => {
  await proxy?.restore().catch(() => undefined);
  await t?.stop();
  await proxy?.close();
  await dropDatabase?.();
});

async function graphql(query: string) {
  const response = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${t.apiKey}` },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as any };
}

describe('the database out of reach', () => {
  it('answers 503 unavailable with Retry-After through GraphQL and REST, then recovers', async () => {
    // Reachable: the same requests succeed (credentials, the agent list).
    expect((await t.rest('GET', '/api/v1/agents')).status).toBe(200);
    expect((await graphql('{ agents { nodes { id } } }')).status).toBe(200);

    // A credential never used yet: checking it needs the database (used ones are remembered a while).
    const { token: freshKey } = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read', name: 'outage' });

    await proxy.cut();
    try {
      const rest = await t.rest('GET', '/api/v1/agents');
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
      expect(rest.body.error).toMatchObject({ code: 'unavailable', details: { dependency: 'database' } });

      const created = await t.rest('POST', '/api/v1/agents', { body: { name: 'while-down', config: { model: 'dev' } } });
      expect(created.status).toBe(503);
      expect(created.body.error.code).toBe('unavailable');

      const gql = await graphql('{ agents { nodes { id } } }');
      expect(gql.status).toBe(503);
      expect(gql.retryAfter).toBe(String(RETRY_AFTER_SECONDS));
      expect(gql.body.errors[0].extensions).toMatchObject({ code: 'unavailable', details: { dependency: 'database' } });

      const ready = await fetch(`${t.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
      expect(await ready.json()).toMatchObject({ status: 'not_ready', unavailable: ['database'] });

      // The graphql-ws protocol by hand: the client library reports the refusal as an unhandled rejection.
      const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
        const socket = new WebSocket(`${t.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
        socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${freshKey}` } })));
        socket.on('error', reject);
        socket.on('close', (code, reason) => resolve({ code, reason: String(reason) }));
      });
      expect(closed.code).toBe(1013);
      expect(closed.reason).toMatch(/cannot reach its database/);

      const health = await fetch(`${t.url}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      await proxy.restore();
    }

    // Back: the pool opens new connections for the next requests, no restart needed.
    expect((await t.rest('GET', '/api/v1/agents')).status).toBe(200);
    expect((await graphql('{ agents { nodes { id } } }')).status).toBe(200);
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
  });
});
