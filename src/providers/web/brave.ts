// Brave Search: GET /res/v1/web/search, the key in X-Subscription-Token.
import Type from 'typebox';
import { hostedWebType, plain } from './define.js';
import { searchResults } from './search-results.js';
import { vendorApi } from './vendor-api.js';

const api = vendorApi({ vendor: 'Brave Search', root: 'https://api.search.brave.com', key: { header: 'x-subscription-token' } });

interface SearchAnswer {
  web?: { results?: { title?: string; url?: string; description?: string; page_age?: string; age?: string }[] };
}

export const brave = hostedWebType({
  type: 'brave',
  title: 'Brave Search',
  setupUrl: 'https://api-dashboard.search.brave.com/',
  root: api.root,
  configuration: {
    country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
    safesearch: Type.Optional(Type.Enum(['off', 'moderate', 'strict'])),
  },
  web: {
    async search(ctx, { query, maxResults }) {
      const params = new URLSearchParams({ q: query, count: String(Math.min(maxResults, 20)) });
      if (ctx.config.country) params.set('country', ctx.config.country);
      if (ctx.config.safesearch) params.set('safesearch', ctx.config.safesearch);
      const answer = await api.call<SearchAnswer>(ctx, { method: 'GET', path: '/res/v1/web/search', query: params });
      // Brave marks the matches in titles and snippets with HTML.
      return searchResults(answer.web?.results, maxResults, (r) => ({
        title: plain(r.title),
        url: r.url,
        snippet: plain(r.description),
        published: r.page_age || r.age,
      }));
    },
  },
});
