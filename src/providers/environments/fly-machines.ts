// A small client of the Fly Machines API (https://api.machines.dev/v1): JSON over HTTPS with the
// provider's token, scoped to one app. It speaks only what the `fly` environment driver needs —
// machines: create, list, get, wait, start, stop, exec, delete.

import { ControlPlaneError, ControlPlaneUnreachable } from './control-plane.js';

export interface FlyTarget {
  /** The API's root without `/v1` (default https://api.machines.dev). */
  baseUrl: string;
  app: string;
  token: string;
  /** The outbound policy's fetch (the driver context's). */
  fetch: typeof fetch;
}

export const FLY_DEFAULT_BASE_URL = 'https://api.machines.dev';

/** An answer of 400 or more, with the API's own sentence (`{"error": …}`). */
export class FlyError extends ControlPlaneError {
  override name = 'FlyError';
}

/** The API could not be reached at all (refused, no route, timed out). */
export class FlyUnreachable extends ControlPlaneUnreachable {
  override name = 'FlyUnreachable';
}

export interface FlyMachine {
  id: string;
  name: string;
  state: string;
  instance_id?: string;
  region?: string;
  config?: Record<string, unknown>;
}

export interface FlyExecResponse {
  exit_code?: number;
  exit_signal?: number;
  stdout?: string;
  stderr?: string;
}

/**
 * Fly tokens come in two kinds: macaroon tokens (`FlyV1 fm2_…`, as `fly tokens create` prints
 * them) are sent as they are; anything else is an API token sent as a bearer token.
 */
export function authorization(token: string): string {
  const trimmed = token.trim();
  return /^FlyV1 /.test(trimmed) ? trimmed : `Bearer ${trimmed}`;
}

export async function flyCall<T>(
  target: FlyTarget,
  method: string,
  path: string,
  options: { body?: unknown; query?: Record<string, string>; timeoutMs: number; signal?: AbortSignal },
): Promise<T> {
  const root = target.baseUrl.replace(/\/+$/, '');
  const query = options.query ? `?${new URLSearchParams(options.query)}` : '';
  const url = `${root}/v1/apps/${encodeURIComponent(target.app)}${path}${query}`;
  const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
  let res: Response;
  try {
    res = await target.fetch(url, {
      method,
      headers: {
        authorization: authorization(target.token),
        accept: 'application/json',
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.any(signals),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    const why =
      (error as Error).name === 'TimeoutError' ? 'no answer in time' : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new FlyUnreachable(`could not reach the Fly Machines API: ${why}`);
  }
  const text = await res.text();
  if (res.status >= 400) throw new FlyError(res.status, flyMessage(res.status, text));
  if (!text) return null as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return text as T;
  }
}

function flyMessage(status: number, text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof parsed.error === 'string') return `the Fly Machines API answered ${status}: ${parsed.error}`;
    if (typeof parsed.message === 'string') return `the Fly Machines API answered ${status}: ${parsed.message}`;
  } catch {
    // not JSON
  }
  return `the Fly Machines API answered ${status}${text.trim() ? `: ${text.trim().slice(0, 300)}` : ''}`;
}
