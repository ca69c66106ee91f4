// Tavily: POST /search and POST /extract, the key as a bearer token.
import { apiKeyCredential, apiKeyOf, baseUrl, webConfig, webType } from './define.js';
import { WebApiError, callWebApi, str } from './http.js';

const API = 'https://api.tavily.com';

interface SearchAnswer {
  results?: { title?: string; url?: string; content?: string; published_date?: string }[];
}
interface ExtractAnswer {
  results?: { url?: string; raw_content?: string }[];
  failed_results?: { url?: string; error?: string }[];
}

export const tavily = webType({
  type: 'tavily',
  title: 'Tavily',
  setupUrl: 'https://app.tavily.com/',
  configurationSchema: webConfig(API, { search_depth: { enum: ['basic', 'advanced'], description: 'default basic' } }),
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  endpointFields: ['base_url'],
  web: {
    async search(ctx, { query, maxResults }) {
      const key = apiKeyOf(ctx);
      const answer = await callWebApi<SearchAnswer>({
        vendor: 'Tavily',
        method: 'POST',
        url: `${baseUrl(ctx, API)}/search`,
        headers: { authorization: `Bearer ${key}` },
        body: { query, max_results: maxResults, search_depth: str(ctx.config.search_depth) || 'basic' },
        signal: ctx.signal,
        secrets: [key],
      });
      return (answer.results ?? []).map((r) => ({
        title: str(r.title),
        url: str(r.url),
        snippet: str(r.content),
        ...(r.published_date ? { published_at: r.published_date } : {}),
      }));
    },
    async fetch(ctx, { url }) {
      const key = apiKeyOf(ctx);
      const answer = await callWebApi<ExtractAnswer>({
        vendor: 'Tavily',
        method: 'POST',
        url: `${baseUrl(ctx, API)}/extract`,
        headers: { authorization: `Bearer ${key}` },
        body: { urls: [url], format: 'markdown' },
        signal: ctx.signal,
        secrets: [key],
      });
      const page = answer.results?.[0];
      if (!page)
        throw new WebApiError(
          `Tavily could not read ${url}${answer.failed_results?.[0]?.error ? `: ${answer.failed_results[0].error}` : ''}`,
        );
      return { url: str(page.url) || url, text: str(page.raw_content), truncated: false };
    },
  },
});
