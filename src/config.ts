// Every environment variable the service reads, parsed and validated in one place.
import { resolve } from 'node:path';

export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
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
  loginSessionTtlSeconds: number;
  idempotencyTtlSeconds: number;
  /** Serve GraphiQL on GET /graphql (development). */
  graphiql: boolean;
  /** Run workers inside this process (0: none; use `npm run worker` processes instead). */
  runWorkers: number;
  /** How long a worker's claim on a run lasts without a heartbeat (takeover after a crash). */
  runLeaseMs: number;
  /** Embedded PostgreSQL: turn off fsync (tests only; never for data you keep). */
  embeddedFastUnsafe: boolean;
}

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
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
    dataDir: resolve(env.DATA_DIR?.trim() || './.data'),
    databaseUrl,
    secretKey: env.SECRET_KEY?.trim() || null,
    secretKeyPrevious: (env.SECRET_KEY_PREVIOUS ?? '').split(',').map((value) => value.trim()).filter(Boolean),
    logLevel,
    bootstrapApiKey,
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1024 * 1024, 1024),
    loginSessionTtlSeconds: integer(env, 'LOGIN_SESSION_TTL_SECONDS', 14 * 24 * 3600, 60),
    idempotencyTtlSeconds: integer(env, 'IDEMPOTENCY_TTL_SECONDS', 24 * 3600, 60),
    graphiql: boolean(env, 'GRAPHIQL', nodeEnv === 'development'),
    embeddedFastUnsafe: boolean(env, 'EMBEDDED_PG_FAST_UNSAFE', false),
    runWorkers: integer(env, 'RUN_WORKERS', 8, 0, 1000),
    runLeaseMs: integer(env, 'RUN_LEASE_MS', 30_000, 1000),
    ...overrides,
  };
}
