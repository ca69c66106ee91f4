// Every environment variable the service reads, parsed and validated in one place.
import { resolve } from 'node:path';
import type { AssetS3Config } from './lib/asset-bucket.js';
import { parseAllowance, type OutboundAllowance } from './lib/outbound-policy.js';
import { parseRateLimit, type RateLimitPolicy } from './lib/rate-limit-policy.js';

// The asset bucket defines what it is opened with; the configuration parses it from ASSET_S3_*.
export type { AssetS3Config };

export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /**
   * Sockets listening on the port (HTTP_ACCEPT_SOCKETS, SO_REUSEPORT on Linux): a busy event loop
   * accepts one new connection per socket per iteration (src/lib/accept-sockets.ts).
   */
  httpAcceptSockets: number;
  /**
   * The address browsers reach the service at (PUBLIC_URL), for the links it hands out that must
   * come back to it (the OAuth callback of MCP connections); null: the address it listens on.
   */
  publicUrl: string | null;
  dataDir: string;
  /** A PostgreSQL server; when absent the service runs an embedded PostgreSQL under dataDir. */
  databaseUrl: string | null;
  /** Credential encryption key; embedded/dev mode generates one under dataDir when absent. */
  secretKey: string | null;
  secretKeyPrevious: string[];
  logLevel: string;
  bootstrapApiKey: string | null;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  /** Largest asset (uploaded file), in bytes; REST uploads stream up to it (larger: 413). */
  assetMaxBytes: number;
  /** Assets up to this size keep their bytes in the database; larger ones are files under dataDir. */
  assetInlineMaxBytes: number;
  /** An S3-compatible bucket for assets larger than the inline limit (instead of files under dataDir); null: files. */
  assetS3: AssetS3Config | null;
  loginSessionTtlSeconds: number;
  idempotencyTtlSeconds: number;
  /** Serve the operator console (the web UI) at `/`. */
  consoleEnabled: boolean;
  /** `key:value` (MCP_AGENT_LABEL): only agents carrying this label are tools of the MCP server at /mcp; null: every agent. */
  mcpAgentLabel: string | null;
  /**
   * MCP_TOOLS_LIST_TTL_SECONDS: how long a connection's tool listing serves the attempts that start
   * after it (shared by attempts that start while it is in flight); 0: every attempt lists for itself.
   */
  mcpToolsListTtlSeconds: number;
  /** The bearer token of GET /metrics (operator metrics); null (and no admin keys): the endpoint answers 404. */
  metricsToken: string | null;
  /** GET /metrics also answers callers whose API key (or login) has `admin` in its workspace (METRICS_ADMIN_KEYS). */
  metricsAdminKeys: boolean;
  /** A port of its own serving GET /metrics without credentials (METRICS_PORT); null: none. */
  metricsPort: number | null;
  /** The address the metrics port listens on (METRICS_HOST, default 127.0.0.1: only this machine). */
  metricsHost: string;
  /** Serve GraphiQL on GET /graphql (development). */
  graphiql: boolean;
  /** Who may run introspection (`__schema`, `__type`): authenticated callers (default), anyone, or nobody. */
  graphqlIntrospection: 'authenticated' | 'public' | 'off';
  /** Introspection-only operations answered from memory after their first execution (GRAPHQL_INTROSPECTION_CACHE; src/graphql/introspection-cache.ts). */
  graphqlIntrospectionCache: boolean;
  /** Limits on one GraphQL document (docs/api/README.md, "GraphQL limits"). */
  graphqlLimits: GraphQLLimits;
  /** Deadline for one query or mutation, in ms (0: none); subscriptions are not bounded. */
  graphqlTimeoutMs: number;
  /** Plain-HTTP provider endpoints: true (any), a host list, or false (HTTPS only, the default). */
  allowPlainHttpEndpoints: boolean | string[];
  /** Allow MCP connectors that run a local command over stdio. */
  allowStdioConnectors: boolean;
  /** Offer the `local` environment provider type (development deployments only). */
  allowLocalEnvironments: boolean;
  /**
   * Whether the `development` model provider type (the offline scripted model) is offered for new
   * providers. Default: yes in development and test mode and for a trial on the embedded database
   * (no DATABASE_URL: `npm start` on a fresh checkout), no for a production deployment on its own database.
   */
  allowDevelopmentModels: boolean;
  /** Redis for events across instances and worker processes (optional; in-process without it). */
  redisUrl: string | null;
  /** Run workers inside this process (0: none; use `npm run worker` processes instead). */
  runWorkers: number;
  /**
   * Admission: the most runs a process's workers prepare at once (claimed, not yet at their first
   * model request; default: the database pool's size). Claims wait for a place.
   */
  runPreparingLimit: number;
  /**
   * How long one preparation holds its place at most: one that waits on something slow (a sandbox
   * being provisioned, a tool server's listing) stops counting then, so it cannot hold back other runs.
   */
  runPreparingHoldMs: number;
  /** How long a worker's claim on a run lasts without a heartbeat (takeover after a crash). */
  runLeaseMs: number;
  /** On SIGTERM/SIGINT, how long running attempts may take to finish before their runs are handed back. */
  shutdownGraceMs: number;
  /** How a model request waits out a provider's refusals for load (src/engine/model-request-retry.ts). */
  providerRetry: { budgetMs: number; maxWaitMs: number; baseMs: number; maxRetries: number };
  /** Connections in the service's database pool (each process: service or worker). */
  databasePoolSize: number;
  /** In-process vector indexes of built-in memories kept at most: memories, and bytes of vectors (least recently searched dropped first). */
  memoryIndexMaxMemories: number;
  memoryIndexMaxBytes: number;
  /** How long a search waits for its memory's vector index to load before answering 503 `index_loading`. */
  memoryIndexWaitMs: number;
  /** Warm at start the indexes of the memories searched within this many hours (0: no warm-up). */
  memoryIndexWarmHours: number;
  /** Name repeated statements so connections keep their plans (off behind a pooler without prepared-statement support). */
  databasePreparedStatements: boolean;
  /** Embedded PostgreSQL parameters over the built-in sizing (EMBEDDED_PG_SETTINGS="shared_buffers=128MB work_mem=8MB"). */
  embeddedPgSettings: Record<string, string>;
  /** Embedded PostgreSQL: turn off fsync (tests only; never for data you keep). */
  embeddedFastUnsafe: boolean;
  /** Embedded PostgreSQL: connect through a Unix-domain socket in DATA_DIR/socket (TCP when false). */
  embeddedSocket: boolean;
  /** Embedded PostgreSQL: run it under Linux's SCHED_BATCH policy where `chrt` allows (opt-in; storage/embedded-scheduling.ts). */
  embeddedBatchScheduling: boolean;
  /** Web push: VAPID keys from config; when absent they are generated on first start and stored. */
  vapidPublicKey: string | null;
  vapidPrivateKey: string | null;
  vapidSubject: string;
  /** A PEM file of extra certificate authorities trusted for push service endpoints (self-hosted push services, tests). */
  pushCaFile: string | null;
  /** Web push on or off (GET /api/push/configuration reports it). */
  pushEnabled: boolean;
  /** A user active in the UI within this many seconds gets no run notifications. */
  pushActiveWindowSeconds: number;
  /** Presence entries expire this many seconds after the participant was last seen. */
  presenceTtlSeconds: number;
  /** Device pairings expire this many seconds after the request. */
  pairingTtlSeconds: number;
  /** POST /api/envd/pair requests per client address per minute. */
  pairingRateLimitPerMinute: number;
  /**
   * RATE_LIMIT_PER_KEY: requests per API key and per login session (`1200/60s`; quota 0: no limit),
   * shared by every instance (docs/api/README.md, "Rate limits"). A key's own `rate_limit` overrides it.
   */
  rateLimitPerKey: RateLimitPolicy;
  /** How long the service waits for a device to answer a relayed request. */
  deviceRequestTimeoutMs: number;
  /** Webhook deliveries this process sends at once (0: this process delivers none). */
  webhookDeliveryConcurrency: number;
  /** Delays before each retry of a failed webhook delivery, in ms (jittered by ±20 %); its length is the number of retries. */
  webhookRetryDelaysMs: number[];
  /** How long one delivery attempt may take (connect, send, answer). */
  webhookTimeoutMs: number;
  /** How much of a receiver's answer is read (and kept, up to 1 KiB) before the connection is closed. */
  webhookMaxResponseBytes: number;
  /** A subscription is disabled after this many deliveries in a row failed for good. */
  webhookDisableAfterFailures: number;
  /**
   * The targets outside the public internet (private, loopback, link-local, …) that requests made on a
   * caller's behalf may reach: host names and CIDR ranges, `*` for all (OUTBOUND_ALLOW_PRIVATE, with
   * WEBHOOK_ALLOW_PRIVATE_TARGETS as an alias). Default: loopback on the embedded database, else none.
   */
  outboundAllowPrivate: OutboundAllowance;
  /**
   * Settled webhook deliveries (succeeded, or failed for good) this many days after they settled, and
   * events left without deliveries this many days after they were written, are deleted by the
   * workers' maintenance (WEBHOOK_RETENTION_DAYS). Pending deliveries are kept whatever their age.
   */
  webhookRetentionDays: number;
  /**
   * Where run traces are exported by OTLP/HTTP (the full traces URL), or null: stored only.
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`.
   */
  otlpTracesEndpoint: string | null;
  /** The `service.name` resource attribute of exported spans (OTEL_SERVICE_NAME). */
  otelServiceName: string;
  /** Stored trace spans older than this many days are deleted by the workers' maintenance (TRACE_RETENTION_DAYS). */
  traceRetentionDays: number;
  /**
   * The items of a sealed run are removed this many days after it sealed, unless a client can still
   * resume the run or it is the latest run of an open thread (RUN_ITEM_RETENTION_DAYS); 0 keeps them
   * forever. The run itself, its output and its thread's history stay.
   */
  runItemRetentionDays: number;
  /** Finished inbox entries are deleted this many days after they finished (INBOX_RETENTION_DAYS); 0 keeps them forever. */
  inboxRetentionDays: number;
  /** Audit rows older than this many days are deleted (AUDIT_RETENTION_DAYS); 0 keeps them forever. */
  auditRetentionDays: number;
}

export interface GraphQLLimits {
  /** Tokens in a document (counted while parsing, so a huge document is refused early). */
  maxTokens: number;
  /** Aliases in one operation, fragments included. */
  maxAliases: number;
  /** Nesting depth of one operation (introspection has its own bound, graphql-js's). */
  maxDepth: number;
  /** Cost of one operation: every object 2, every scalar 1, times 1.5 per level of depth. */
  maxCost: number;
  /** Directives in one operation. */
  maxDirectives: number;
  /** Root fields (distinct response keys) of one query; `__typename` does not count. */
  maxRootFields: number;
  /** Root fields of one mutation (mutations run one after another, each with its effects). */
  maxMutationFields: number;
}

export class ConfigError extends Error {}

/** ASSET_S3_*: all optional but the bucket; checked here so a bad setting stops start-up with its name. */
function assetS3(env: NodeJS.ProcessEnv): AssetS3Config | null {
  const bucket = env.ASSET_S3_BUCKET?.trim();
  const others = Object.keys(env).filter((name) => name.startsWith('ASSET_S3_') && name !== 'ASSET_S3_BUCKET' && env[name]?.trim());
  if (!bucket) {
    if (others.length > 0) throw new ConfigError(`${others.sort().join(', ')} set without ASSET_S3_BUCKET`);
    return null;
  }
  // S3's bucket naming rules (lower case, digits, dots, hyphens; 3–63), which the compatible stores share.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(`ASSET_S3_BUCKET must be a bucket name (3-63 of a-z, 0-9, '.', '-'), got ${JSON.stringify(bucket)}`);
  const endpointRaw = env.ASSET_S3_ENDPOINT?.trim() || null;
  let endpoint: string | null = null;
  if (endpointRaw) {
    let url: URL;
    try {
      url = new URL(endpointRaw);
    } catch {
      throw new ConfigError(`ASSET_S3_ENDPOINT must be an http(s) URL, got ${JSON.stringify(endpointRaw)}`);
    }
    if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash)
      throw new ConfigError(`ASSET_S3_ENDPOINT must be an http(s) URL without query, got ${JSON.stringify(endpointRaw)}`);
    endpoint = url.toString().replace(/\/$/, '');
  }
  const region = env.ASSET_S3_REGION?.trim() || env.AWS_REGION?.trim() || (endpoint ? 'us-east-1' : '');
  if (!region) throw new ConfigError('ASSET_S3_REGION (or AWS_REGION) is required with ASSET_S3_BUCKET when no ASSET_S3_ENDPOINT is set');
  if (!/^[a-z0-9-]{1,64}$/.test(region))
    throw new ConfigError(`ASSET_S3_REGION must be a region name such as eu-west-1, got ${JSON.stringify(region)}`);
  const prefix = (env.ASSET_S3_PREFIX ?? '').trim().replace(/^\/+|\/+$/g, '');
  // S3's "safe" key characters only, and no empty, `.` or `..` segments.
  const badPrefix =
    prefix.length > 512 || !/^[A-Za-z0-9!_.*'()/-]*$/.test(prefix) || prefix.split('/').some((part) => ['', '.', '..'].includes(part));
  if (prefix !== '' && badPrefix)
    throw new ConfigError(`ASSET_S3_PREFIX must be a key prefix such as assets or team/assets, got ${JSON.stringify(prefix)}`);
  const accessKeyId = env.ASSET_S3_ACCESS_KEY_ID?.trim() || '';
  const secretAccessKey = env.ASSET_S3_SECRET_ACCESS_KEY?.trim() || '';
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new ConfigError('ASSET_S3_ACCESS_KEY_ID and ASSET_S3_SECRET_ACCESS_KEY must be set together');
  return {
    bucket,
    endpoint,
    region,
    prefix,
    forcePathStyle: boolean(env, 'ASSET_S3_FORCE_PATH_STYLE', false),
    credentials: accessKeyId ? { accessKeyId, secretAccessKey } : null,
  };
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function rateLimit(env: NodeJS.ProcessEnv, name: string, fallback: string): RateLimitPolicy {
  const raw = env[name]?.trim() || fallback;
  const parsed = parseRateLimit(raw);
  if ('problem' in parsed) throw new ConfigError(`${name}: ${parsed.problem}, got ${JSON.stringify(raw)}`);
  return parsed;
}

/** METRICS_TOKEN: at least 16 characters, so that a short guessable token cannot open the endpoint. */
function metricsToken(env: NodeJS.ProcessEnv): string | null {
  const raw = env.METRICS_TOKEN?.trim();
  if (!raw) return null;
  if (!/^[!-~]{16,256}$/.test(raw)) throw new ConfigError('METRICS_TOKEN must be 16 to 256 printable characters without spaces');
  return raw;
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

/** The OTLP/HTTP traces URL, by the OpenTelemetry exporter rules: the signal's own variable as is, else the base + /v1/traces. */
function otlpTracesEndpoint(env: NodeJS.ProcessEnv): string | null {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const name = own ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const raw = own || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : '');
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got ${JSON.stringify(own || base)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${name} must be an http(s) URL, got ${JSON.stringify(own || base)}`);
  return url.toString();
}

function graphqlLimits(env: NodeJS.ProcessEnv): GraphQLLimits {
  // Defaults leave room above the largest trusted document (the REST shim's: 51 aliases, depth 9,
  // cost 1,120, 276 tokens, 1 root field) and the standard introspection query (163 tokens).
  return {
    maxTokens: integer(env, 'GRAPHQL_MAX_TOKENS', 2000, 100, 1_000_000),
    maxAliases: integer(env, 'GRAPHQL_MAX_ALIASES', 100, 0, 100_000),
    maxDepth: integer(env, 'GRAPHQL_MAX_DEPTH', 12, 2, 1000),
    maxCost: integer(env, 'GRAPHQL_MAX_COST', 20_000, 10, 10_000_000),
    maxDirectives: integer(env, 'GRAPHQL_MAX_DIRECTIVES', 50, 0, 10_000),
    maxRootFields: integer(env, 'GRAPHQL_MAX_ROOT_FIELDS', 20, 1, 10_000),
    maxMutationFields: integer(env, 'GRAPHQL_MAX_MUTATION_FIELDS', 10, 1, 10_000),
  };
}

function publicUrl(env: NodeJS.ProcessEnv): string | null {
  const raw = env.PUBLIC_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_URL must be an http(s) URL');
  }
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash)
    throw new ConfigError('PUBLIC_URL must be an http(s) URL without query or fragment');
  return url.href.replace(/\/+$/, '');
}

function vapid(env: NodeJS.ProcessEnv): Pick<Config, 'vapidPublicKey' | 'vapidPrivateKey' | 'vapidSubject'> {
  const publicKey = env.VAPID_PUBLIC_KEY?.trim() || null;
  const privateKey = env.VAPID_PRIVATE_KEY?.trim() || null;
  if (Boolean(publicKey) !== Boolean(privateKey)) throw new ConfigError('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must be set together');
  if (publicKey && (!/^[A-Za-z0-9_-]+$/.test(publicKey) || Buffer.from(publicKey, 'base64url').length !== 65)) {
    throw new ConfigError('VAPID_PUBLIC_KEY must be a base64url P-256 public key (65 bytes, uncompressed)');
  }
  if (privateKey && (!/^[A-Za-z0-9_-]+$/.test(privateKey) || Buffer.from(privateKey, 'base64url').length !== 32)) {
    throw new ConfigError('VAPID_PRIVATE_KEY must be a base64url P-256 private key (32 bytes)');
  }
  const subject = env.VAPID_SUBJECT?.trim() || 'mailto:operator@localhost';
  if (!/^(mailto:|https:\/\/)/.test(subject)) throw new ConfigError('VAPID_SUBJECT must be a mailto: or https: URL');
  return { vapidPublicKey: publicKey, vapidPrivateKey: privateKey, vapidSubject: subject };
}

/** MCP_AGENT_LABEL: one label selector, `key:value`, as the agent list's `label` filter takes it. */
function mcpAgentLabel(env: NodeJS.ProcessEnv): string | null {
  const value = env.MCP_AGENT_LABEL?.trim() || null;
  if (value !== null && !/^[^:\s]+:[^\s]*$/.test(value))
    throw new ConfigError(`MCP_AGENT_LABEL must be key:value, got ${JSON.stringify(value)}`);
  return value;
}

function plainHttpAllowance(raw: string | undefined): boolean | string[] {
  const value = raw?.trim() ?? '';
  if (value === '' || /^(0|false|no|off)$/i.test(value)) return false;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  return value
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * OUTBOUND_ALLOW_PRIVATE, and WEBHOOK_ALLOW_PRIVATE_TARGETS (its older name, from when only webhooks
 * were checked): their entries together. Neither set: a server deployment (DATABASE_URL) allows no
 * private target and no unix socket (a workspace member who may write a provider must not reach
 * the host's container engine); the embedded single-user service allows loopback and unix sockets,
 * where its user's own model servers, tools and container engine usually are.
 */
function outboundAllowance(env: NodeJS.ProcessEnv, serverDeployment: boolean): OutboundAllowance {
  const set = (name: string) => env[name] !== undefined && env[name]!.trim() !== '';
  if (!set('OUTBOUND_ALLOW_PRIVATE') && !set('WEBHOOK_ALLOW_PRIVATE_TARGETS'))
    return serverDeployment ? [] : ['127.0.0.0/8', '::1', 'localhost', 'unix:*'];
  try {
    return [
      ...parseAllowance(env.OUTBOUND_ALLOW_PRIVATE, 'OUTBOUND_ALLOW_PRIVATE'),
      ...parseAllowance(env.WEBHOOK_ALLOW_PRIVATE_TARGETS, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'),
    ];
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** "name=value name=value" (spaces or commas between): PostgreSQL parameter names and values without spaces. */
function postgresSettings(raw: string | undefined): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const pair of (raw ?? '').split(/[\s,]+/).filter(Boolean)) {
    const match = /^([a-z_][a-z0-9_.]*)=([^\s=]+)$/i.exec(pair);
    if (!match) throw new ConfigError(`EMBEDDED_PG_SETTINGS must be name=value pairs separated by spaces, got ${JSON.stringify(pair)}`);
    settings[match[1]!.toLowerCase()] = match[2]!;
  }
  return settings;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  // Production unless told otherwise (unset or any other value): a plain `npm start` must never
  // serve development conveniences; `npm run dev` sets development.
  const nodeEnv: Config['env'] = env.NODE_ENV === 'development' ? 'development' : env.NODE_ENV === 'test' ? 'test' : 'production';
  const databaseUrl = env.DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const bootstrapApiKey = env.BOOTSTRAP_API_KEY?.trim() || null;
  if (bootstrapApiKey && !/^wsk_[A-Za-z0-9_-]{16,200}$/.test(bootstrapApiKey)) {
    throw new ConfigError('BOOTSTRAP_API_KEY must look like wsk_ followed by at least 16 characters of [A-Za-z0-9_-]');
  }
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  return {
    env: nodeEnv,
    host: env.HOST?.trim() || '127.0.0.1',
    port: integer(env, 'PORT', 8080, 0, 65535),
    httpAcceptSockets: integer(env, 'HTTP_ACCEPT_SOCKETS', 16, 1, 64),
    publicUrl: publicUrl(env),
    dataDir: resolve(env.DATA_DIR?.trim() || './.data'),
    databaseUrl,
    secretKey: env.SECRET_KEY?.trim() || null,
    secretKeyPrevious: (env.SECRET_KEY_PREVIOUS ?? '')
      .split(',')
      .map((value) => value.trim())
      .filter(Boolean),
    logLevel,
    bootstrapApiKey,
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1024 * 1024, 1024),
    assetMaxBytes: integer(env, 'ASSET_MAX_BYTES', 100 * 1024 * 1024, 1, 2 ** 31 - 1),
    assetInlineMaxBytes: integer(env, 'ASSET_INLINE_MAX_BYTES', 256 * 1024, 0, 64 * 1024 * 1024),
    assetS3: assetS3(env),
    loginSessionTtlSeconds: integer(env, 'LOGIN_SESSION_TTL_SECONDS', 14 * 24 * 3600, 60),
    idempotencyTtlSeconds: integer(env, 'IDEMPOTENCY_TTL_SECONDS', 24 * 3600, 60),
    consoleEnabled: boolean(env, 'CONSOLE_ENABLED', true),
    mcpAgentLabel: mcpAgentLabel(env),
    mcpToolsListTtlSeconds: integer(env, 'MCP_TOOLS_LIST_TTL_SECONDS', 10, 0, 3600),
    metricsToken: metricsToken(env),
    metricsAdminKeys: boolean(env, 'METRICS_ADMIN_KEYS', false),
    metricsPort: env.METRICS_PORT?.trim() ? integer(env, 'METRICS_PORT', 0, 0, 65_535) : null,
    metricsHost: env.METRICS_HOST?.trim() || '127.0.0.1',
    graphiql: boolean(env, 'GRAPHIQL', nodeEnv === 'development'),
    graphqlIntrospection: oneOf(env, 'GRAPHQL_INTROSPECTION', ['authenticated', 'public', 'off'] as const, 'authenticated'),
    graphqlIntrospectionCache: boolean(env, 'GRAPHQL_INTROSPECTION_CACHE', true),
    graphqlLimits: graphqlLimits(env),
    graphqlTimeoutMs: integer(env, 'GRAPHQL_TIMEOUT_MS', 30_000, 0, 3_600_000),
    embeddedFastUnsafe: boolean(env, 'EMBEDDED_PG_FAST_UNSAFE', false),
    embeddedSocket: boolean(env, 'EMBEDDED_PG_SOCKET', true),
    embeddedBatchScheduling: boolean(env, 'EMBEDDED_PG_BATCH_SCHEDULING', false),
    embeddedPgSettings: postgresSettings(env.EMBEDDED_PG_SETTINGS),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    memoryIndexMaxMemories: integer(env, 'MEMORY_INDEX_MAX_MEMORIES', 256, 1, 100_000),
    memoryIndexMaxBytes: integer(env, 'MEMORY_INDEX_MAX_MB', 1024, 16, 1_048_576) * 1024 * 1024,
    memoryIndexWaitMs: integer(env, 'MEMORY_INDEX_WAIT_MS', 10_000, 0, 3_600_000),
    memoryIndexWarmHours: integer(env, 'MEMORY_INDEX_WARM_HOURS', 168, 0, 100_000),
    databasePreparedStatements: boolean(env, 'DATABASE_PREPARED_STATEMENTS', true),
    redisUrl: env.REDIS_URL?.trim() || null,
    allowPlainHttpEndpoints: plainHttpAllowance(env.ALLOW_PLAIN_HTTP_ENDPOINTS),
    allowLocalEnvironments: boolean(env, 'ALLOW_LOCAL_ENVIRONMENTS', false),
    allowDevelopmentModels: boolean(env, 'ALLOW_DEVELOPMENT_MODELS', nodeEnv !== 'production' || !databaseUrl),
    allowStdioConnectors: boolean(env, 'ALLOW_STDIO_CONNECTORS', false),
    runWorkers: integer(env, 'RUN_WORKERS', 8, 0, 1000),
    runPreparingLimit: integer(env, 'RUN_PREPARING_LIMIT', integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000), 1, 1000),
    runPreparingHoldMs: integer(env, 'RUN_PREPARING_HOLD_MS', 1000, 0, 600_000),
    runLeaseMs: integer(env, 'RUN_LEASE_MS', 30_000, 1000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 5_000, 0, 600_000),
    // A provider's refusals for load (429, 503, 529): how long one model request waits them out
    // (src/engine/model-request-retry.ts; docs/api/providers.md, "Rate limits and fallback models").
    providerRetry: {
      budgetMs: integer(env, 'PROVIDER_RATE_LIMIT_BUDGET_MS', 120_000, 0, 3_600_000),
      maxWaitMs: integer(env, 'PROVIDER_RATE_LIMIT_MAX_WAIT_MS', 30_000, 0, 3_600_000),
      baseMs: integer(env, 'PROVIDER_RATE_LIMIT_BACKOFF_MS', 500, 1, 60_000),
      maxRetries: integer(env, 'PROVIDER_RATE_LIMIT_RETRIES', 8, 0, 1000),
    },
    ...vapid(env),
    pushEnabled: boolean(env, 'PUSH_ENABLED', true),
    pushCaFile: env.PUSH_CA_FILE?.trim() ? resolve(env.PUSH_CA_FILE.trim()) : null,
    pushActiveWindowSeconds: integer(env, 'PUSH_ACTIVE_WINDOW_SECONDS', 120, 0, 86_400),
    presenceTtlSeconds: integer(env, 'PRESENCE_TTL_SECONDS', 60, 1, 86_400),
    pairingTtlSeconds: integer(env, 'PAIRING_TTL_SECONDS', 600, 1, 86_400),
    pairingRateLimitPerMinute: integer(env, 'PAIRING_RATE_LIMIT_PER_MINUTE', 20, 1, 100_000),
    rateLimitPerKey: rateLimit(env, 'RATE_LIMIT_PER_KEY', '1200/60s'),
    deviceRequestTimeoutMs: integer(env, 'DEVICE_REQUEST_TIMEOUT_MS', 10_000, 100, 600_000),
    webhookDeliveryConcurrency: integer(env, 'WEBHOOK_DELIVERY_CONCURRENCY', 4, 0, 1000),
    webhookRetryDelaysMs: retrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookMaxResponseBytes: integer(env, 'WEBHOOK_MAX_RESPONSE_BYTES', 64 * 1024, 0, 16 * 1024 * 1024),
    webhookDisableAfterFailures: integer(env, 'WEBHOOK_DISABLE_AFTER_FAILURES', 5, 1, 10_000),
    outboundAllowPrivate: outboundAllowance(env, databaseUrl !== null),
    webhookRetentionDays: integer(env, 'WEBHOOK_RETENTION_DAYS', 30, 1, 36_500),
    otlpTracesEndpoint: otlpTracesEndpoint(env),
    otelServiceName: env.OTEL_SERVICE_NAME?.trim() || 'workspace-agent-service',
    traceRetentionDays: integer(env, 'TRACE_RETENTION_DAYS', 30, 1, 36_500),
    // 0 (keep forever) is allowed for these three: an operator may have to keep them for good.
    runItemRetentionDays: integer(env, 'RUN_ITEM_RETENTION_DAYS', 90, 0, 36_500),
    inboxRetentionDays: integer(env, 'INBOX_RETENTION_DAYS', 90, 0, 36_500),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 365, 0, 36_500),
    ...overrides,
  };
}

/**
 * WEBHOOK_RETRY_SCHEDULE: seconds before each retry, comma-separated. The default spreads ten
 * retries over about a day (5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 6 h, 8 h: 21 h 47 min).
 */
function retrySchedule(value: string | undefined): number[] {
  const text = value?.trim() || '5,30,120,600,1800,3600,7200,14400,21600,28800';
  const delays = text.split(',').map((part) => Number(part.trim()));
  if (delays.length > 50 || delays.some((delay) => !Number.isFinite(delay) || delay < 0 || delay > 7 * 86_400))
    throw new Error('WEBHOOK_RETRY_SCHEDULE must list at most 50 delays in seconds (0 to 604800), comma-separated');
  return delays.map((delay) => Math.round(delay * 1000));
}
