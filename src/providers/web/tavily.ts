// Tavily: POST /search and POST /extract, the key as a bearer token.
import Type from 'typebox';
import { hostedWebType } from './define.js';
import { WebApiError, str } from './http.js';
import { searchResults } from './search-results.js';
import { vendorApi } from './vendor-api.js';

const api = vendorApi({ vendor: 'Tavily', root: 'https://api.tavily.com', key: { bearer: true } });

interface SearchAnswer {
  results?: { title?: string; url?: string; content?: string; published_date?: string }[];
}
interface ExtractAnswer {
  results?: { url?: string; raw_content?: string }[];
  failed_results?: { url?: string; error?: string }[];
}

export const tavily = hostedWebType({
  type: 'tavily',
  title: 'Tavily',
  setupUrl: 'https://app.tavily.com/',
  root: api.root,
  configuration: { search_depth: Type.Optional(Type.Enum(['basic', 'advanced'], { description: 'default basic' })) },
  web: {
    async search(ctx, { query, maxResults }) {
      const answer = await api.call<SearchAnswer>(ctx, {
        method: 'POST',
        path: '/search',
        body: { query, max_results: maxResults, search_depth: ctx.config.search_depth ?? 'basic' },
      });
      return searchResults(answer.results, maxResults, (r) => ({
        title: r.title,
        url: r.url,
        snippet: r.content,
        published: r.published_date,
      }));
    },
    async fetch(ctx, { url }) {
      const answer = await api.call<ExtractAnswer>(ctx, { method: 'POST', path: '/extract', body: { urls: [url], format: 'markdown' } });
      const page = answer.results?.[0];
      if (!page)
        throw new WebApiError(
          `Tavily could not read ${url}${answer.failed_results?.[0]?.error ? `: ${answer.failed_results[0].error}` : ''}`,
        );
      return { url: str(page.url) || url, text: str(page.raw_content), truncated: false };
    },
  },
});
