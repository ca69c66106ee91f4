// Firecrawl: POST /v1/scrape (the page as Markdown, main content only) and POST /v1/search, the key
// as a bearer token. Firecrawl answers `success: false` with an `error` sentence when it fails.
import { apiKeyCredential, apiKeyOf, baseUrl, webConfig, webType } from './define.js';
import { WebApiError, callWebApi, str } from './http.js';

const API = 'https://api.firecrawl.dev';

interface ScrapeAnswer {
  success?: boolean;
  error?: string;
  data?: { markdown?: string; metadata?: { title?: string; sourceURL?: string; url?: string; statusCode?: number } };
}
interface SearchAnswer {
  success?: boolean;
  error?: string;
  data?: { url?: string; title?: string; description?: string }[];
}

export const firecrawl = webType({
  type: 'firecrawl',
  title: 'Firecrawl',
  setupUrl: 'https://www.firecrawl.dev/app',
  configurationSchema: webConfig(API, { only_main_content: { type: 'boolean', description: 'default true' } }),
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  endpointFields: ['base_url'],
  web: {
    async search(ctx, { query, maxResults }) {
      const key = apiKeyOf(ctx);
      const answer = await callWebApi<SearchAnswer>({
        vendor: 'Firecrawl',
        method: 'POST',
        url: `${baseUrl(ctx, API)}/v1/search`,
        headers: { authorization: `Bearer ${key}` },
        body: { query, limit: maxResults },
        signal: ctx.signal,
        secrets: [key],
      });
      if (answer.success === false) throw new WebApiError(`Firecrawl: ${str(answer.error).slice(0, 300) || 'the search failed'}`);
      return (answer.data ?? []).map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.description) }));
    },
    async fetch(ctx, { url }) {
      const key = apiKeyOf(ctx);
      const answer = await callWebApi<ScrapeAnswer>({
        vendor: 'Firecrawl',
        method: 'POST',
        url: `${baseUrl(ctx, API)}/v1/scrape`,
        headers: { authorization: `Bearer ${key}` },
        body: { url, formats: ['markdown'], onlyMainContent: ctx.config.only_main_content !== false },
        signal: ctx.signal,
        secrets: [key],
      });
      if (answer.success === false || !answer.data)
        throw new WebApiError(`Firecrawl could not read ${url}: ${str(answer.error).slice(0, 300) || 'no content'}`);
      const meta = answer.data.metadata ?? {};
      if (meta.statusCode && meta.statusCode >= 400) throw new WebApiError(`${url} answered ${meta.statusCode} (through Firecrawl)`);
      return {
        url: str(meta.url || meta.sourceURL) || url,
        ...(meta.title ? { title: meta.title } : {}),
        content_type: 'text/markdown',
        text: str(answer.data.markdown),
        truncated: false,
      };
    },
  },
});
