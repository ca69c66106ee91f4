// Exa: POST /search (with a short text of each result) and POST /contents, the key in x-api-key.
import Type from 'typebox';
import { hostedWebType } from './define.js';
import { WebApiError, str } from './http.js';
import { searchResults } from './search-results.js';
import { vendorApi } from './vendor-api.js';

const api = vendorApi({ vendor: 'Exa', root: 'https://api.exa.ai', key: { header: 'x-api-key' } });
const SNIPPET_CHARS = 500;

interface Result {
  title?: string | null;
  url?: string;
  text?: string;
  publishedDate?: string | null;
}
interface ContentsAnswer {
  results?: Result[];
  statuses?: { id?: string; status?: string; error?: { tag?: string; httpStatusCode?: number } }[];
}

export const exa = hostedWebType({
  type: 'exa',
  title: 'Exa',
  setupUrl: 'https://dashboard.exa.ai/',
  root: api.root,
  configuration: { search_type: Type.Optional(Type.Enum(['auto', 'neural', 'keyword', 'fast'], { description: 'default auto' })) },
  web: {
    async search(ctx, { query, maxResults }) {
      const answer = await api.call<{ results?: Result[] }>(ctx, {
        method: 'POST',
        path: '/search',
        body: {
          query,
          numResults: maxResults,
          type: ctx.config.search_type ?? 'auto',
          contents: { text: { maxCharacters: SNIPPET_CHARS } },
        },
      });
      return searchResults(answer.results, maxResults, (r) => ({
        title: r.title,
        url: r.url,
        snippet: r.text,
        published: r.publishedDate,
      }));
    },
    async fetch(ctx, { url }) {
      const answer = await api.call<ContentsAnswer>(ctx, { method: 'POST', path: '/contents', body: { urls: [url], text: true } });
      const page = answer.results?.[0];
      if (!page) {
        const error = answer.statuses?.[0]?.error;
        throw new WebApiError(
          `Exa could not read ${url}${error?.tag ? ` (${error.tag}${error.httpStatusCode ? `, ${error.httpStatusCode}` : ''})` : ''}`,
        );
      }
      return { url: str(page.url) || url, ...(page.title ? { title: page.title } : {}), text: str(page.text), truncated: false };
    },
  },
});
