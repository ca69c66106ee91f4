// The one error type the client throws for an answer the service refused: the service's error code
// (`extensions.code`, from its closed table: not_found, conflict, invalid_argument, …) with the
// message, the details (e.g. `field`, `permission`, `current_etag`) and the HTTP status when there was one.

/** One GraphQL error as the service sends it. */
export interface GraphQLErrorBody {
  message: string;
  path?: readonly (string | number)[];
  extensions?: { code?: string; details?: Record<string, unknown>; [key: string]: unknown };
}

/** The service's error codes (docs/api/README.md, "Errors"); a newer service may send others. */
export type ServiceErrorCode =
  | 'invalid_argument'
  | 'unauthenticated'
  | 'forbidden'
  | 'permission_denied'
  | 'not_found'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'disabled'
  | 'model_required'
  | 'failed_precondition'
  | 'archived'
  | 'device_offline'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'validation_failed'
  | 'precondition_required'
  | 'rate_limited'
  | 'internal'
  | 'unavailable'
  | 'deadline_exceeded'
  | (string & {});

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  /** `extensions.code` of the first error; `transport` when the answer was not a GraphQL answer at all. */
  readonly code: ServiceErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** The HTTP status of the answer (absent over graphql-ws). */
  readonly status: number | undefined;
  /** Every error of the answer (a request can fail in more than one place). */
  readonly errors: readonly GraphQLErrorBody[];

  constructor(errors: readonly GraphQLErrorBody[], status?: number) {
    const first = errors[0];
    super(first?.message ?? 'the service answered with an error');
    this.code = first?.extensions?.code ?? 'transport';
    this.details = first?.extensions?.details;
    this.status = status;
    this.errors = errors;
  }
}

/** Whether `error` is the service's refusal, optionally with the given code. */
export function isServiceError(error: unknown, code?: ServiceErrorCode): error is ServiceError {
  return error instanceof ServiceError && (code === undefined || error.code === code);
}
