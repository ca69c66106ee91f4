// What every service function receives: the long-lived parts of the app, and who is calling.
import type { Config } from '../config.js';
import type { Db } from '../db.js';
import type { SecretBox } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import type { RateLimitPolicy } from '../lib/rate-limit-policy.js';
import type { Events } from './event-topics.js';
import type { RunTracer } from '../traces/run-tracer.js';

export interface Deps {
  db: Db;
  config: Config;
  logger: Logger;
  secrets: SecretBox;
  events: Events;
  /** Run traces: spans stored with their runs, exported by OTLP/HTTP when configured. */
  tracer: RunTracer;
}

export const PERMISSIONS = ['read', 'write', 'admin', 'run'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = {
  admin: ['read', 'write', 'admin', 'run'],
  writer: ['read', 'write', 'run'],
  reader: ['read'],
} as const satisfies Record<string, readonly Permission[]>;
export type Role = keyof typeof ROLES;

/** The authenticated caller, always bound to exactly one workspace. */
export interface Actor {
  principalId: string; // key_… for API keys, usr_… for users
  principalKind: 'api_key' | 'user';
  workspaceId: string;
  organizationId: string;
  permissions: ReadonlySet<Permission>;
  loginSessionId: string | null;
  /** An API key's own request-rate limit; absent or null: the service's RATE_LIMIT_PER_KEY. */
  rateLimit?: RateLimitPolicy | null;
}

/** Who changes rows when nobody is calling (bootstrap, migrations of data). */
export const SYSTEM_PRINCIPAL = 'system';
