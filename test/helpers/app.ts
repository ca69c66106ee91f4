// Starts the real app (HTTP + websocket) on a fresh database cloned from the migrated template,
// and gives tests plain HTTP and GraphQL clients for it.
import { inject } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Writable } from 'node:stream';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { outboundPolicy } from '../../src/lib/outbound-policy.js';

/**
 * The test services' outbound allowance: loopback, where every fake vendor, MCP server and webhook
 * receiver of the tests listens, and unix sockets, where the fake and real container engines listen
 * (a server deployment allows neither by default).
 */
export const TEST_OUTBOUND_ALLOWANCE: readonly string[] = ['127.0.0.1', '::1', 'localhost', 'unix:*'];

/** Its policy, for driver contexts tests build themselves. */
export const TEST_OUTBOUND_POLICY = outboundPolicy(TEST_OUTBOUND_ALLOWANCE);

export function databaseUrl(database: string): string {
  const parsed = new URL(inject('postgres').adminUrl);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A new database with every migration applied (cloned from the run's template). */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const { adminUrl, template, prefix } = inject('postgres');
  const name = `${prefix}${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(options.empty ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${template}`);
  await client.end();
  return {
    url: databaseUrl(name),
    name,
    async drop() {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export interface RestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestApp {
  app: App;
  url: string;
  apiKey: string;
  workspaceId: string;
  databaseUrl: string;
  rest<T = any>(
    method: string,
    path: string,
    options?: { token?: string | null; headers?: Record<string, string>; body?: unknown; rawBody?: string },
  ): Promise<RestResponse<T>>;
  graphql<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    options?: { token?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; data: T; errors?: { message: string; extensions?: Record<string, any> }[] }>;
  stop(): Promise<void>;
}

export type Rest = TestApp['rest'];

/** The REST client of a test app, for any running service (a child process too). */
export function restClient(url: string, apiKey: string): Rest {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const token = options.token === undefined ? apiKey : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${url}${path}`, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };
}

export async function startTestApp(
  overrides: Partial<Config> = {},
  shared?: TestApp,
  options: { logLines?: string[] } = {},
): Promise<TestApp> {
  // With `shared`, a second instance on the same database (and its bootstrap key); only the first drops it.
  const database = shared ? { url: shared.databaseUrl, name: '', drop: async () => undefined } : await createTestDatabase();
  // A second instance shares the data directory too: same generated secret key, as a cluster shares SECRET_KEY.
  const dataDir = shared ? shared.app.deps.config.dataDir : mkdtempSync(join(tmpdir(), 'wsa-test-data-'));
  const config = loadConfig(
    { NODE_ENV: 'test' },
    // No rate limit unless a test asks for one: many tests send more than RATE_LIMIT_PER_KEY's
    // default in a minute with the one bootstrap key (test/api/rate-limit.test.ts tests the limit).
    {
      databaseUrl: database.url,
      dataDir,
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      rateLimitPerKey: { quota: 0, windowSeconds: 0 },
      outboundAllowPrivate: TEST_OUTBOUND_ALLOWANCE,
      // A provider's refusal for load (a scripted 503) is asked again twice, 1 ms backoff steps,
      // before it ends the attempt: tests of attempts do not sit in real backoffs
      // (test/engine/provider-rate-limits.test.ts tests the waits).
      providerRetry: { budgetMs: 60_000, maxWaitMs: 1_000, baseMs: 1, maxRetries: 2 },
      ...overrides,
    },
  );
  // With `logLines`, every log line (debug and up) is kept, so tests can check what reaches the logs.
  const capture = options.logLines
    ? new Writable({
        write(chunk, _encoding, done) {
          options.logLines!.push(String(chunk));
          done();
        },
      })
    : undefined;
  const app = await buildApp(config, { logger: createLogger(capture ? 'debug' : (process.env.TEST_LOG_LEVEL ?? 'silent'), capture) });
  const url = await app.start();
  const apiKey = shared ? shared.apiKey : app.bootstrap!.apiKey;
  const workspaceId = shared ? shared.workspaceId : app.bootstrap!.workspaceId;

  const rest = restClient(url, apiKey);
  const graphql: TestApp['graphql'] = async (query, variables = {}, options = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...(options.headers ?? {}) };
    const token = options.token === undefined ? apiKey : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetch(`${url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    const json = (await response.json()) as { data: any; errors?: any[] };
    return { status: response.status, data: json.data, errors: json.errors };
  };
  return {
    app,
    url,
    apiKey,
    workspaceId,
    databaseUrl: database.url,
    rest,
    graphql,
    async stop() {
      await app.stop();
      await database.drop();
      if (!shared) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
