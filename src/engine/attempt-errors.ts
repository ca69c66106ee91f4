// How the engine reads an error: whether another attempt may help, and the message the run records.
import { outboundRefusalOf } from '../lib/outbound-policy.js';
import { APICallError } from '@ai-sdk/provider';
import { isAppError } from '../lib/errors.js';

/** Whether a failed attempt deserves another one (provider said so: rate limits, 5xx, timeouts). */
export function isTransient(error: unknown): boolean {
  // The outbound policy's refusal holds until the deployment changes: another attempt would be refused too.
  if (outboundRefusalOf(error)) return false;
  if (APICallError.isInstance(error)) return error.isRetryable;
  const code = (error as { code?: string }).code;
  return code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'ETIMEDOUT';
}

export function describeError(error: unknown): string {
  if (isAppError(error)) return error.message;
  // A refusal by the outbound policy, however deep the client wrapped it ("fetch failed", "Cannot connect to API").
  const refusal = outboundRefusalOf(error);
  if (refusal) return refusal.message;
  return error instanceof Error ? error.message : String(error);
}
