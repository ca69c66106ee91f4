// What a web provider type does for the web toolset: search the web, fetch one page as readable text.
// Every type answers in these shapes, whatever its vendor's wire format, so the toolset (and the
// model) never sees a vendor's dialect.

/**
 * What an operation gets of its provider (the registry's ProviderContext has these members). A type
 * declared with `webType` (./define.ts) gets `config` and `credential` read as its schemas say:
 * `Config` and `Credential` are their TypeBox `Static` types.
 */
export interface WebProviderContext<Config = Record<string, unknown>, Credential = Record<string, unknown>> {
  config: Config;
  credential: Credential | null;
  extraHeaders: Record<string, string>;
  signal: AbortSignal;
  /** The outbound policy's fetch (src/lib/outbound-policy.ts): every request goes through it. */
  fetch: typeof fetch;
}

export type WebOperation = 'search' | 'fetch';

export interface WebSearchRequest {
  query: string;
  maxResults: number;
}

export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
  /** When the vendor says when the page was published (as it says it). */
  published_at?: string;
}

export interface WebFetchRequest {
  url: string;
  /** At most this many bytes of the page are read (the rest is left unread and the page marked truncated). */
  maxBytes: number;
  /**
   * Refuses a URL the run may not reach (allowed hosts, endpoint policy) by throwing. Called for the
   * requested URL before anything is sent and for every redirect a direct fetch follows.
   */
  checkUrl(url: string): void;
}

export interface WebPage {
  /** The URL the text was read from (after redirects, when the type knows them). */
  url: string;
  title?: string;
  content_type?: string;
  text: string;
  /** The page was larger than the byte limit: only its beginning was read. */
  truncated: boolean;
}

/** A web type's operations; a type serves the ones it has. */
export interface WebOperations<Config = Record<string, unknown>, Credential = Record<string, unknown>> {
  search?(ctx: WebProviderContext<Config, Credential>, request: WebSearchRequest): Promise<WebSearchResult[]>;
  fetch?(ctx: WebProviderContext<Config, Credential>, request: WebFetchRequest): Promise<WebPage>;
}
