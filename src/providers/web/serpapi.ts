// SerpApi: GET /search.json with the engine (default google); the key goes as the `api_key` query
// parameter, which is how SerpApi takes it (messages never repeat it).
import { apiKeyCredential, apiKeyOf, baseUrl, webConfig, webType } from './define.js';
import { WebApiError, callWebApi, scrub, str } from './http.js';

const API = 'https://serpapi.com';

interface SearchAnswer {
  error?: string;
  organic_results?: { title?: string; link?: string; snippet?: string; date?: string }[];
}

export const serpapi = webType({
  type: 'serpapi',
  title: 'SerpApi',
  setupUrl: 'https://serpapi.com/manage-api-key',
  configurationSchema: webConfig(API, {
    engine: { type: 'string', pattern: '^[a-z_]{1,40}$', description: 'default google' },
    location: { type: 'string' },
    hl: { type: 'string' },
    gl: { type: 'string' },
  }),
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  endpointFields: ['base_url'],
  web: {
    async search(ctx, { query, maxResults }) {
      const key = apiKeyOf(ctx);
      const params = new URLSearchParams({ engine: str(ctx.config.engine) || 'google', q: query, num: String(maxResults), output: 'json' });
      for (const name of ['location', 'hl', 'gl']) if (ctx.config[name]) params.set(name, str(ctx.config[name]));
      params.set('api_key', key);
      const answer = await callWebApi<SearchAnswer>({
        vendor: 'SerpApi',
        method: 'GET',
        url: `${baseUrl(ctx, API)}/search.json?${params}`,
        signal: ctx.signal,
        secrets: [key, encodeURIComponent(key)],
      });
      // SerpApi answers a search without results with 200 and an `error` sentence; that is no results.
      if (answer.error && !answer.organic_results && !/hasn't returned any results/i.test(answer.error))
        throw new WebApiError(scrub(`SerpApi: ${answer.error.slice(0, 300)}`, [key]));
      return (answer.organic_results ?? []).slice(0, maxResults).map((r) => ({
        title: str(r.title),
        url: str(r.link),
        snippet: str(r.snippet),
        ...(r.date ? { published_at: r.date } : {}),
      }));
    },
  },
});
