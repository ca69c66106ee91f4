// Perplexity's Search API (ranked web results, not a chat answer): POST /search, the key as a
// bearer token.
import Type from 'typebox';
import { hostedWebType } from './define.js';
import { searchResults } from './search-results.js';
import { vendorApi } from './vendor-api.js';

const api = vendorApi({ vendor: 'Perplexity', root: 'https://api.perplexity.ai', key: { bearer: true } });

interface SearchAnswer {
  results?: { title?: string; url?: string; snippet?: string; date?: string | null }[];
}

export const perplexity = hostedWebType({
  type: 'perplexity',
  title: 'Perplexity Search',
  setupUrl: 'https://www.perplexity.ai/account/api',
  root: api.root,
  configuration: { country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })) },
  web: {
    async search(ctx, { query, maxResults }) {
      const answer = await api.call<SearchAnswer>(ctx, {
        method: 'POST',
        path: '/search',
        body: { query, max_results: maxResults, ...(ctx.config.country ? { country: ctx.config.country } : {}) },
      });
      return searchResults(answer.results, maxResults, (r) => ({ title: r.title, url: r.url, snippet: r.snippet, published: r.date }));
    },
  },
});
