// Jina Reader: GET {reader}/{url} reads a page, GET {search}/?q= searches; JSON answers
// (`Accept: application/json`), the optional key as a bearer token (without one Jina's free rate
// limit applies). Search asks for results without their pages' contents (`X-Respond-With: no-content`).
import Type from 'typebox';
import { apiKeyOf, baseUrl, webConfig, webType } from './define.js';
import { OptionalApiKeyCredential } from '../common-schemas.js';
import { callWebApi, str } from './http.js';
import { searchResults } from './search-results.js';

const READER = 'https://r.jina.ai';
const SEARCH = 'https://s.jina.ai';

interface ReadAnswer {
  data?: { url?: string; title?: string; content?: string };
}
interface SearchAnswer {
  data?: { url?: string; title?: string; description?: string; content?: string; date?: string }[];
}

const headers = (ctx: Parameters<typeof apiKeyOf>[0], extra: Record<string, string> = {}) => {
  const key = apiKeyOf(ctx);
  return { ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra };
};

export const jina = webType({
  type: 'jina',
  title: 'Jina Reader',
  setupUrl: 'https://jina.ai/reader/',
  configuration: webConfig(READER, { search_url: Type.Optional(Type.String({ format: 'uri', description: `default ${SEARCH}` })) }),
  credential: OptionalApiKeyCredential,
  credentialRequired: false,
  endpointFields: ['base_url', 'search_url'],
  web: {
    async search(ctx, { query, maxResults }) {
      const answer = await callWebApi<SearchAnswer>({
        vendor: 'Jina',
        method: 'GET',
        url: `${baseUrl(ctx.config.search_url, SEARCH)}/?${new URLSearchParams({ q: query })}`,
        headers: headers(ctx, { 'x-respond-with': 'no-content' }),
        signal: ctx.signal,
        fetch: ctx.fetch,
        secrets: [apiKeyOf(ctx)],
      });
      return searchResults(answer.data, maxResults, (r) => ({
        title: r.title,
        url: r.url,
        snippet: r.description || r.content,
        published: r.date,
      }));
    },
    async fetch(ctx, { url }) {
      const answer = await callWebApi<ReadAnswer>({
        vendor: 'Jina',
        method: 'GET',
        // The reader takes the page's address as the path, as it is.
        url: `${baseUrl(ctx.config.base_url, READER)}/${url}`,
        headers: headers(ctx, { 'x-return-format': 'markdown' }),
        signal: ctx.signal,
        fetch: ctx.fetch,
        secrets: [apiKeyOf(ctx)],
      });
      const data = answer.data ?? {};
      return {
        url: str(data.url) || url,
        ...(data.title ? { title: data.title } : {}),
        content_type: 'text/markdown',
        text: str(data.content),
        truncated: false,
      };
    },
  },
});
