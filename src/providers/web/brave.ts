// Brave Search: GET /res/v1/web/search, the key in X-Subscription-Token.
import { apiKeyCredential, apiKeyOf, baseUrl, plain, webConfig, webType } from './define.js';
import { callWebApi, str } from './http.js';

const API = 'https://api.search.brave.com';

interface SearchAnswer {
  web?: { results?: { title?: string; url?: string; description?: string; page_age?: string; age?: string }[] };
}

export const brave = webType({
  type: 'brave',
  title: 'Brave Search',
  setupUrl: 'https://api-dashboard.search.brave.com/',
  configurationSchema: webConfig(API, {
    country: { type: 'string', pattern: '^[A-Za-z]{2}$' },
    safesearch: { enum: ['off', 'moderate', 'strict'] },
  }),
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  endpointFields: ['base_url'],
  web: {
    async search(ctx, { query, maxResults }) {
      const key = apiKeyOf(ctx);
      const params = new URLSearchParams({ q: query, count: String(Math.min(maxResults, 20)) });
      if (ctx.config.country) params.set('country', str(ctx.config.country));
      if (ctx.config.safesearch) params.set('safesearch', str(ctx.config.safesearch));
      const answer = await callWebApi<SearchAnswer>({
        vendor: 'Brave Search',
        method: 'GET',
        url: `${baseUrl(ctx, API)}/res/v1/web/search?${params}`,
        headers: { 'x-subscription-token': key },
        signal: ctx.signal,
        secrets: [key],
      });
      return (answer.web?.results ?? []).slice(0, maxResults).map((r) => ({
        title: plain(r.title),
        url: str(r.url),
        snippet: plain(r.description),
        ...(r.page_age || r.age ? { published_at: str(r.page_age || r.age) } : {}),
      }));
    },
  },
});
