// SearXNG, a metasearch engine that users host: GET {base_url}/search?format=json (the instance must
// have the JSON format enabled in its settings). No credential; the instance's address is required.
import Type from 'typebox';
import { baseUrl, selfHostedWebConfig, webType } from './define.js';
import { NoCredential } from '../common-schemas.js';
import { callWebApi } from './http.js';
import { searchResults } from './search-results.js';

interface SearchAnswer {
  results?: { title?: string; url?: string; content?: string; publishedDate?: string | null }[];
}

export const searxng = webType({
  type: 'searxng',
  title: 'SearXNG (self-hosted metasearch)',
  configuration: selfHostedWebConfig({
    base_url: Type.String({ format: 'uri', description: 'the instance, e.g. https://search.example.com' }),
    categories: Type.Optional(Type.String({ description: 'comma-separated, e.g. general,news' })),
    language: Type.Optional(Type.String()),
    safesearch: Type.Optional(Type.Enum([0, 1, 2])),
  }),
  credential: NoCredential,
  credentialRequired: false,
  endpointFields: ['base_url'],
  web: {
    async search(ctx, { query, maxResults }) {
      const params = new URLSearchParams({ q: query, format: 'json' });
      for (const name of ['categories', 'language', 'safesearch'] as const) {
        const value = ctx.config[name];
        if (value !== undefined) params.set(name, String(value));
      }
      const answer = await callWebApi<SearchAnswer>({
        vendor: 'SearXNG',
        method: 'GET',
        url: `${baseUrl(ctx.config.base_url, '')}/search?${params}`,
        signal: ctx.signal,
        fetch: ctx.fetch,
        secrets: [],
      });
      return searchResults(answer.results, maxResults, (r) => ({
        title: r.title,
        url: r.url,
        snippet: r.content,
        published: r.publishedDate,
      }));
    },
  },
});
