// buildApp(config): the database, the GraphQL pipeline (HTTP, SSE, websocket), the REST shim and
// health endpoints on one express app. Returns {start, stop} so tests and server.ts share it.
import express, { type NextFunction, type Request, type Response } from 'express';
import { createServer, maxHeaderSize, type Server } from 'node:http';
import { listenWithAcceptSockets, type AcceptSockets } from './lib/accept-sockets.js';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { assembleDeps } from './deps.js';
import { openDatabase, type Database } from './db.js';
import { createLogger, type Logger } from './lib/logger.js';
import { closeEvents, onReconnected, redisReady } from './lib/events.js';
import { unavailableFromError } from './lib/unavailable.js';
import { RETRY_AFTER_SECONDS, statusForCode } from './lib/errors.js';
import { releaseRunWaits } from './features/runs/run-watch.js';
import type { Deps } from './services/deps.js';
import { bootstrapIfEmpty } from './features/access/admin.js';
import { createYogaServer, type Yoga } from './graphql/yoga.js';
import { createGraphQLWebSocketServer } from './graphql/ws.js';
import type { WebSocketServer } from 'ws';
import { WorkerPool } from './engine/worker.js';
import { Housekeeping } from './engine/housekeeping.js';
import { warmVectorIndexes } from './memory-stores/builtin.js';
import { WebhookDeliverer } from './engine/webhook-deliverer.js';
import { WEBHOOK_CHANNEL } from './features/webhooks/webhook-events.js';
import { relayDueDeliveries, resyncDeliveryFollowers } from './features/webhooks/webhook-delivery-watch.js';
import { PgListener } from './lib/pg-listener.js';
import { CREDENTIALS_CHANNEL, forgetCredentials } from './features/access/credential-cache.js';
import { bumpConfigGeneration, CONFIG_CHANNEL } from './services/config-cache.js';
// Installs every provider type into the registry.
import './providers/index.js';
import { createRestRouter, sendError, uploadRequestMatcher, CLIENT_ADDRESS_HEADER } from '../rest-shim/router.js';
import { apiReferenceRouter } from './api-reference/index.js';
import { createMcpEndpoint } from './protocols/mcp/server.js';
import { createAgUiEndpoint } from './protocols/ag-ui/server.js';
import { createA2aEndpoint } from './protocols/a2a/server.js';
import { fromRepositoryRoot } from './lib/repository-root.js';
import { readFileSync } from 'node:fs';
import { createOpenAIEndpoint } from './protocols/openai/server.js';
import { sendOpenAIError } from './protocols/openai/errors.js';
import { consoleRouter } from './console-bundle/serve.js';
import { vapidKeys } from './features/support-api/push.js';
import { createDeviceWebSocketServer, DEVICE_SOCKET_PATH } from './features/support-api/device-socket.js';
import { stopSupportRuntime, supportRuntime } from './features/support-api/runtime.js';
import { createDeviceBridge } from './features/support-api/device-bridge.js';
import { registerDeviceBridge } from './providers/device-bridge.js';
import { closeMcpPool } from './engine/tools/mcp-pool.js';
import { BACKLOG_CACHE_MS, cachedFor, Metrics } from './lib/metrics.js';
import { metricsHandler, type AdminCheck } from './lib/metrics-route.js';
import { MetricsServer } from './lib/metrics-server.js';
import { httpMetrics, httpRouteSlot } from './lib/http-metrics.js';
import { OPERATION_LABEL_SLOT } from './graphql/operation-label.js';
import { pendingDeliveryCount } from './features/webhooks/webhook-backlog.js';
import { queuedRunCount } from './features/runs/run-queue-depth.js';
import { authenticate } from './features/access/auth.js';
import { recordListeningUrl } from './services/service-url.js';
import { oauthCallbackHandler } from './features/tools/oauth-callback.js';
import { OAUTH_CALLBACK_PATH } from './features/tools/connection-oauth.js';
import { createRateLimiter, type RateLimiter } from './features/access/rate-limit.js';
import { acceptsStream, operationKind, requestParams } from './graphql/operation-kind.js';

/** How long an idle HTTP connection is kept open (longer than proxies keep theirs; see `start`). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface App {
  deps: Deps;
  /** The in-process run workers (null with RUN_WORKERS=0). */
  workers: WorkerPool | null;
  /** The retention sweeps (trace spans, webhook deliveries, presence): kept where workers run, null without them. */
  housekeeping: Housekeeping | null;
  /** Websocket endpoints by path (graphql-ws on /graphql); later modules add theirs before start(). */
  websocketServers: Map<string, { wsServer: WebSocketServer; close(): Promise<void> }>;
  database: Database;
  yoga: Yoga;
  /** Set after start(). */
  url: string;
  /** The metrics port's URL (METRICS_PORT), set after start(); null without one. */
  metricsUrl: string | null;
  bootstrap: { workspaceId: string; apiKey: string; keyFile: string } | null;
  start(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Errors raised before a route runs that are the caller's doing: body-parser (size, JSON, charset,
 * a body that does not decode under its Content-Encoding) and the router (a path segment that is
 * not valid percent-encoding). All are 400 invalid_argument; none echoes the caller's bytes.
 */
function requestError(
  error: unknown,
  maxBodyBytes: number,
): { code: 'invalid_argument'; message: string; details: Record<string, unknown> } | null {
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') {
    return {
      code: 'invalid_argument',
      message: `the request body is larger than ${maxBodyBytes} bytes`,
      details: { field: 'body', limit_bytes: maxBodyBytes },
    };
  }
  if (type === 'entity.parse.failed') {
    return {
      code: 'invalid_argument',
      message: `the request body is not valid JSON: ${boundedMessage((error as Error).message)}`,
      details: { field: 'body' },
    };
  }
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return { code: 'invalid_argument', message: boundedMessage((error as Error).message), details: { field: 'body' } };
  }
  // The router decodes path parameters with decodeURIComponent and marks a failure 400.
  if (error instanceof URIError || (error as { name?: string }).name === 'URIError') {
    return { code: 'invalid_argument', message: 'the request path is not valid percent-encoded UTF-8', details: { field: 'path' } };
  }
  // body-parser's other 4xx: a body that does not inflate (deflate/gzip/br garbage), an aborted or
  // short body (content-length mismatch).
  const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && (error as { expose?: unknown }).expose !== false) {
    return {
      code: 'invalid_argument',
      message: 'the request body could not be read (check Content-Encoding and Content-Length)',
      details: { field: 'body' },
    };
  }
  return null;
}

const boundedMessage = (message: string) => (message.length > 200 ? `${message.slice(0, 200)}…` : message);

/**
 * Node refuses some requests before express sees them (HTTP parse errors, headers larger than
 * --max-http-header-size, 16 KiB by default, answered 431). Its default answer has no body; this
 * one carries the documented error body.
 */
function answerClientError(error: NodeJS.ErrnoException & { bytesParsed?: number }, socket: Duplex) {
  if (
    error.code === 'ECONNRESET' ||
    !socket.writable ||
    (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent
  ) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const timeout = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = tooLarge ? 431 : timeout ? 408 : 400;
  const body = JSON.stringify({
    error: tooLarge
      ? {
          code: 'headers_too_large',
          message: `the request line and headers are larger than ${maxHeaderSize} bytes`,
          details: { field: 'headers', limit_bytes: maxHeaderSize },
        }
      : timeout
        ? { code: 'request_timeout', message: 'the request did not arrive in time' }
        : { code: 'invalid_argument', message: 'the request is not valid HTTP/1.1' },
  });
  const reason = tooLarge ? 'Request Header Fields Too Large' : timeout ? 'Request Timeout' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Passes an express request to Yoga's fetch handler and streams the answer back (SSE included). */
function yogaHandler(yoga: Yoga) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const url = `http://${req.get('host') ?? 'localhost'}${req.originalUrl}`;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) headers.set(name, value.join(', '));
      }
      // The client's address (rate limits) comes from the socket, never from the caller.
      headers.set(CLIENT_ADDRESS_HEADER, req.socket.remoteAddress ?? 'unknown');
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && Buffer.isBuffer(req.body) && req.body.length > 0;
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      // The HTTP metrics label the request by its operation type, which Yoga fills in (operation-label.ts).
      const label = httpRouteSlot(res);
      const response = await yoga.fetch(
        url,
        { method: req.method, headers, body: hasBody ? req.body : undefined, signal: controller.signal },
        { [OPERATION_LABEL_SLOT]: label },
      );
      res.status(response.status);
      response.headers.forEach((value, name) => res.setHeader(name, value));
      if (!response.body) {
        res.end();
        return;
      }
      // Yoga may answer with its own ReadableStream ponyfill; async iteration works for both kinds,
      // and writing chunk by chunk keeps server-sent events flowing as they are produced.
      res.flushHeaders();
      try {
        // The DOM lib's ReadableStream type lacks Symbol.asyncIterator, which Node's (and the ponyfill's) streams have.
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          if (res.destroyed) break;
          res.write(chunk);
        }
      } finally {
        res.end();
      }
    } catch (error) {
      next(error);
    }
  };
}

/**
 * Counts a request against its caller's rate limit (src/features/access/rate-limit.ts) before it is
 * served: the headers go on every answer, and over the limit the answer is 429 `rate_limited` in the
 * surface's own error shape (GraphQL's `errors` list, REST's error body). Subscriptions over HTTP
 * (server-sent events, multipart) are not counted; graphql-ws never comes through here (its queries and mutations are counted in graphql/ws.ts).
 */
function limitRequests(limiter: RateLimiter, surface: 'graphql' | 'rest' | 'mcp' | 'ag-ui' | 'openai' | 'a2a', maxTokens: number) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      if (surface === 'graphql' && acceptsStream(req.get('accept'))) {
        const params = requestParams(req.method, req.query as Record<string, unknown>, req.body);
        if (operationKind(params.query, params.operationName, maxTokens) === 'subscription') return next();
      }
      const outcome = await limiter.check(req.get('authorization'), req.get('x-workspace-id'));
      if (!outcome) return next();
      for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
      const refusal = outcome.refusal;
      if (!refusal) return next();
      if (surface === 'openai') {
        // OpenAI's error shape, as the OpenAI-compatible endpoints answer their other refusals (docs/protocols/openai.md).
        sendOpenAIError(res, refusal);
        return;
      }
      if (surface === 'rest') {
        sendError(res, req.originalUrl.startsWith('/api/v1/') ? 'v1' : 'support', refusal);
        return;
      }
      if (surface === 'ag-ui') {
        // The REST API's error body, as the AG-UI endpoint answers its other refusals before a stream starts.
        res.status(statusForCode(refusal.code)).json({
          error: { code: refusal.code, message: refusal.message, ...(refusal.details ? { details: refusal.details } : {}) },
        });
        return;
      }
      if (surface === 'mcp' || surface === 'a2a') {
        // A JSON-RPC error, as the MCP and A2A endpoints answer their other refusals (docs/protocols/mcp.md, a2a.md).
        res.status(statusForCode(refusal.code)).json({
          jsonrpc: '2.0',
          error: {
            code: -32000,
            message: refusal.message,
            data: { code: refusal.code, ...(refusal.details ? { details: refusal.details } : {}) },
          },
          id: null,
        });
        return;
      }
      // The shape Yoga gives the caller gate's refusals (401, 403): an `errors` list, no `data`.
      const graphqlResponse = /application\/graphql-response\+json/i.test(req.get('accept') ?? '');
      res
        .status(429)
        .type(graphqlResponse ? 'application/graphql-response+json; charset=utf-8' : 'application/json; charset=utf-8')
        .send(JSON.stringify({ errors: [{ message: refusal.message, extensions: { code: refusal.code, details: refusal.details } }] }));
    } catch (error) {
      next(error);
    }
  };
}

/**
 * How long stop() lets requests already being answered finish before their connections are cut. Long
 * enough for a released wait's last read under load; short enough that a stream nobody ends (an SSE
 * follower) does not hold the shutdown.
 */
const CONNECTION_DRAIN_MS = 2_000;

export async function buildApp(config: Config, options: { logger?: Logger } = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const database = await openDatabase(config, logger);
  const deps = assembleDeps(config, logger, database);
  // Environment drivers reach paired devices through this bridge (the `envd` environment type).
  registerDeviceBridge(deps, createDeviceBridge(deps));
  const bootstrap = await bootstrapIfEmpty(deps);
  // Web push keys are generated (and stored) on the first start, so the public key never changes under subscribers.
  await vapidKeys(deps);
  const yoga = createYogaServer(deps);
  // The process's one LISTEN connection: remembered credentials and configuration are forgotten when
  // any process changes them (credential-cache.ts, config-cache.ts); workers wake on it.
  const listener = new PgListener(database.url, logger)
    .on(
      CREDENTIALS_CHANNEL,
      () => forgetCredentials(deps),
      () => forgetCredentials(deps),
    )
    .on(CONFIG_CHANNEL, bumpConfigGeneration, bumpConfigGeneration)
    // The outbox's announcements reach this process's followers of deliveries (webhookDeliveryUpdated).
    .on(
      WEBHOOK_CHANNEL,
      (eventId) => void relayDueDeliveries(deps, eventId),
      () => resyncDeliveryFollowers(deps),
    );
  // Attempts are announced through Redis: after a Redis outage the followers read again what they follow.
  onReconnected(deps.events, () => resyncDeliveryFollowers(deps));
  const workers =
    config.runWorkers > 0
      ? new WorkerPool(deps, { concurrency: config.runWorkers, listener, leaseMs: config.runLeaseMs, graceMs: config.shutdownGraceMs })
      : null;
  // Wherever runs are executed, stored data is kept within its retention too (the sweeps check as often as
  // the workers look for expired leases; each sweep itself comes about hourly).
  const housekeeping = workers ? new Housekeeping(deps, { tickMs: config.runLeaseMs / 2 }) : null;
  const webhooks =
    config.webhookDeliveryConcurrency > 0 ? new WebhookDeliverer(deps, { listener, concurrency: config.webhookDeliveryConcurrency }) : null;

  // Requests per API key and login session, counted in Redis (REDIS_URL) or PostgreSQL.
  const rateLimiter = createRateLimiter(deps);

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  // Counted by route template when answered (src/lib/http-metrics.ts).
  app.use(httpMetrics());
  app.use((req, res, next) => {
    const requestId = req.get('x-request-id') && /^[!-~]{1,128}$/.test(req.get('x-request-id')!) ? req.get('x-request-id')! : randomUUID();
    req.headers['x-request-id'] = requestId;
    res.setHeader('X-Request-ID', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // originalUrl: under a mount (app.use('/graphql', …)) req.path is only the part after it ("/").
      const path = new URL(req.originalUrl, 'http://localhost').pathname;
      logger.info(
        { requestId, method: req.method, path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 },
        'request',
      );
    });
    next();
  });

  // The browser's way back from an MCP server's authorization server (no credential: the state is the proof).
  app.get(OAUTH_CALLBACK_PATH, oauthCallbackHandler(deps));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Ready: the database answers with every migration applied and, with REDIS_URL, both Redis
  // connections are up. `unavailable` names each dependency that cannot be reached.
  app.get('/readyz', async (_req, res) => {
    const state = await database.ready();
    const redis = redisReady(deps.events);
    const unreachable = [...(state.pendingMigrations < 0 ? ['database'] : []), ...(redis === false ? ['redis'] : [])];
    const ok = state.ok && redis !== false;
    if (!ok) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    res.status(ok ? 200 : 503).json({
      status: ok ? 'ready' : 'not_ready',
      database: database.mode,
      pending_migrations: state.pendingMigrations,
      ...(redis === null ? {} : { redis: redis ? 'ready' : 'unreachable' }),
      ...(unreachable.length ? { unavailable: unreachable } : {}),
      ...(state.error ? { error: state.error } : {}),
    });
  });

  // Operator metrics (Prometheus text): on this port for a caller bearing METRICS_TOKEN (or, with
  // METRICS_ADMIN_KEYS, an admin credential); on METRICS_PORT for anyone who reaches that port.
  const metrics = new Metrics({
    poolWaits: database.poolWaits,
    workers: () => workers?.slots() ?? null,
    webhookBacklog: cachedFor(BACKLOG_CACHE_MS, () => pendingDeliveryCount(deps)),
    queuedRuns: cachedFor(BACKLOG_CACHE_MS, () => queuedRunCount(deps)),
  });
  const adminCheck: AdminCheck | null = config.metricsAdminKeys
    ? async (authorization, workspaceHeader) => (await authenticate(deps, authorization, workspaceHeader)).permissions.has('admin')
    : null;
  app.get('/metrics', metricsHandler(metrics, config.metricsToken, adminCheck));
  const metricsServer =
    config.metricsPort === null ? null : new MetricsServer(metrics, { port: config.metricsPort, host: config.metricsHost });

  const maxTokens = config.graphqlLimits.maxTokens;
  const serviceVersion = (JSON.parse(readFileSync(fromRepositoryRoot('package.json'), 'utf8')) as { version: string }).version;
  const mcp = createMcpEndpoint(yoga, {
    agentLabel: config.mcpAgentLabel,
    logger,
    version: serviceVersion,
    maxBodyBytes: config.maxBodyBytes,
  });
  const agUi = createAgUiEndpoint(yoga, { logger, maxBodyBytes: config.maxBodyBytes });
  const a2a = createA2aEndpoint(yoga, { logger, maxBodyBytes: config.maxBodyBytes, version: serviceVersion });
  app.use(
    '/graphql',
    (_req: Request, res: Response, next: NextFunction) => {
      httpRouteSlot(res).graphql = true;
      next();
    },
    express.raw({ type: () => true, limit: config.maxBodyBytes }),
    limitRequests(rateLimiter, 'graphql', maxTokens),
    yogaHandler(yoga),
  );
  // The OpenAPI documents of both REST surfaces and the API reference page (/docs).
  app.use(apiReferenceRouter(yoga.getEnveloped({}).schema));

  // Images (avatar uploads) arrive as raw bytes; every other body is JSON, whatever its Content-Type says.
  // Asset uploads are streamed by their route (rest-shim/uploads.ts) up to ASSET_MAX_BYTES: no parser reads them.
  const isImage = (req: { headers: { 'content-type'?: string } }) => /^image\//i.test(req.headers['content-type'] ?? '');
  const isUpload = uploadRequestMatcher();
  // After the API reference (its documents are public and not counted), before any body is read.
  app.use('/api', limitRequests(rateLimiter, 'rest', maxTokens));
  const rawParser = express.raw({ limit: config.maxBodyBytes, type: (req) => !isUpload(req as Request) && isImage(req) });
  const jsonParser = express.json({ limit: config.maxBodyBytes, strict: true, type: (req) => !isUpload(req as Request) && !isImage(req) });
  // An image body is stored as sent, as an asset upload is (rest-shim/uploads.ts): one sent with a
  // Content-Encoding is refused rather than inflated, so the stored bytes are always the bytes sent.
  app.use('/api', (req, res, next) => {
    const encoding = req.get('content-encoding')?.trim().toLowerCase();
    if (!encoding || encoding === 'identity' || isUpload(req) || !isImage(req)) return next();
    sendError(res, req.originalUrl.startsWith('/api/v1/') ? 'v1' : 'support', {
      code: 'invalid_argument',
      message: 'images are stored as sent: send them without Content-Encoding',
      details: { field: 'Content-Encoding' },
    });
  });
  app.use(['/api'], rawParser);
  app.use(['/api'], jsonParser);
  app.use(
    createRestRouter(yoga, {
      maxBodyBytes: config.maxBodyBytes,
      logger,
      upload: { maxBytes: config.assetMaxBytes, dir: join(config.dataDir, 'assets', 'tmp') },
    }),
  );
  // The MCP server (streamable HTTP): the workspace's agents as tools, through the same GraphQL operations.
  app.use('/mcp', limitRequests(rateLimiter, 'mcp', maxTokens), mcp.router);
  // OpenAI-compatible endpoints (Responses, Chat Completions, models) over the same GraphQL operations.
  app.use(
    '/openai/v1',
    limitRequests(rateLimiter, 'openai', maxTokens),
    createOpenAIEndpoint(yoga, { logger, maxBodyBytes: config.maxBodyBytes }).router,
  );
  // AG-UI (agent front-ends): POST a RunAgentInput to /ag-ui/{agent_id}, read the run as SSE events.
  app.use('/ag-ui', limitRequests(rateLimiter, 'ag-ui', maxTokens), agUi.router);
  // A2A (agent-to-agent): JSON-RPC at /a2a/{agent_id}, the agent's card under its .well-known path.
  app.use('/a2a', limitRequests(rateLimiter, 'a2a', maxTokens), a2a.router);
  app.use('/api', (req, res) => {
    const path = req.path.length > 200 ? `${req.path.slice(0, 200)}…` : req.path;
    sendError(res, req.originalUrl.startsWith('/api/v1/') ? 'v1' : 'support', {
      code: 'not_found',
      message: `no endpoint ${req.method} ${path}`,
    });
  });
  // The operator console (the web UI) owns every other path: its page, bundle and service worker.
  if (config.consoleEnabled) app.use(consoleRouter());
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const parsed = requestError(error, config.maxBodyBytes);
    const surface = req.originalUrl.startsWith('/api/v1/') || req.originalUrl.startsWith('/graphql') ? 'v1' : 'support';
    if (parsed) {
      sendError(res, surface, parsed);
      return;
    }
    const down = unavailableFromError(error);
    if (down) {
      sendError(res, surface, { code: down.code, message: down.message, details: down.details });
      return;
    }
    logger.error({ err: error }, 'unhandled error');
    sendError(res, surface, { code: 'internal', message: 'internal error' });
  });

  // Websocket endpoints by path. One `upgrade` listener routes them: several `ws` servers bound to
  // one HTTP server would each refuse the others' paths.
  const websocketServers = new Map<string, { wsServer: WebSocketServer; close(): Promise<void> }>();
  websocketServers.set('/graphql', createGraphQLWebSocketServer(yoga, deps, rateLimiter));
  websocketServers.set(DEVICE_SOCKET_PATH, createDeviceWebSocketServer(deps));

  let server: Server | null = null;
  let acceptSockets: AcceptSockets | null = null;
  // The vector indexes of recently searched built-in memories load in the background after the start,
  // one at a time and without holding readiness: their first searches then find them warm (a search
  // of one still loading waits MEMORY_INDEX_WAIT_MS, then answers 503 index_loading).
  let warmingStopped = false;
  const warmMemoryIndexes = () => {
    if (config.memoryIndexWarmHours <= 0) return;
    const budget = { maxMemories: config.memoryIndexMaxMemories, maxBytes: config.memoryIndexMaxBytes, waitMs: config.memoryIndexWaitMs };
    const since = new Date(Date.now() - config.memoryIndexWarmHours * 3_600_000);
    const stopped = () => warmingStopped;
    const onError = (error: unknown, memory: { namespace: string }) => {
      if (!warmingStopped) logger.warn({ err: error, namespace: memory.namespace }, 'warming a memory index failed');
    };
    warmVectorIndexes(deps.db, budget, { since, stopped, onError }).then(
      ({ warmed }) => warmed > 0 && logger.info({ warmed }, 'memory vector indexes warmed'),
      (error: unknown) => onError(error, { namespace: '*' }),
    );
  };
  const result: App = {
    deps,
    workers,
    housekeeping,
    websocketServers,
    database,
    yoga,
    url: '',
    metricsUrl: null,
    bootstrap,
    async start() {
      // Before the first request can arrive: the first requests are counted too.
      await rateLimiter.start();
      server = createServer(app);
      // Idle keep-alive connections stay open longer than the clients and proxies in front keep theirs
      // (undici 4 s, nginx 60 s by default, cloud load balancers 60 s): the side that closes an idle
      // connection must be the client, or a request sent as the server closes it fails with a reset
      // (a proxy answers 502). Node's default of 5 s loses that race behind every common proxy.
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
      server.on('clientError', answerClientError);
      server.on('upgrade', (request, socket, head) => {
        const path = new URL(request.url ?? '/', 'http://localhost').pathname;
        const endpoint = websocketServers.get(path);
        if (!endpoint) {
          socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
          return;
        }
        endpoint.wsServer.handleUpgrade(request, socket, head, (client) => endpoint.wsServer.emit('connection', client, request));
      });
      acceptSockets = await listenWithAcceptSockets(
        server,
        { host: config.host, port: config.port, count: config.httpAcceptSockets },
        (reason) => logger.warn({ reason }, 'the port is listened on through one socket'),
      );
      await listener.start();
      await workers?.start();
      housekeeping?.start();
      await webhooks?.start();
      if (metricsServer) result.metricsUrl = await metricsServer.start();
      // The listener status (GET /api/status) reports the in-process workers.
      supportRuntime(deps).runWorkers = config.runWorkers;
      warmMemoryIndexes();
      const address = server.address() as AddressInfo;
      result.url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
      recordListeningUrl(deps, result.url);
      return result.url;
    },
    async stop() {
      warmingStopped = true;
      await metricsServer?.stop();
      metrics.stop();
      // Requests waiting for runs (`wait`, `Prefer: wait=N`) answer now, with the runs as they are.
      releaseRunWaits(deps.events);
      // Their answers are written in the continuations of the released waits (no I/O between): let those
      // run before anything below can close a connection.
      await new Promise((resolve) => setImmediate(resolve));
      // Workers first, while the database is still up: they finish or hand back their runs.
      housekeeping?.stop();
      await workers?.stop();
      await webhooks?.stop();
      // Their MCP clients (connections) next: stdio servers are child processes of this one.
      await closeMcpPool(deps);
      // Spans still held are stored and exported while the database is up.
      await deps.tracer.shutdown().catch((error) => logger.warn({ err: error }, 'flushing traces failed'));
      await listener.stop();
      stopSupportRuntime(deps);
      for (const endpoint of websocketServers.values()) await endpoint.close();
      await mcp.close();
      if (server) {
        // Idle connections close now; a request still answering (a released wait reading its run) gets
        // up to CONNECTION_DRAIN_MS to finish before its connection is cut.
        const closed = Promise.all([new Promise<void>((resolve) => server!.close(() => resolve())), acceptSockets?.close()]);
        server.closeIdleConnections();
        const forced = setTimeout(() => server!.closeAllConnections(), CONNECTION_DRAIN_MS);
        await closed;
        clearTimeout(forced);
      }
      await closeEvents(deps.events);
      await rateLimiter.stop();
      await database.close();
    },
  };
  return result;
}
