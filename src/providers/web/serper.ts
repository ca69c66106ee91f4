// Serper (Google results): POST /search, the key in X-API-KEY.
import Type from 'typebox';
import { hostedWebType } from './define.js';
import { searchResults } from './search-results.js';
import { vendorApi } from './vendor-api.js';

const api = vendorApi({ vendor: 'Serper', root: 'https://google.serper.dev', key: { header: 'x-api-key' } });

interface SearchAnswer {
  organic?: { title?: string; link?: string; snippet?: string; date?: string }[];
}

export const serper = hostedWebType({
  type: 'serper',
  title: 'Serper (Google results)',
  setupUrl: 'https://serper.dev/',
  root: api.root,
  configuration: {
    gl: Type.Optional(Type.String({ description: 'country code, e.g. us' })),
    hl: Type.Optional(Type.String({ description: 'language, e.g. en' })),
  },
  web: {
    async search(ctx, { query, maxResults }) {
      const answer = await api.call<SearchAnswer>(ctx, {
        method: 'POST',
        path: '/search',
        body: {
          q: query,
          num: maxResults,
          ...(ctx.config.gl ? { gl: ctx.config.gl } : {}),
          ...(ctx.config.hl ? { hl: ctx.config.hl } : {}),
        },
      });
      return searchResults(answer.organic, maxResults, (r) => ({ title: r.title, url: r.link, snippet: r.snippet, published: r.date }));
    },
  },
});
