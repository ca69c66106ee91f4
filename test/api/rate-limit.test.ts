// Rate limits per API key and login session over real HTTP: the RateLimit headers on every counted
// answer, 429 `rate_limited` with Retry-After over the limit on REST and GraphQL alike, a key's own
// limit and 0, login sessions, what is not counted (subscriptions, health, unauthenticated requests),
// and two instances sharing the count through PostgreSQL and through Redis.
//
// The windows are a day long: a test never runs into the end of one (the only way a count could go
// back), whatever the machine's speed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import { getIntrospectionQuery } from 'graphql';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { redisReachable, redisUrl, startOwnRedis } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';
import { createApiKey, createUser, setApiKeyRateLimit } from '../../src/features/access/admin.js';
import { windowAt, windowPhaseMs } from '../../src/lib/rate-limit-policy.js';
import { runCli } from '../../src/operator-cli.js';
import { PassThrough } from 'node:stream';

const DAY = 86_400;
const QUOTA = 5;
const limited = { rateLimitPerKey: { quota: QUOTA, windowSeconds: DAY } };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp(limited);
});
afterAll(async () => {
  await t?.stop();
});

/** A new key of the test app's workspace (a fresh budget), with its id. */
async function newKey(app: TestApp, rateLimit?: string) {
  const key = await createApiKey(app.app.deps, { workspaceId: app.workspaceId, permissions: 'read,write,admin,run', rateLimit });
  return { id: key.id, token: key.token };
}

const restGet = (app: TestApp, token: string, path = '/api/v1/workspace', headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

const graphqlPost = (app: TestApp, token: string | null, query = '{ workspace { id } }', headers: Record<string, string> = {}) =>
  fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify({ query }),
  });

/** The `r` and `t` of a RateLimit header, and its policy name. */
function rateLimitOf(response: Response): { name: string; r: number; t: number } {
  const match = /^"([a-z]+)";r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '');
  expect(match, `RateLimit: ${response.headers.get('ratelimit')}`).not.toBeNull();
  return { name: match![1]!, r: Number(match![2]), t: Number(match![3]) };
}

describe('over the limit', () => {
  it('REST answers carry RateLimit and RateLimit-Policy, then 429 rate_limited with Retry-After', async () => {
    const key = await newKey(t);
    const remaining: number[] = [];
    for (let i = 0; i < QUOTA; i++) {
      const response = await restGet(t, key.token);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe(`"default";q=${QUOTA};w=${DAY}`);
      remaining.push(rateLimitOf(response).r);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const before = Date.now();
    const refused = await restGet(t, key.token);
    const after = Date.now();
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.details).toMatchObject({ policy: 'default', quota: QUOTA, window_seconds: DAY });
    expect(refused.headers.get('ratelimit-policy')).toBe(`"default";q=${QUOTA};w=${DAY}`);
    const { r, t: reset } = rateLimitOf(refused);
    expect(r).toBe(0);
    // Retry-After is when the key's window ends: the same as `t`, and where the key's phase puts it.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBe(reset);
    expect(body.error.details.retry_after_seconds).toBe(retryAfter);
    const windowMs = DAY * 1000;
    const phase = windowPhaseMs(key.id, windowMs);
    const earliest = Math.ceil((windowAt(after, windowMs, phase).endMs - after) / 1000);
    const latest = Math.ceil((windowAt(before, windowMs, phase).endMs - before) / 1000);
    // The database's clock and this process's are the same machine's; one second for rounding.
    expect(retryAfter).toBeGreaterThanOrEqual(Math.min(earliest, latest) - 1);
    expect(retryAfter).toBeLessThanOrEqual(Math.max(earliest, latest) + 1);
  });

  it('introspection counts like any request, answered from memory or not, and is refused over the limit', async () => {
    const key = await newKey(t);
    const introspection = getIntrospectionQuery();
    const answers = [];
    for (let i = 0; i < QUOTA; i++) answers.push(await graphqlPost(t, key.token, introspection));
    expect(answers.map((response) => response.status)).toEqual(Array.from({ length: QUOTA }, () => 200));
    expect(answers.map((response) => rateLimitOf(response).r)).toEqual(Array.from({ length: QUOTA }, (_, i) => QUOTA - 1 - i));
    const over = await graphqlPost(t, key.token, introspection);
    expect(over.status).toBe(429);
    expect(((await over.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('rate_limited');
  });

  it('GraphQL over HTTP counts into the same budget and answers 429 with the same headers, in its error shape', async () => {
    const key = await newKey(t);
    for (let i = 0; i < QUOTA - 1; i++) expect((await restGet(t, key.token)).status).toBe(200);
    const last = await graphqlPost(t, key.token);
    expect(last.status).toBe(200);
    expect(rateLimitOf(last).r).toBe(0);
    const rest = await restGet(t, key.token);
    const graphql = await graphqlPost(t, key.token);
    expect([rest.status, graphql.status]).toEqual([429, 429]);
    for (const name of ['ratelimit-policy', 'retry-after']) expect(graphql.headers.get(name), name).toBe(rest.headers.get(name));
    expect(rateLimitOf(graphql)).toEqual(rateLimitOf(rest));
    const body = (await graphql.json()) as { data?: unknown; errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]!.extensions.code).toBe('rate_limited');
    // The shape of the caller gate's own refusal (a 401): the same members.
    const unauthenticated = (await (await graphqlPost(t, 'wsk_unknown')).json()) as typeof body;
    expect(Object.keys(body)).toEqual(Object.keys(unauthenticated));
    expect(Object.keys(body.errors[0]!).sort()).toEqual(Object.keys(unauthenticated.errors[0]!).sort());
    // graphql-response+json is answered in that media type, as Yoga answers it.
    const typed = await graphqlPost(t, key.token, '{ workspace { id } }', { accept: 'application/graphql-response+json' });
    expect(typed.status).toBe(429);
    expect(typed.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
  });

  it('does not count health checks, unauthenticated requests or subscriptions', async () => {
    const key = await newKey(t);
    for (let i = 0; i < QUOTA; i++) expect((await restGet(t, key.token)).status).toBe(200);
    expect((await restGet(t, key.token)).status).toBe(429);
    // /metrics is off here (no METRICS_TOKEN: 404), and answers as before: uncounted.
    for (const [path, status] of [
      ['/healthz', 200],
      ['/readyz', 200],
      ['/metrics', 404],
      ['/api/v1/openapi.json', 200],
    ] as const) {
      const response = await restGet(t, key.token, path);
      expect(response.status, path).toBe(status);
      expect(response.headers.get('ratelimit'), path).toBeNull();
      await response.body?.cancel();
    }
    // Unauthenticated: the 401 as before, no headers (nobody to count).
    const anonymous = await fetch(`${t.url}/api/v1/workspace`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('ratelimit')).toBeNull();
    // A subscription over server-sent events is served (a query with the same Accept is refused).
    const sse = await graphqlPost(t, key.token, 'subscription { workspaceUpdated { id } }', { accept: 'text/event-stream' });
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(sse.headers.get('ratelimit')).toBeNull();
    await sse.body?.cancel();
    const streamedQuery = await graphqlPost(t, key.token, '{ workspace { id } }', { accept: 'text/event-stream' });
    expect(streamedQuery.status).toBe(429);
    await streamedQuery.body?.cancel();
    // A subscription over graphql-ws: neither the connection nor the subscription is counted.
    const ws = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key.token}` },
      lazy: false,
    });
    const first = new Promise<unknown>((resolve, reject) => {
      const stop = ws.subscribe(
        { query: 'subscription { workspaceUpdated { id name } }' },
        {
          next: (value) => {
            stop();
            resolve(value);
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    await renameWorkspaceUntil(first);
    expect(((await first) as { data: { workspaceUpdated: { id: string } } }).data.workspaceUpdated.id).toBe(t.workspaceId);
    await ws.dispose();
  });
});

describe('over graphql-ws', () => {
  it('counts queries and mutations into the same budget and fails them with rate_limited, never subscriptions', async () => {
    const key = await newKey(t);
    const ws = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key.token}` },
    });
    const once = (query: string) =>
      new Promise<{ data?: unknown; errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> }>(
        (resolve, reject) => {
          let result: { data?: unknown; errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> } = {};
          ws.subscribe(
            { query },
            {
              next: (value) => void (result = value as typeof result),
              // graphql-ws reports an operation refused before execution as an `error` message.
              error: (errors) => (Array.isArray(errors) ? resolve({ errors }) : reject(errors)),
              complete: () => resolve(result),
            },
          );
        },
      );
    // Two over HTTP, three over the socket: one budget of five.
    for (let i = 0; i < 2; i++) expect((await restGet(t, key.token)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await once('{ workspace { id } }')).data).toEqual({ workspace: { id: t.workspaceId } });
    const refused = await once('{ workspace { id } }');
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'rate_limited', details: { quota: QUOTA, window_seconds: DAY } });
    expect(Number((refused.errors![0]!.extensions!.details as { retry_after_seconds: number }).retry_after_seconds)).toBeGreaterThan(0);
    expect((await restGet(t, key.token)).status).toBe(429);
    // The connection stays open, and a subscription on it is still served.
    const subscribed = new Promise<void>((resolve, reject) => {
      const stop = ws.subscribe(
        { query: 'subscription { workspaceUpdated { id } }' },
        { next: () => (stop(), resolve()), error: reject, complete: () => undefined },
      );
    });
    await renameWorkspaceUntil(subscribed);
    await ws.dispose();
  });
});

/**
 * Renames the test app's workspace with a key of its own (its budget untouched) until `received`, a
 * `workspaceUpdated` subscription's first event, arrives: the signal that the subscription is live.
 */
async function renameWorkspaceUntil(received: Promise<unknown>) {
  const other = await newKey(t);
  await waitForSubscriber(async () => {
    const changed = await fetch(`${t.url}/api/v1/workspace`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${other.token}`, 'content-type': 'application/json', 'if-match': '*' },
      body: JSON.stringify({ name: `renamed ${Math.random()}` }),
    });
    expect(changed.status).toBe(200);
  }, received);
  await received;
}

/**
 * Repeats `change` until `received` settles: the subscription may not be listening yet when the first
 * change is made (graphql-ws acknowledges the connection, not the subscription), so the signal is the
 * event itself.
 */
async function waitForSubscriber(change: () => Promise<void>, received: Promise<unknown>) {
  let done = false;
  void received.finally(() => (done = true));
  while (!done) {
    await change();
    await Promise.race([received, new Promise((resolve) => setImmediate(resolve))]);
  }
}

describe("a key's own limit", () => {
  it('overrides the default, 0 removes the limit, and a change is audited and holds from the next request', async () => {
    const own = await newKey(t, '3/24h');
    for (let i = 0; i < 3; i++) {
      const response = await restGet(t, own.token);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe(`"key";q=3;w=${DAY}`);
      expect(rateLimitOf(response).name).toBe('key');
    }
    const refused = await restGet(t, own.token);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { details: { policy: string } } }).error.details.policy).toBe('key');

    const unlimited = await newKey(t, '0');
    for (let i = 0; i < QUOTA * 2; i++) {
      const response = await restGet(t, unlimited.token);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toBeNull();
      expect(response.headers.get('ratelimit-policy')).toBeNull();
    }

    // The operator lifts the first key's limit: from the next request on (the credential cache is cleared).
    const set = await setApiKeyRateLimit(t.app.deps, own.id, '0');
    expect(set).toEqual({ id: own.id, rateLimit: '0', changed: true });
    expect((await restGet(t, own.token)).status).toBe(200);
    expect(await setApiKeyRateLimit(t.app.deps, own.id, '0')).toEqual({ id: own.id, rateLimit: '0', changed: false });
    // Back to the default; the default (5) is not spent yet by this key's 4 counted requests.
    expect(await setApiKeyRateLimit(t.app.deps, own.id, 'default')).toEqual({ id: own.id, rateLimit: null, changed: true });
    const response = await restGet(t, own.token);
    expect(response.headers.get('ratelimit-policy')).toBe(`"default";q=${QUOTA};w=${DAY}`);

    // Audited: the create with its limit, and each change (the no-op wrote nothing).
    const audit = await t.rest('GET', `/api/v1/audit-events?resource_id=${own.id}`);
    expect(audit.status).toBe(200);
    const rows = (audit.body as { items: { action: string; changes: Record<string, { from: unknown; to: unknown }> }[] }).items;
    expect(rows.map((row) => [row.action, row.changes.rate_limit])).toEqual([
      ['update', { from: '0', to: null }],
      ['update', { from: '3/86400s', to: '0' }],
      ['create', { from: null, to: '3/86400s' }],
    ]);
    // Shown on the key's view: the API key as the principal of a change it made.
    const changed = await fetch(`${t.url}/api/v1/workspace`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${unlimited.token}`, 'content-type': 'application/json', 'if-match': '*' },
      body: JSON.stringify({ description: 'changed by the unlimited key' }),
    });
    expect(changed.status).toBe(200);
    await setApiKeyRateLimit(t.app.deps, unlimited.id, '7/1h');
    const byKey = await t.graphql(
      `query($id: String) { auditEvents(principalId: $id, first: 1) { nodes { principal { ... on ApiKey { id rateLimit } } } } }`,
      { id: unlimited.id },
    );
    expect(byKey.errors).toBeUndefined();
    expect(byKey.data.auditEvents.nodes).toEqual([{ principal: { id: unlimited.id, rateLimit: '7/3600s' } }]);
  });

  it('is set by the operator CLI on create and update', async () => {
    const io = () => {
      const out = new PassThrough();
      const chunks: string[] = [];
      out.on('data', (chunk) => chunks.push(String(chunk)));
      return { stream: out, text: () => chunks.join('') };
    };
    const env = { NODE_ENV: 'test', DATABASE_URL: t.databaseUrl, DATA_DIR: t.app.deps.config.dataDir, LOG_LEVEL: 'silent' };
    const created = io();
    const args = ['api-keys', 'create', '--workspace', t.workspaceId, '--permissions', 'read', '--rate-limit', '10/1m', '--json'];
    expect(await runCli(args, { stdout: created.stream, stderr: new PassThrough(), env })).toBe(0);
    const key = JSON.parse(created.text()) as { api_key_id: string; rate_limit: string };
    expect(key.rate_limit).toBe('10/60s');
    const updated = io();
    expect(
      await runCli(['api-keys', 'update', '--id', key.api_key_id, '--rate-limit', '0', '--json'], {
        stdout: updated.stream,
        stderr: new PassThrough(),
        env,
      }),
    ).toBe(0);
    expect(JSON.parse(updated.text())).toEqual({ api_key_id: key.api_key_id, rate_limit: '0', changed: true });
    const refused = io();
    expect(
      await runCli(['api-keys', 'update', '--id', key.api_key_id, '--rate-limit', 'fast', '--json'], {
        stdout: refused.stream,
        stderr: new PassThrough(),
        env,
      }),
    ).toBe(2);
    expect(JSON.parse(refused.text()).error.code).toBe('invalid_argument');
  });

  it('refuses a malformed limit, naming the field', async () => {
    const key = await newKey(t);
    for (const bad of ['5 per minute', '10/0s', '-1/60s', '']) {
      await expect(setApiKeyRateLimit(t.app.deps, key.id, bad), bad).rejects.toMatchObject({
        code: 'invalid_argument',
        details: { field: 'rate_limit' },
      });
    }
    await expect(createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read', rateLimit: '1/61m' })).resolves.toMatchObject({
      rateLimit: '1/3660s',
    });
    await expect(createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read', rateLimit: 'x' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});

describe('login sessions', () => {
  it('are limited each on their own budget', async () => {
    await createUser(t.app.deps, { email: 'limited@example.com', password: 'limited pass', workspaceId: t.workspaceId, role: 'writer' });
    const login = async () => {
      const response = await fetch(`${t.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'limited@example.com', password: 'limited pass' }),
      });
      expect(response.status).toBe(200);
      // Signing in carries no credential: not counted.
      expect(response.headers.get('ratelimit')).toBeNull();
      return ((await response.json()) as { token: string }).token;
    };
    const first = await login();
    const headers = { 'x-workspace-id': t.workspaceId };
    for (let i = 0; i < QUOTA; i++) expect((await restGet(t, first, '/api/v1/workspace', headers)).status).toBe(200);
    expect((await restGet(t, first, '/api/v1/workspace', headers)).status).toBe(429);
    const refused = await graphqlPost(t, first, '{ workspace { id } }', headers);
    expect(refused.status).toBe(429);
    // Another session of the same user has a budget of its own.
    const second = await login();
    const response = await restGet(t, second, '/api/v1/workspace', headers);
    expect(response.status).toBe(200);
    expect(rateLimitOf(response).r).toBe(QUOTA - 1);
  });
});

/**
 * Alternates requests of one key between two instances: the quota holds for both together, and each
 * instance's refusal (REST on one, GraphQL on the other) carries the code and the same headers, as the
 * window they count in is one.
 */
async function sharedBetween(one: TestApp, two: TestApp) {
  const key = await newKey(one);
  const statuses: number[] = [];
  const remaining: number[] = [];
  const refusals: { policy: string | null; retryAfter: string | null; reset: number; code: unknown }[] = [];
  for (let i = 0; i < QUOTA + 2; i++) {
    const rest = i % 2 === 0;
    const response = await (rest ? restGet(one, key.token) : graphqlPost(two, key.token));
    statuses.push(response.status);
    remaining.push(rateLimitOf(response).r);
    expect(response.headers.get('ratelimit-policy')).toBe(`"default";q=${QUOTA};w=${DAY}`);
    if (response.status === 429) {
      const body = (await response.json()) as { error?: { code: string }; errors?: { extensions: { code: string } }[] };
      refusals.push({
        policy: response.headers.get('ratelimit-policy'),
        retryAfter: response.headers.get('retry-after'),
        reset: rateLimitOf(response).t,
        code: rest ? body.error?.code : body.errors?.[0]?.extensions.code,
      });
    } else await response.body?.cancel();
  }
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  expect(remaining).toEqual([4, 3, 2, 1, 0, 0, 0]);
  expect(refusals.map((r) => r.code)).toEqual(['rate_limited', 'rate_limited']);
  for (const refusal of refusals) {
    // Retry-After is the window's end, as RateLimit's `t` says (a second apart at most: two reads of the clock).
    expect(Number(refusal.retryAfter)).toBeGreaterThan(0);
    expect(Math.abs(Number(refusal.retryAfter) - refusal.reset)).toBeLessThanOrEqual(1);
  }
  expect(Math.abs(Number(refusals[0]!.retryAfter) - Number(refusals[1]!.retryAfter))).toBeLessThanOrEqual(1);
}

describe('two instances', () => {
  it('share the count through PostgreSQL without Redis', async () => {
    const second = await startTestApp(limited, t);
    try {
      expect(t.app.deps.config.redisUrl).toBeNull();
      await sharedBetween(t, second);
    } finally {
      await second.stop();
    }
  });

  it('share the count through Redis', async (context) => {
    if (!(await redisReachable())) {
      context.skip(`Redis not reachable at ${redisUrl}`);
      return;
    }
    const one = await startTestApp({ ...limited, redisUrl });
    const two = await startTestApp({ ...limited, redisUrl }, one);
    try {
      await sharedBetween(one, two);
      // Nothing went through PostgreSQL's counters.
      const rows = await one.app.deps.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM rate_limit_counters`;
      expect(rows[0]!.n).toBe(0);
    } finally {
      await two.stop();
      await one.stop();
    }
  });
});

describe('counters out of reach', () => {
  it('let requests through uncounted while Redis is away, and count again once it is back', async () => {
    const redis = await startOwnRedis();
    const app = await startTestApp({ ...limited, redisUrl: redis.url });
    try {
      const key = await newKey(app);
      const first = await restGet(app, key.token);
      expect(rateLimitOf(first).r).toBe(QUOTA - 1);
      await redis.stop();
      // Served, uncounted and without the headers: more requests than the quota, none refused.
      for (let i = 0; i < QUOTA + 1; i++) {
        const response = await restGet(app, key.token);
        expect(response.status).toBe(200);
        expect(response.headers.get('ratelimit')).toBeNull();
      }
      // Redis restarted empty (no persistence): the limiter reconnects by itself and counts afresh.
      await redis.start();
      const counted = await waitFor(
        () => restGet(app, key.token),
        (response) => response.headers.get('ratelimit') !== null,
        'the limiter counting again after Redis came back',
      );
      expect(counted.status).toBe(200);
      expect(rateLimitOf(counted).r).toBe(QUOTA - 1);
    } finally {
      await app.stop();
      await redis.stop();
    }
  });
});

describe('housekeeping', () => {
  it('deletes the PostgreSQL counters of windows that ended, and keeps the current ones', async () => {
    const db = t.app.deps.db;
    await db.$executeRaw`INSERT INTO rate_limit_counters (subject, window_end, count)
      VALUES ('key_ended', now() - interval '1 minute', 3), ('key_current', now() + interval '1 minute', 2)`;
    // The sweep comes every ten minutes: ask for it as if that time had passed.
    const deleted = await t.app.housekeeping!.sweepRateLimitCounters(Date.now() + 600_001);
    expect(deleted).toBeGreaterThanOrEqual(1);
    const left = await db.$queryRaw<{ subject: string }[]>`
      SELECT subject FROM rate_limit_counters WHERE subject IN ('key_ended', 'key_current')`;
    expect(left.map((row) => row.subject)).toEqual(['key_current']);
    const ended = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM rate_limit_counters WHERE window_end < now()`;
    expect(ended[0]!.n).toBe(0);
  });
});
