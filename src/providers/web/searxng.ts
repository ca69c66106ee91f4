// SearXNG, a metasearch engine that users host: GET {base_url}/search?format=json (the instance must
// have the JSON format enabled in its settings). No credential; the instance's address is required.
import Type from 'typebox';
import { baseUrl, webConfig, webType } from './define.js';
import { NoCredential } from '../common-schemas.js';
import { jsonSchemaOf } from '../registry.js';
import { callWebApi, str } from './http.js';
import { searchResults } from './search-results.js';

interface SearchAnswer {
  results?: { title?: string; url?: string; content?: string; publishedDate?: string | null }[];
}

export const searxng = webType({
  type: 'searxng',
  title: 'SearXNG (self-hosted metasearch)',
  configurationSchema: webConfig(null, {
    base_url: Type.String({ format: 'uri', description: 'the instance, e.g. https://search.example.com' }),
    categories: Type.Optional(Type.String({ description: 'comma-separated, e.g. general,news' })),
    language: Type.Optional(Type.String()),
    safesearch: Type.Optional(Type.Enum([0, 1, 2])),
  }),
  credentialSchema: jsonSchemaOf(NoCredential),
  credentialRequired: false,
  endpointFields: ['base_url'],
  web: {
    async search(ctx, { query, maxResults }) {
      const params = new URLSearchParams({ q: query, format: 'json' });
      for (const name of ['categories', 'language', 'safesearch'])
        if (ctx.config[name] !== undefined) params.set(name, str(ctx.config[name]));
      const answer = await callWebApi<SearchAnswer>({
        vendor: 'SearXNG',
        method: 'GET',
        url: `${baseUrl(ctx, '')}/search?${params}`,
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
