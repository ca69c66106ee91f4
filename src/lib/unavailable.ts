// Recognises the failures that mean "a dependency cannot be reached" (PostgreSQL stopped,
// restarting or refusing connections; Redis away) among whatever a request's code let escape, so
// that they answer 503 `unavailable` with Retry-After instead of 500 `internal`. The errors come
// from several layers that wrap each other: pg (SQLSTATEs, socket errno codes, a few messages with
// no code), Prisma's driver adapter (`kind`), Prisma's client (`P1xxx` codes) and ioredis.
import { unavailable, type AppError, type Dependency } from './errors.js';

/** Prisma client codes for a database that cannot be reached or answered no connection in time. */
const PRISMA_CODES = new Set([
  'P1001', // can't reach the database server
  'P1002', // the server was reached but timed out
  'P1008', // operations timed out
  'P1017', // the server closed the connection
  'P2024', // timed out fetching a connection from the pool
  'P2037', // too many connections
]);

/** Prisma driver adapter error kinds with the same meaning. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception) and a server shutting down, crashed,
 * starting up or out of connection slots.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Socket failures (Node errno codes) of a connection to either dependency. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** pg's own connection failures, which carry no code. */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
];

/**
 * Prisma's transaction API when no pool connection came free within the transaction's `maxWait`
 * (P2028, whose other meanings — a transaction already closed, say — are not about reachability).
 */
const PRISMA_MESSAGES = [/Unable to start a transaction in the given time/];

/** ioredis' failures of a command whose connection is down. */
const REDIS_MESSAGES = [/^Connection is closed\.?$/, /^Stream isn't writeable/, /^Reached the max retries per request limit/];

type Cause = Record<string, unknown>;

/** The error and the errors it wraps (cause, originalError, Prisma's driverAdapterError, an AggregateError's errors). */
function* chain(error: unknown, depth = 0): Generator<Cause> {
  if (depth > 6 || typeof error !== 'object' || error === null) return;
  const node = error as Cause;
  yield node;
  yield* chain(node.cause, depth + 1);
  yield* chain(node.originalError, depth + 1);
  yield* chain((node.meta as Cause | undefined)?.driverAdapterError, depth + 1);
  if (Array.isArray(node.errors)) for (const inner of node.errors) yield* chain(inner, depth + 1);
}

/** Which dependency `error` says cannot be reached, or null when it is some other failure. */
export function unreachableDependency(error: unknown): Dependency | null {
  let socket = false;
  for (const node of chain(error)) {
    const name = typeof node.name === 'string' ? node.name : '';
    const message = typeof node.message === 'string' ? node.message : '';
    const code = typeof node.code === 'string' ? node.code : '';
    if (name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((pattern) => pattern.test(message))) return 'redis';
    if (name === 'PrismaClientInitializationError') return 'database';
    if (PRISMA_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return 'database';
    if (typeof node.kind === 'string' && ADAPTER_KINDS.has(node.kind)) return 'database';
    if (PG_MESSAGES.some((pattern) => pattern.test(message))) return 'database';
    if (code === 'P2028' && PRISMA_MESSAGES.some((pattern) => pattern.test(message))) return 'database';
    if (SOCKET_CODES.has(code)) socket = true;
    // A Unix-domain socket whose file is gone (PostgreSQL stopped and removed it): only a connect's
    // ENOENT, not a file's (Prisma keeps the code and pg's message, "connect ENOENT <path>", not the syscall).
    if (code === 'ENOENT' && (node.syscall === 'connect' || /\bconnect ENOENT\b/.test(message))) socket = true;
  }
  // A bare socket failure escaping a request comes from the database pool: Redis commands wait for
  // their connection (src/lib/events.ts) and report with the ioredis errors above.
  return socket ? 'database' : null;
}

/** The 503 answer for an unreachable dependency, or null when `error` is not one. */
export function unavailableFromError(error: unknown): AppError | null {
  const dependency = unreachableDependency(error);
  return dependency ? unavailable(dependency) : null;
}
