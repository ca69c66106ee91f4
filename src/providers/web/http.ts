// One HTTP exchange with a web vendor's API: JSON in and out, the answer's size bounded, and a
// failure turned into one sentence the model can read — the vendor's own error message when it sent
// one, never a credential.
import { fetchFailure } from '../../lib/outbound-policy.js';

/** The most of a vendor's answer that is read (results and extracted pages are far smaller). */
export const MAX_API_ANSWER_BYTES = 8 * 1024 * 1024;

export class WebApiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'WebApiError';
  }
}

/** Reads a body up to `maxBytes`; `truncated` says whether there was more (the rest is not read). */
export async function readLimited(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      size += room;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

/** The error message vendors put in their error bodies, in the shapes they use. */
export function vendorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  for (const candidate of [b.error, b.detail, b.readableMessage, b.message]) {
    if (typeof candidate === 'string' && candidate.trim()) return candidate.trim();
    if (candidate && typeof candidate === 'object') {
      const nested = vendorMessage(candidate);
      if (nested) return nested;
    }
  }
  return undefined;
}

export function scrub(text: string, secrets: readonly string[]): string {
  return secrets.filter((s) => s && s.length >= 4).reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

export interface WebApiCall {
  /** The vendor's name, for messages ("Brave Search answered 401: …"). */
  vendor: string;
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  signal: AbortSignal;
  /** The outbound policy's fetch. */
  fetch: typeof fetch;
  /** Values that must never appear in a message (API keys). */
  secrets: readonly string[];
}

/** Sends one request and returns the answer's JSON, or throws a WebApiError with a readable message. */
export async function callWebApi<T = unknown>(call: WebApiCall): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await call.fetch(call.url, {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: call.signal,
      redirect: 'error',
    });
  } catch (error) {
    if (call.signal.aborted) throw call.signal.reason ?? error;
    throw new WebApiError(scrub(`could not reach ${call.vendor}: ${fetchFailure(error)}`, call.secrets));
  }
  const { bytes, truncated } = await readLimited(response, MAX_API_ANSWER_BYTES);
  const text = new TextDecoder().decode(bytes);
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: handled below
  }
  if (!response.ok) {
    const detail = vendorMessage(body)?.slice(0, 300);
    throw new WebApiError(scrub(`${call.vendor} answered ${response.status}${detail ? `: ${detail}` : ''}`, call.secrets), response.status);
  }
  if (truncated) throw new WebApiError(`${call.vendor} answered with more than ${MAX_API_ANSWER_BYTES} bytes`);
  if (typeof body !== 'object' || body === null) throw new WebApiError(`${call.vendor} answered with something that is not a JSON object`);
  return body as T;
}

export const trimSlash = (url: string) => url.replace(/\/+$/, '');
export const str = (value: unknown): string => (typeof value === 'string' ? value : value == null ? '' : String(value));
