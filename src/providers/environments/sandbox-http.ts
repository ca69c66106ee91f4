// The HTTP plumbing the hosted sandbox drivers (E2B, Daytona) share: a JSON call to a vendor's API
// whose transport failures become `unavailable` driver errors naming the service, and the reading of
// a vendor's error body into one sentence.
import { posix } from 'node:path';
import { EnvironmentDriverError, type EnvironmentDriverContext } from '../environment-driver.js';

/** Calls to a vendor's control plane or a sandbox's daemon give up after this long unless told otherwise. */
export const SANDBOX_HTTP_TIMEOUT_MS = 60_000;

/** An answer a vendor's API gave with a status the caller did not expect. */
export class SandboxApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxApiError';
  }
}

export interface SandboxRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** A JSON body (sent as application/json), or a prepared body (FormData, bytes) sent as is. */
  json?: unknown;
  body?: BodyInit;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Names the service in messages: `could not reach <service>: …`. */
  service: string;
  /** The outbound policy's fetch (the driver context's). */
  fetch: typeof fetch;
}

/** The sentence a vendor's error body carries (`message`, `error`, or the text), else the status. */
export function messageOfBody(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown };
    const message = Array.isArray(body.message) ? body.message.join('; ') : body.message;
    if (typeof message === 'string' && message) return message;
    if (typeof body.error === 'string' && body.error) return body.error;
  } catch {
    // not JSON
  }
  return text.trim().slice(0, 500) || `HTTP ${status}`;
}

/** A transport failure (refused, reset, a DNS miss, a timeout) as the `unavailable` driver error. */
export function unreachable(service: string, error: unknown): EnvironmentDriverError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason =
    (error as Error).name === 'TimeoutError' ? 'no answer in time' : (cause?.code ?? cause?.message ?? (error as Error).message);
  return new EnvironmentDriverError('unavailable', `could not reach ${service}: ${reason}`);
}

/**
 * An error met while working with a vendor (`who`: "the E2B API", "the Daytona sandbox") as a driver
 * error: a driver error stays as it is, an unexpected status names the vendor, anything else is `unavailable`.
 */
export function vendorProblem(who: string, error: unknown): EnvironmentDriverError {
  if (error instanceof EnvironmentDriverError) return error;
  if (error instanceof SandboxApiError)
    return new EnvironmentDriverError('unavailable', `${who} answered ${error.status}: ${error.message}`);
  return new EnvironmentDriverError('unavailable', (error as Error).message);
}

/**
 * Stop, start or destroy work on a vendor's control plane for one instance: `forget` first drops the
 * instance's cached daemon address (it is asked for again next time), and a problem becomes a driver
 * error naming the API (`api`, as vendorProblem).
 */
export async function controlPlaneWork<T>(api: string, forget: () => void, work: () => Promise<T>): Promise<T> {
  forget();
  try {
    return await work();
  } catch (error) {
    throw vendorProblem(api, error);
  }
}

/** Sends a request; answers the response whatever its status (the caller decides), or throws `unavailable`. */
export async function sandboxFetch(req: SandboxRequest): Promise<Response> {
  const timeout = AbortSignal.timeout(req.timeoutMs ?? SANDBOX_HTTP_TIMEOUT_MS);
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  let body = req.body;
  if (req.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(req.json);
  }
  try {
    return await req.fetch(req.url, {
      method: req.method,
      headers,
      body,
      signal: req.signal ? AbortSignal.any([req.signal, timeout]) : timeout,
    });
  } catch (error) {
    if (req.signal?.aborted) throw error;
    throw unreachable(req.service, error);
  }
}

/** A JSON call that must answer one of `ok` statuses: the parsed body (null when empty or not JSON), else a SandboxApiError. */
export async function sandboxJson<T>(req: SandboxRequest, ok: number[]): Promise<{ status: number; body: T }> {
  const response = await sandboxFetch(req);
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw unreachable(req.service, error);
  }
  if (!ok.includes(response.status)) throw new SandboxApiError(response.status, messageOfBody(response.status, text));
  // An answer whose body is not JSON (an empty 200 to a DELETE, a proxy's page) reads as null: the
  // callers that need a member check for it.
  let body: T | null;
  try {
    body = text ? (JSON.parse(text) as T) : null;
  } catch {
    body = null;
  }
  return { status: response.status, body: body as T };
}

/** Reads at most `maxBytes` of a response body and stops reading (the rest is never downloaded whole). */
export async function readAtMost(response: Response, maxBytes: number, service: string): Promise<Buffer> {
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let kept = 0;
  try {
    while (kept < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.length > maxBytes - kept ? value.subarray(0, maxBytes - kept) : value;
      chunks.push(Buffer.from(part));
      kept += part.length;
    }
  } catch (error) {
    throw unreachable(service, error);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks);
}

/** How a hosted sandbox vendor's control plane is reached with the provider's configuration and key. */
export interface ControlPlane {
  /** The vendor's name in messages ("Daytona refused the API key: …"). */
  vendor: string;
  /** Names the API in transport failures (`could not reach <service>: …`). */
  service: string;
  apiUrl(ctx: EnvironmentDriverContext): string;
  headers(ctx: EnvironmentDriverContext): Record<string, string>;
}

/**
 * The JSON call of one vendor's control plane: `(ctx, method, path, ok statuses, json?, signal?)`. A key
 * the vendor refuses (401, 403) makes the environment `unavailable`, in words the caller can act on.
 */
export function controlPlaneApi(plane: ControlPlane) {
  return async function call<T>(
    ctx: EnvironmentDriverContext,
    method: string,
    path: string,
    ok: number[],
    json?: unknown,
    signal?: AbortSignal,
  ): Promise<{ status: number; body: T }> {
    try {
      return await sandboxJson<T>(
        { method, url: `${plane.apiUrl(ctx)}${path}`, headers: plane.headers(ctx), json, signal, service: plane.service, fetch: ctx.fetch },
        ok,
      );
    } catch (error) {
      if (error instanceof SandboxApiError && (error.status === 401 || error.status === 403))
        throw new EnvironmentDriverError('unavailable', `${plane.vendor} refused the API key: ${error.message}`);
      throw error;
    }
  };
}

/**
 * A file read's answer: at most `maxBytes` of the body — one byte more is read, so a file that grew
 * since it was listed still says it was cut — and its size, the larger of the listed and the read.
 */
export async function boundedFileRead(response: Response, maxBytes: number, listedSize: unknown, service: string) {
  const content = await readAtMost(response, maxBytes + 1, service);
  const kept = content.subarray(0, maxBytes);
  const sizeBytes = Math.max(Number(listedSize ?? 0), content.length);
  return { content: kept, sizeBytes, truncated: content.length > maxBytes || sizeBytes > kept.length };
}

/**
 * Sends a file's bytes as the `file` part of a multipart form named after the file (Daytona's toolbox
 * and E2B's envd take uploads this way): the bytes it sent, and the daemon's answer.
 */
export async function uploadFile(
  req: Omit<SandboxRequest, 'method' | 'json' | 'body'>,
  file: string,
  content: string | Buffer,
): Promise<{ bytes: Buffer; response: Response }> {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), posix.basename(file));
  return { bytes, response: await sandboxFetch({ ...req, method: 'POST', body: form }) };
}
