// SerpApi: GET /search.json with the engine (default google); the key goes as the `api_key` query
// parameter, which is how SerpApi takes it (messages never repeat it).
import Type from 'typebox';
import { apiKeyOf, hostedWebType } from './define.js';
import { WebApiError, scrub } from './http.js';
import { searchResults } from './search-results.js';
import { vendorApi } from './vendor-api.js';

const api = vendorApi({ vendor: 'SerpApi', root: 'https://serpapi.com', key: { query: 'api_key' } });

interface SearchAnswer {
  error?: string;
  organic_results?: { title?: string; link?: string; snippet?: string; date?: string }[];
}

export const serpapi = hostedWebType({
  type: 'serpapi',
  title: 'SerpApi',
  setupUrl: 'https://serpapi.com/manage-api-key',
  root: api.root,
  configuration: {
    engine: Type.Optional(Type.String({ pattern: '^[a-z_]{1,40}$', description: 'default google' })),
    location: Type.Optional(Type.String()),
    hl: Type.Optional(Type.String()),
    gl: Type.Optional(Type.String()),
  },
  web: {
    async search(ctx, { query, maxResults }) {
      const params = new URLSearchParams({ engine: ctx.config.engine || 'google', q: query, num: String(maxResults), output: 'json' });
      for (const name of ['location', 'hl', 'gl'] as const) {
        const value = ctx.config[name];
        if (value) params.set(name, value);
      }
      const answer = await api.call<SearchAnswer>(ctx, { method: 'GET', path: '/search.json', query: params });
      // SerpApi answers a search without results with 200 and an `error` sentence; that is no results.
      if (answer.error && !answer.organic_results && !/hasn't returned any results/i.test(answer.error))
        throw new WebApiError(scrub(`SerpApi: ${answer.error.slice(0, 300)}`, [apiKeyOf(ctx)]));
      return searchResults(answer.organic_results, maxResults, (r) => ({
        title: r.title,
        url: r.link,
        snippet: r.snippet,
        published: r.date,
      }));
    },
  },
});
