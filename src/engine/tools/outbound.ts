// Outbound HTTP from a run's tools: every URL (and every redirect hop) must pass the run's
// `configuration.allowed_hosts` (the one rule of src/lib/allowed-hosts.ts) and the deployment's
// endpoint policy; the response is read up to a size limit and the whole exchange is bounded in
// time and stops with the run's abort signal.
// Uses the platform `fetch` (undici) through the deployment's outbound policy (src/lib/outbound-policy.ts),
// which checks the address of every connection, redirects included.
import { isHostAllowed } from '../../lib/allowed-hosts.js';
import { describeError } from '../attempt-errors.js';
import { checkEndpointUrl, outboundFetch as outboundFetchOf } from '../../features/models/providers.js';
import type { Deps } from '../../services/deps.js';

const MAX_REDIRECTS = 5;

/** The URL a tool may reach, or an error the model is told (allowed hosts, then the endpoint policy). */
export function checkOutboundUrl(deps: Pick<Deps, 'config'>, allowedHosts: readonly string[] | undefined, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`not a URL: ${value.slice(0, 200)}`);
  }
  if (!isHostAllowed(allowedHosts, url))
    throw new Error(`the host ${url.hostname} is not in this run's allowed_hosts (${allowedHosts!.join(', ') || 'none'})`);
  try {
    return checkEndpointUrl(deps, url.href, 'url');
  } catch (error) {
    throw new Error(describeError(error), { cause: error });
  }
}

export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface OutboundResponse {
  status: number;
  url: string;
  headers: Headers;
  body: Buffer;
  /** The body was longer than the limit: only its first `maxBytes` were read. */
  truncated: boolean;
}

export interface OutboundLimits {
  maxResponseBytes: number;
  timeoutMs: number;
  allowedHosts: readonly string[] | undefined;
}

/** Reads at most `max` bytes of a body, then stops reading (the rest is never downloaded). */
async function readBounded(response: Response, max: number): Promise<{ body: Buffer; truncated: boolean }> {
  if (!response.body) return { body: Buffer.alloc(0), truncated: false };
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: Buffer.concat(chunks), truncated: false };
    chunks.push(Buffer.from(value));
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return { body: Buffer.concat(chunks).subarray(0, max), truncated: true };
    }
  }
}

/** One request, following redirects (each hop checked again), bounded in size and time. */
export async function outboundFetch(
  deps: Pick<Deps, 'config'>,
  request: OutboundRequest,
  limits: OutboundLimits,
  signal: AbortSignal,
): Promise<OutboundResponse> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const bounded = AbortSignal.any([signal, timeout]);
  let url = checkOutboundUrl(deps, limits.allowedHosts, request.url);
  let { method, body } = request;
  try {
    for (let hop = 0; ; hop++) {
      const response = await outboundFetchOf(deps)(url, { method, headers: request.headers, body, redirect: 'manual', signal: bounded });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
        url = checkOutboundUrl(deps, limits.allowedHosts, new URL(location, url).href);
        // As browsers do: 303 (and 301/302 after a POST) continue as GET without a body.
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const read = await readBounded(response, limits.maxResponseBytes);
      return { status: response.status, url: url.href, headers: response.headers, ...read };
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    if (timeout.aborted) throw new Error(`the request took longer than ${limits.timeoutMs / 1000} s`, { cause: error });
    throw error;
  }
}
