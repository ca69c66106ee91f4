// Perplexity's Search API (ranked web results, not a chat answer): POST /search, the key as a
// bearer token.
import { apiKeyCredential, apiKeyOf, baseUrl, webConfig, webType } from './define.js';
import { callWebApi, str } from './http.js';

const API = 'https://api.perplexity.ai';

interface SearchAnswer {
  results?: { title?: string; url?: string; snippet?: string; date?: string | null }[];
}

export const perplexity = webType({
  type: 'perplexity',
  title: 'Perplexity Search',
  setupUrl: 'https://www.perplexity.ai/account/api',
  configurationSchema: webConfig(API, { country: { type: 'string', pattern: '^[A-Za-z]{2}$' } }),
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  endpointFields: ['base_url'],
  web: {
    async search(ctx, { query, maxResults }) {
      const key = apiKeyOf(ctx);
      const answer = await callWebApi<SearchAnswer>({
        vendor: 'Perplexity',
        method: 'POST',
        url: `${baseUrl(ctx, API)}/search`,
        headers: { authorization: `Bearer ${key}` },
        body: { query, max_results: maxResults, ...(ctx.config.country ? { country: ctx.config.country } : {}) },
        signal: ctx.signal,
        secrets: [key],
      });
      return (answer.results ?? []).map((r) => ({
        title: str(r.title),
        url: str(r.url),
        snippet: str(r.snippet),
        ...(r.date ? { published_at: r.date } : {}),
      }));
    },
  },
});
