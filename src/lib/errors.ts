// One table of error codes and their HTTP statuses, used by the GraphQL surface
// (`extensions.code`) and by the REST shim (status + `{"error": {...}}` body).
import { GraphQLError } from 'graphql';

export const ERROR_STATUS = {
  invalid_argument: 400,
  unauthenticated: 401,
  forbidden: 403,
  permission_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_reused: 409,
  disabled: 409,
  model_required: 409,
  failed_precondition: 409,
  archived: 409,
  device_offline: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** A download's Range lies outside the content. */
  range_not_satisfiable: 416,
  validation_failed: 422,
  precondition_required: 428,
  rate_limited: 429,
  /** A `block` budget of the run's workspace, agent or API key is spent for its period. */
  budget_exceeded: 429,
  /** Answered by the HTTP server itself (app.ts, clientError): request line and headers over the limit. */
  headers_too_large: 431,
  /** Answered by the HTTP server itself: the request did not arrive in time. */
  request_timeout: 408,
  internal: 500,
  unavailable: 503,
  deadline_exceeded: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The `Retry-After` (seconds) of every `unavailable` answer: about how long PostgreSQL or Redis takes
 * to come back from a restart or a failover, and long enough that waiting callers do not hammer a
 * service whose pool is reconnecting.
 */
export const RETRY_AFTER_SECONDS = 5;

/** The dependencies an `unavailable` answer names (`details.dependency`), as /readyz names them. */
export type Dependency = 'database' | 'redis';

/** The `Retry-After` header value an answer with this code carries, or null. */
export function retryAfterFor(code: string): string | null {
  return code === 'unavailable' ? String(RETRY_AFTER_SECONDS) : null;
}

export function statusForCode(code: string): number {
  return (ERROR_STATUS as Record<string, number>)[code] ?? 500;
}

export interface ErrorDetails {
  /** The offending field, as a path in the request's own naming (snake_case for REST bodies). */
  field?: string;
  [key: string]: unknown;
}

/** A failure meant for the caller. Anything else that escapes is reported as `internal`. */
export class AppError extends GraphQLError {
  readonly code: ErrorCode;
  readonly details?: ErrorDetails;
  /** A brand instead of `instanceof`, which fails when a module is loaded twice (e.g. by test runners). */
  readonly isAppError = true;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message, {
      extensions: {
        code,
        ...(details ? { details } : {}),
        // Yoga answers with the status and headers of `http`; the REST shim sets the same (retryAfterFor).
        http: {
          status: statusForCode(code),
          ...(code === 'unavailable' ? { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } } : {}),
        },
      },
    });
    this.code = code;
    this.details = details;
  }
}

export const invalidArgument = (message: string, field?: string, extra?: Record<string, unknown>) =>
  new AppError('invalid_argument', message, field || extra ? { ...(field ? { field } : {}), ...extra } : undefined);
export const notFound = (kind: string, id?: string) =>
  new AppError('not_found', id ? `${kind} ${quoteInput(id)} not found` : `${kind} not found`);
export const unauthenticated = (message = 'a valid bearer credential is required') => new AppError('unauthenticated', message);
/** A dependency cannot be reached right now: 503 with `Retry-After`, naming the dependency. */
export const unavailable = (dependency: Dependency) =>
  new AppError('unavailable', `the service cannot reach its ${dependency === 'database' ? 'database' : 'Redis'} right now; retry later`, {
    dependency,
  });
export const permissionDenied = (permission: string) =>
  new AppError('permission_denied', `this operation needs the "${permission}" permission`, { permission });

/** How many characters of a caller's value an error message quotes at most. */
export const MAX_ECHO_CHARS = 64;

/**
 * Quotes a caller-supplied value in a message: JSON-quoted, at most MAX_ECHO_CHARS characters of it,
 * then `…`, so that (say) a 900 KB id never comes back whole in a 404.
 */
export function quoteInput(input: unknown): string {
  const value = typeof input === 'string' ? input : String(JSON.stringify(input) ?? input);
  if (typeof input !== 'string' && value.length <= MAX_ECHO_CHARS) return value;
  if (value.length <= MAX_ECHO_CHARS) return JSON.stringify(value);
  // Never cut a surrogate pair in half.
  const end = /[\uD800-\uDBFF]/.test(value.charAt(MAX_ECHO_CHARS - 1)) ? MAX_ECHO_CHARS - 1 : MAX_ECHO_CHARS;
  return `${JSON.stringify(value.slice(0, end)).slice(0, -1)}…"`;
}

export function isAppError(error: unknown): error is AppError {
  return typeof error === 'object' && error !== null && (error as { isAppError?: unknown }).isAppError === true;
}
