// Serper (Google results): POST /search, the key in X-API-KEY.
import { apiKeyCredential, apiKeyOf, baseUrl, webConfig, webType } from './define.js';
import { callWebApi, str } from './http.js';

const API = 'https://google.serper.dev';

interface SearchAnswer {
  organic?: { title?: string; link?: string; snippet?: string; date?: string }[];
}

export const serper = webType({
  type: 'serper',
  title: 'Serper (Google results)',
  setupUrl: 'https://serper.dev/',
  configurationSchema: webConfig(API, {
    gl: { type: 'string', description: 'country code, e.g. us' },
    hl: { type: 'string', description: 'language, e.g. en' },
  }),
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  endpointFields: ['base_url'],
  web: {
    async search(ctx, { query, maxResults }) {
      const key = apiKeyOf(ctx);
      const answer = await callWebApi<SearchAnswer>({
        vendor: 'Serper',
        method: 'POST',
        url: `${baseUrl(ctx, API)}/search`,
        headers: { 'x-api-key': key },
        body: {
          q: query,
          num: maxResults,
          ...(ctx.config.gl ? { gl: ctx.config.gl } : {}),
          ...(ctx.config.hl ? { hl: ctx.config.hl } : {}),
        },
        signal: ctx.signal,
        secrets: [key],
      });
      return (answer.organic ?? []).slice(0, maxResults).map((r) => ({
        title: str(r.title),
        url: str(r.link),
        snippet: str(r.snippet),
        ...(r.date ? { published_at: r.date } : {}),
      }));
    },
  },
});
