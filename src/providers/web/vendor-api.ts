// A hosted web vendor's JSON API as the web types call it. Each vendor is declared once — its name
// (for messages), its API root (which the provider's `base_url` replaces) and where its key goes — so
// an operation names only what differs: the method, the path and the query or body it sends.
import { apiKeyOf, baseUrl } from './define.js';
import { callWebApi } from './http.js';
import type { WebProviderContext } from './types.js';

/** Where a vendor takes its API key: a bearer token, a header of its own, or a query parameter. */
export type KeyPlacement = { bearer: true } | { header: string } | { query: string };

export interface VendorApiSpec {
  /** The vendor's name in messages ("Tavily answered 401: …"). */
  vendor: string;
  /** The API root when the provider's configuration has no `base_url`. */
  root: string;
  key: KeyPlacement;
}

export interface VendorRequest {
  method: 'GET' | 'POST';
  /** Appended to the API root. */
  path: string;
  /** Query parameters (the key is added here when the vendor takes it as one). */
  query?: URLSearchParams;
  /** Sent as JSON. */
  body?: unknown;
}

/** What a call reads of its provider: the configured API root, the key, the run's abort signal. */
export type VendorCallContext = Pick<
  WebProviderContext<{ base_url?: string }, { api_key?: string }>,
  'config' | 'credential' | 'signal' | 'fetch'
>;

export interface VendorApi extends VendorApiSpec {
  /** Sends one request with the provider's key and returns the answer's JSON (or throws a WebApiError). */
  call<T>(ctx: VendorCallContext, request: VendorRequest): Promise<T>;
}

export function vendorApi(spec: VendorApiSpec): VendorApi {
  return {
    ...spec,
    call<T>(ctx: VendorCallContext, request: VendorRequest) {
      const key = apiKeyOf(ctx);
      const query = new URLSearchParams(request.query);
      let headers: Record<string, string> = {};
      if ('bearer' in spec.key) headers = { authorization: `Bearer ${key}` };
      else if ('header' in spec.key) headers = { [spec.key.header]: key };
      else query.set(spec.key.query, key);
      const search = query.size ? `?${query}` : '';
      return callWebApi<T>({
        vendor: spec.vendor,
        method: request.method,
        url: `${baseUrl(ctx.config.base_url, spec.root)}${request.path}${search}`,
        headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        signal: ctx.signal,
        fetch: ctx.fetch,
        // A key sent in the query may come back URL-encoded in a message.
        secrets: [key, encodeURIComponent(key)],
      });
    },
  };
}
