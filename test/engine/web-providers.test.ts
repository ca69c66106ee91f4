// Every web provider type against a loopback server that speaks its vendor's wire format, through a
// run: the scripted model searches, fetches a page (types that read pages) and meets the vendor's
// error. Checked: the request each type sends (method, path, auth header, body or query), how the
// answer is read into the toolset's shape, the vendor's error message reaching the model, and the
// credential appearing in no item.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { startWebServer, toolCalls, webRun, type WebAnswer, type WebRequest, type WebServer } from '../helpers/web-servers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
});
afterAll(async () => {
  await t.stop();
});

const PAGE = 'https://docs.example.test/otters';
const ERROR_QUERY = 'break';

interface Case {
  type: string;
  config(server: WebServer): Record<string, unknown>;
  key: string | null;
  searches: boolean;
  fetches: boolean;
  /** Whether the vendor's fake dates its results (then `published_at` is passed on). */
  dated?: boolean;
  /** The page URL the model fetches (the direct fetch reads the loopback server itself). */
  page?(server: WebServer): string;
  answer(request: WebRequest, key: string | null): WebAnswer;
  /** The vendor's error sentence the model must see. */
  errorText: string;
  checkSearch?(request: WebRequest): void;
  checkFetch?(request: WebRequest): void;
}

const bearer = (request: WebRequest, key: string | null) => request.headers.authorization === `Bearer ${key}`;

const cases: Case[] = [
  {
    type: 'tavily',
    dated: true,
    key: 'tvly-wire-secret-1',
    searches: true,
    fetches: true,
    config: (s) => ({ base_url: s.url, search_depth: 'advanced' }),
    answer(request, key) {
      if (!bearer(request, key) || request.body?.query === ERROR_QUERY)
        return { status: 401, json: { detail: { error: 'Unauthorized: missing or invalid API key.' } } };
      if (request.path === '/search')
        return {
          json: {
            query: request.body.query,
            results: [
              {
                title: 'Sea otters',
                url: 'https://otters.example/sea',
                content: 'Sea otters hold hands.',
                score: 0.9,
                published_date: '2024-05-01',
              },
            ],
            response_time: 0.4,
          },
        };
      return { json: { results: [{ url: request.body.urls[0], raw_content: '# Otters\n\nOtters are mustelids.' }], failed_results: [] } };
    },
    errorText: 'Tavily answered 401: Unauthorized: missing or invalid API key.',
    checkSearch: (r) =>
      expect(r).toMatchObject({ method: 'POST', path: '/search', body: { query: 'otters', max_results: 3, search_depth: 'advanced' } }),
    checkFetch: (r) => expect(r).toMatchObject({ method: 'POST', path: '/extract', body: { urls: [PAGE], format: 'markdown' } }),
  },
  {
    type: 'brave',
    dated: true,
    key: 'brave-wire-secret-2',
    searches: true,
    fetches: false,
    config: (s) => ({ base_url: s.url, country: 'de' }),
    answer(request, key) {
      if (request.headers['x-subscription-token'] !== key || request.query.get('q') === ERROR_QUERY)
        return {
          status: 422,
          json: {
            type: 'ErrorResponse',
            error: { id: 'x', status: 422, code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.' },
          },
        };
      return {
        json: {
          type: 'search',
          web: {
            type: 'search',
            results: [
              {
                title: 'Sea <strong>otters</strong>',
                url: 'https://otters.example/sea',
                description: '<strong>Sea otters</strong> hold hands.',
                page_age: '2024-05-01T00:00:00',
              },
            ],
          },
        },
      };
    },
    errorText: 'Brave Search answered 422: The provided subscription token is invalid.',
    checkSearch: (r) => {
      expect(r).toMatchObject({ method: 'GET', path: '/res/v1/web/search' });
      expect(Object.fromEntries(r.query)).toEqual({ q: 'otters', count: '3', country: 'de' });
      expect(r.headers.accept).toBe('application/json');
    },
  },
  {
    type: 'exa',
    dated: true,
    key: 'exa-wire-secret-3',
    searches: true,
    fetches: true,
    config: (s) => ({ base_url: s.url }),
    answer(request, key) {
      if (request.headers['x-api-key'] !== key || request.body?.query === ERROR_QUERY)
        return { status: 401, json: { requestId: 'r1', error: 'Invalid API key', tag: 'INVALID_API_KEY' } };
      if (request.path === '/search')
        return {
          json: {
            requestId: 'r2',
            results: [
              {
                id: 'e1',
                title: 'Sea otters',
                url: 'https://otters.example/sea',
                publishedDate: '2024-05-01T00:00:00.000Z',
                text: 'Sea otters hold hands.',
              },
            ],
          },
        };
      return {
        json: {
          requestId: 'r3',
          results: [{ id: PAGE, url: PAGE, title: 'Otters', text: 'Otters are mustelids.' }],
          statuses: [{ id: PAGE, status: 'success' }],
        },
      };
    },
    errorText: 'Exa answered 401: Invalid API key',
    checkSearch: (r) =>
      expect(r).toMatchObject({
        method: 'POST',
        path: '/search',
        body: { query: 'otters', numResults: 3, type: 'auto', contents: { text: { maxCharacters: 500 } } },
      }),
    checkFetch: (r) => expect(r).toMatchObject({ method: 'POST', path: '/contents', body: { urls: [PAGE], text: true } }),
  },
  {
    type: 'serper',
    dated: true,
    key: 'serper-wire-secret-4',
    searches: true,
    fetches: false,
    config: (s) => ({ base_url: s.url, gl: 'us' }),
    answer(request, key) {
      if (request.headers['x-api-key'] !== key || request.body?.q === ERROR_QUERY)
        return { status: 403, json: { message: 'Unauthorized.', statusCode: 403 } };
      return {
        json: {
          searchParameters: { q: request.body.q },
          organic: [
            {
              title: 'Sea otters',
              link: 'https://otters.example/sea',
              snippet: 'Sea otters hold hands.',
              date: 'May 1, 2024',
              position: 1,
            },
          ],
        },
      };
    },
    errorText: 'Serper answered 403: Unauthorized.',
    checkSearch: (r) => expect(r).toMatchObject({ method: 'POST', path: '/search', body: { q: 'otters', num: 3, gl: 'us' } }),
  },
  {
    type: 'serpapi',
    dated: true,
    key: 'serpapi-wire-secret-5',
    searches: true,
    fetches: false,
    config: (s) => ({ base_url: s.url }),
    answer(request, key) {
      if (request.query.get('api_key') !== key || request.query.get('q') === ERROR_QUERY)
        return { status: 401, json: { error: `Invalid API key ${key}. Your API key should be here: https://serpapi.com/manage-api-key` } };
      return {
        json: {
          search_metadata: { status: 'Success' },
          organic_results: [
            {
              position: 1,
              title: 'Sea otters',
              link: 'https://otters.example/sea',
              snippet: 'Sea otters hold hands.',
              date: 'May 1, 2024',
            },
          ],
        },
      };
    },
    errorText: 'SerpApi answered 401: Invalid API key [redacted]. Your API key should be here',
    checkSearch: (r) => {
      expect(r).toMatchObject({ method: 'GET', path: '/search.json' });
      expect(Object.fromEntries(r.query)).toMatchObject({ engine: 'google', q: 'otters', num: '3', output: 'json' });
    },
  },
  {
    type: 'firecrawl',
    key: 'fc-wire-secret-6',
    searches: true,
    fetches: true,
    config: (s) => ({ base_url: s.url }),
    answer(request, key) {
      if (!bearer(request, key) || request.body?.query === ERROR_QUERY)
        return { status: 402, json: { success: false, error: 'Payment required to access this resource.' } };
      if (request.path === '/v1/search')
        return {
          json: {
            success: true,
            data: [{ url: 'https://otters.example/sea', title: 'Sea otters', description: 'Sea otters hold hands.' }],
          },
        };
      return {
        json: {
          success: true,
          data: {
            markdown: '# Otters\n\nOtters are mustelids.',
            metadata: { title: 'Otters', sourceURL: request.body.url, statusCode: 200 },
          },
        },
      };
    },
    errorText: 'Firecrawl answered 402: Payment required to access this resource.',
    checkSearch: (r) => expect(r).toMatchObject({ method: 'POST', path: '/v1/search', body: { query: 'otters', limit: 3 } }),
    checkFetch: (r) =>
      expect(r).toMatchObject({ method: 'POST', path: '/v1/scrape', body: { url: PAGE, formats: ['markdown'], onlyMainContent: true } }),
  },
  {
    type: 'jina',
    key: 'jina-wire-secret-7',
    searches: true,
    fetches: true,
    config: (s) => ({ base_url: `${s.url}/reader`, search_url: `${s.url}/search` }),
    answer(request, key) {
      if (!bearer(request, key) || request.query.get('q') === ERROR_QUERY)
        return {
          status: 401,
          json: {
            data: null,
            code: 401,
            name: 'AuthenticationFailedError',
            status: 40101,
            message: 'Invalid API key',
            readableMessage: 'AuthenticationFailedError: Invalid API key',
          },
        };
      if (request.path.startsWith('/search'))
        return {
          json: {
            code: 200,
            status: 20000,
            data: [{ title: 'Sea otters', url: 'https://otters.example/sea', description: 'Sea otters hold hands.', content: '' }],
          },
        };
      return { json: { code: 200, status: 20000, data: { title: 'Otters', url: PAGE, content: 'Otters are mustelids.' } } };
    },
    errorText: 'Jina answered 401: AuthenticationFailedError: Invalid API key',
    checkSearch: (r) => {
      expect(r).toMatchObject({ method: 'GET', path: '/search/', headers: { accept: 'application/json', 'x-respond-with': 'no-content' } });
      expect(r.query.get('q')).toBe('otters');
    },
    checkFetch: (r) => expect(r).toMatchObject({ method: 'GET', target: `/reader/${PAGE}`, headers: { accept: 'application/json' } }),
  },
  {
    type: 'perplexity',
    dated: true,
    key: 'pplx-wire-secret-8',
    searches: true,
    fetches: false,
    config: (s) => ({ base_url: s.url }),
    answer(request, key) {
      if (!bearer(request, key) || request.body?.query === ERROR_QUERY)
        return { status: 401, json: { error: { message: 'Invalid API key provided.', type: 'invalid_api_key', code: 401 } } };
      return {
        json: {
          id: 'p1',
          results: [
            {
              title: 'Sea otters',
              url: 'https://otters.example/sea',
              snippet: 'Sea otters hold hands.',
              date: '2024-05-01',
              last_updated: '2024-06-01',
            },
          ],
        },
      };
    },
    errorText: 'Perplexity answered 401: Invalid API key provided.',
    checkSearch: (r) => expect(r).toMatchObject({ method: 'POST', path: '/search', body: { query: 'otters', max_results: 3 } }),
  },
  {
    type: 'searxng',
    dated: true,
    key: null,
    searches: true,
    fetches: false,
    config: (s) => ({ base_url: s.url, categories: 'general' }),
    answer(request) {
      if (request.query.get('q') === ERROR_QUERY) return { status: 403, body: 'Forbidden', headers: { 'content-type': 'text/plain' } };
      return {
        json: {
          query: request.query.get('q'),
          number_of_results: 1,
          results: [
            {
              url: 'https://otters.example/sea',
              title: 'Sea otters',
              content: 'Sea otters hold hands.',
              engine: 'duckduckgo',
              publishedDate: '2024-05-01T00:00:00',
            },
          ],
        },
      };
    },
    errorText: 'SearXNG answered 403: Forbidden',
    checkSearch: (r) => {
      expect(r).toMatchObject({ method: 'GET', path: '/search' });
      expect(Object.fromEntries(r.query)).toEqual({ q: 'otters', format: 'json', categories: 'general' });
    },
  },
  {
    type: 'fetch',
    key: null,
    searches: false,
    fetches: true,
    config: () => ({ user_agent: 'wire-test-agent' }),
    page: (s) => `${s.url}/otters.html`,
    answer(request) {
      if (request.path === '/otters.html')
        return {
          headers: { 'content-type': 'text/html; charset=utf-8' },
          body: '<html><head><title>Otters</title></head><body><h1>Otters</h1><p>Otters are mustelids.</p></body></html>',
        };
      return { status: 404, body: 'nothing here', headers: { 'content-type': 'text/plain' } };
    },
    errorText: 'answered 404',
    checkFetch: (r) => expect(r).toMatchObject({ method: 'GET', path: '/otters.html', headers: { 'user-agent': 'wire-test-agent' } }),
  },
];

describe('web provider types', () => {
  it('lists the ten types with the operations each serves', async () => {
    const items = (await t.rest('GET', '/api/v1/provider-types/web')).body.items;
    expect(items.map((i: { type: string }) => i.type)).toEqual(cases.map((c) => c.type).sort());
    for (const c of cases) {
      const described = items.find((i: { type: string }) => i.type === c.type);
      expect(described.operations, c.type).toEqual([...(c.searches ? ['search'] : []), ...(c.fetches ? ['fetch'] : [])]);
      expect(described.test_supported).toBe(false);
    }
  });

  for (const c of cases) {
    it(`${c.type}: request shape, auth, parsing and errors`, async () => {
      const server = await startWebServer((request) => c.answer(request, c.key));
      try {
        const provider = await t.rest('POST', '/api/v1/web-providers', {
          body: { type: c.type, name: `${c.type} wire`, config: c.config(server), ...(c.key ? { credential: { api_key: c.key } } : {}) },
        });
        expect(provider.status, JSON.stringify(provider.body)).toBe(201);
        const page = c.page?.(server) ?? PAGE;
        const calls = [
          ...(c.searches ? [{ name: 'web_search', arguments: { query: 'otters' } }] : []),
          ...(c.fetches ? [{ name: 'web_fetch', arguments: { url: page } }] : []),
          c.searches
            ? { name: 'web_search', arguments: { query: ERROR_QUERY } }
            : { name: 'web_fetch', arguments: { url: `${server.url}/missing` } },
        ];
        const { run, items, history } = await webRun(t, { config: { provider_id: provider.body.id, max_results: 3 } }, calls);
        expect(run.status).toBe('completed');
        const results = toolCalls(items);
        expect(results.map((i) => i.content.tool_name)).toEqual(calls.map((call) => call.name));
        let index = 0;
        if (c.searches) {
          expect(results[index].state).toBe('completed');
          expect(results[index].content.result).toEqual({
            query: 'otters',
            results: [
              {
                title: 'Sea otters',
                url: 'https://otters.example/sea',
                snippet: 'Sea otters hold hands.',
                ...(c.dated ? { published_at: expect.stringMatching(/2024/) } : {}),
              },
            ],
          });
          c.checkSearch!(server.requests[0]!);
          index++;
        }
        if (c.fetches) {
          const fetched = results[index].content.result;
          expect(results[index].state).toBe('completed');
          expect(fetched).toMatchObject({ truncated: false });
          expect(fetched.text).toContain('Otters are mustelids.');
          if (c.type === 'fetch') expect(fetched).toMatchObject({ url: page, title: 'Otters', content_type: 'text/html' });
          c.checkFetch!(server.requests[c.searches ? 1 : 0]!);
          index++;
        }
        expect(results[index]).toMatchObject({ state: 'failed', content: { error: expect.stringContaining(c.errorText) } });
        // The model was told the vendor's error, and the credential is nowhere in the run.
        expect(JSON.stringify(history)).toContain(c.errorText);
        if (c.key) {
          expect(JSON.stringify(items)).not.toContain(c.key);
          expect(JSON.stringify(history)).not.toContain(c.key);
        }
        // The fakes answer only requests authenticated the vendor's way; types without a key send none.
        if (!c.key) for (const request of server.requests) expect(request.headers.authorization).toBeUndefined();
      } finally {
        await server.close();
      }
    });
  }
});
