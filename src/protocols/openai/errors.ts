// OpenAI's error shape, `{error: {message, type, code, param}}`, for the service's error codes, with
// the HTTP status the service's error table gives each code (src/lib/errors.ts).
import type { Response } from 'express';
import { retryAfterFor, statusForCode } from '../../lib/errors.js';

export interface OpenAIProblem {
  code: string;
  message: string;
  param?: string | null;
  status?: number;
}

/** OpenAI's `type` for a status: what its SDKs and the tools built on them branch on. */
export function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function openAIErrorBody(problem: OpenAIProblem) {
  const status = problem.status ?? statusForCode(problem.code);
  return {
    status,
    body: {
      error: {
        message: problem.message,
        type: errorType(status),
        // OpenAI's code for a refused key, which clients recognise; every other code is the service's own.
        code: status === 401 ? 'invalid_api_key' : problem.code,
        param: problem.param ?? null,
      },
    },
  };
}

export function sendOpenAIError(res: Response, problem: OpenAIProblem) {
  const { status, body } = openAIErrorBody(problem);
  const retryAfter = retryAfterFor(problem.code);
  if (retryAfter) res.setHeader('Retry-After', retryAfter);
  res.status(status).json(body);
}

/** A caller's mistake found by the adapter itself (400, naming the request member). */
export class BadRequest extends Error {
  constructor(
    message: string,
    readonly param: string | null,
    readonly code = 'invalid_argument',
    readonly status = 400,
  ) {
    super(message);
    this.name = 'BadRequest';
  }
}

export const isBadRequest = (error: unknown): error is BadRequest =>
  typeof error === 'object' && error !== null && (error as { name?: string }).name === 'BadRequest';
