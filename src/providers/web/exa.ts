// Exa: POST /search (with a short text of each result) and POST /contents, the key in x-api-key.
import { apiKeyCredential, apiKeyOf, baseUrl, webConfig, webType } from './define.js';
import { WebApiError, callWebApi, str } from './http.js';

const API = 'https://api.exa.ai';
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

export const exa = webType({
  type: 'exa',
  title: 'Exa',
  setupUrl: 'https://dashboard.exa.ai/',
  configurationSchema: webConfig(API, { search_type: { enum: ['auto', 'neural', 'keyword', 'fast'], description: 'default auto' } }),
  credentialSchema: apiKeyCredential,
  credentialRequired: true,
  endpointFields: ['base_url'],
  web: {
    async search(ctx, { query, maxResults }) {
      const key = apiKeyOf(ctx);
      const answer = await callWebApi<{ results?: Result[] }>({
        vendor: 'Exa',
        method: 'POST',
        url: `${baseUrl(ctx, API)}/search`,
        headers: { 'x-api-key': key },
        body: {
          query,
          numResults: maxResults,
          type: str(ctx.config.search_type) || 'auto',
          contents: { text: { maxCharacters: SNIPPET_CHARS } },
        },
        signal: ctx.signal,
        secrets: [key],
      });
      return (answer.results ?? []).map((r) => ({
        title: str(r.title),
        url: str(r.url),
        snippet: str(r.text),
        ...(r.publishedDate ? { published_at: r.publishedDate } : {}),
      }));
    },
    async fetch(ctx, { url }) {
      const key = apiKeyOf(ctx);
      const answer = await callWebApi<ContentsAnswer>({
        vendor: 'Exa',
        method: 'POST',
        url: `${baseUrl(ctx, API)}/contents`,
        headers: { 'x-api-key': key },
        body: { urls: [url], text: true },
        signal: ctx.signal,
        secrets: [key],
      });
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
