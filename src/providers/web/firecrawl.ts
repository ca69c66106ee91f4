// Firecrawl: POST /v1/scrape (the page as Markdown, main content only) and POST /v1/search, the key
// as a bearer token. Firecrawl answers `success: false` with an `error` sentence when it fails.
import Type from 'typebox';
import { hostedWebType } from './define.js';
import { WebApiError, str } from './http.js';
import { searchResults } from './search-results.js';
import { vendorApi } from './vendor-api.js';

const api = vendorApi({ vendor: 'Firecrawl', root: 'https://api.firecrawl.dev', key: { bearer: true } });

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

export const firecrawl = hostedWebType({
  type: 'firecrawl',
  title: 'Firecrawl',
  setupUrl: 'https://www.firecrawl.dev/app',
  root: api.root,
  configuration: { only_main_content: Type.Optional(Type.Boolean({ description: 'default true' })) },
  web: {
    async search(ctx, { query, maxResults }) {
      const answer = await api.call<SearchAnswer>(ctx, { method: 'POST', path: '/v1/search', body: { query, limit: maxResults } });
      if (answer.success === false) throw new WebApiError(`Firecrawl: ${str(answer.error).slice(0, 300) || 'the search failed'}`);
      return searchResults(answer.data, maxResults, (r) => ({ title: r.title, url: r.url, snippet: r.description }));
    },
    async fetch(ctx, { url }) {
      const answer = await api.call<ScrapeAnswer>(ctx, {
        method: 'POST',
        path: '/v1/scrape',
        body: { url, formats: ['markdown'], onlyMainContent: ctx.config.only_main_content !== false },
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
