// The web toolset in runs: web_search then web_fetch against loopback servers (scripted model and
// both real adapters), HTML read as text, the run's allowed_hosts and the endpoint policy (redirects
// too), byte, character and time limits, tool tuning, a disabled provider, and configuration checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { startAnthropicServer, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { startWebServer, toolCalls, webRun, type WebAnswer, type WebServer } from '../helpers/web-servers.js';

const ARTICLE = `<!doctype html><html><head><title>Otter facts &amp; figures</title>
<style>body { color: red }</style><script>window.secret = 'not for the model'</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<h1>Otters</h1><p>Otters are <b>semi-aquatic</b> mammals. See <a href="/species/sea">sea otters</a>.</p>
<ul><li>River otter</li><li>Sea otter</li></ul><img src="otter.png" alt="an otter"></body></html>`;

let t: TestApp;
let search: WebServer;
let pages: WebServer;
let braveId: string;

beforeAll(async () => {
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
  search = await startWebServer((request) => {
    const q = request.query.get('q') ?? '';
    return {
      json: {
        web: { results: [{ title: `About ${q}`, url: `${pages.url}/article.html`, description: `All about <strong>${q}</strong>.` }] },
      },
    };
  });
  pages = await startWebServer((request): WebAnswer => {
    switch (request.path) {
      case '/article.html':
        return { headers: { 'content-type': 'text/html; charset=utf-8' }, body: ARTICLE };
      case '/big.html':
        return { headers: { 'content-type': 'text/html' }, body: `<html><body><p>${'otter '.repeat(20_000)}</p></body></html>` };
      case '/long.txt':
        return { headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(5_000) };
      case '/image.png':
        return { headers: { 'content-type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) };
      case '/slow':
        return { hang: true };
      case '/to-localhost':
        return { status: 302, headers: { location: `http://localhost:${new URL(pages.url).port}/article.html` } };
      case '/to-article':
        return { status: 301, headers: { location: '/article.html' } };
      default:
        return { status: 404, body: 'not found' };
    }
  });
  const brave = await t.rest('POST', '/api/v1/web-providers', {
    body: { type: 'brave', name: 'Brave loopback', config: { base_url: search.url }, credential: { api_key: 'brave-key-1234' } },
  });
  expect(brave.status).toBe(201);
  braveId = brave.body.id;
});
afterAll(async () => {
  await search.close();
  await pages.close();
  await t.stop();
});

const fetchOf = (url: string) => ({ name: 'web_fetch', arguments: { url } });

describe('the web toolset', () => {
  it('searches, then fetches a page as readable text; the model sees both results', async () => {
    search.requests.length = 0;
    const { run, items, history } = await webRun(t, { enabled: true, config: { provider_id: braveId } }, [
      { name: 'web_search', arguments: { query: 'otters', max_results: 2 } },
      fetchOf(`${pages.url}/article.html`),
    ]);
    expect(run).toMatchObject({ status: 'completed', output: 'done' });
    const [searched, fetched] = toolCalls(items);
    expect(searched).toMatchObject({
      state: 'completed',
      content: {
        tool_name: 'web_search',
        server: true,
        result: { query: 'otters', results: [{ title: 'About otters', snippet: 'All about otters.' }] },
      },
    });
    expect(search.requests[0]!.query.get('count')).toBe('2');
    expect(fetched.state).toBe('completed');
    const page = fetched.content.result;
    expect(page).toMatchObject({
      url: `${pages.url}/article.html`,
      title: 'Otter facts & figures',
      content_type: 'text/html',
      truncated: false,
    });
    // HTML became text: headings and lists kept, links absolute, scripts, styles, navigation and images gone.
    expect(page.text).toContain('Otters\n\nOtters are semi-aquatic mammals.');
    expect(page.text).toContain(`sea otters [${pages.url}/species/sea]`);
    expect(page.text).toContain('* River otter');
    for (const gone of ['<', 'window.secret', 'color: red', 'About', 'otter.png']) expect(page.text).not.toContain(gone);
    const told = JSON.stringify(history);
    expect(told).toContain('All about otters.');
    expect(told).toContain('semi-aquatic mammals');
  });

  it('follows redirects that stay allowed', async () => {
    const { items } = await webRun(t, { config: {} }, [fetchOf(`${pages.url}/to-article`)]);
    expect(toolCalls(items)[0].content.result).toMatchObject({ url: `${pages.url}/article.html`, title: 'Otter facts & figures' });
  });

  it('refuses a fetch outside allowed_hosts before sending anything, and the model is told', async () => {
    const before = pages.requests.length;
    const { run, items, history } = await webRun(t, { config: { provider_id: braveId } }, [fetchOf(`${pages.url}/article.html`)], {
      configuration: { allowed_hosts: ['docs.example.test', '*.example.org'] },
    });
    expect(run.status).toBe('completed');
    const refused = `the host ${new URL(pages.url).host} is not in this run's allowed_hosts`;
    expect(toolCalls(items)[0]).toMatchObject({ state: 'failed', content: { error: refused } });
    expect(JSON.stringify(history)).toContain(refused);
    expect(pages.requests.length).toBe(before);
  });

  it('checks every redirect against allowed_hosts', async () => {
    const port = new URL(pages.url).port;
    const before = pages.requests.length;
    const { items } = await webRun(t, { config: {} }, [fetchOf(`${pages.url}/to-localhost`)], {
      configuration: { allowed_hosts: [`127.0.0.1:${port}`] },
    });
    expect(toolCalls(items)[0]).toMatchObject({
      state: 'failed',
      content: { error: `the host localhost:${port} is not in this run's allowed_hosts` },
    });
    expect(pages.requests.slice(before).map((r) => r.path)).toEqual(['/to-localhost']);
  });

  it('applies the endpoint policy: plain HTTP only to the hosts the deployment allows', async () => {
    const before = pages.requests.length;
    const { items } = await webRun(t, { config: {} }, [
      fetchOf(`http://localhost:${new URL(pages.url).port}/article.html`),
      fetchOf('file:///etc/passwd'),
    ]);
    const [plain, file] = toolCalls(items);
    expect(plain.content.error).toMatch(/plain HTTP, which this deployment does not allow/);
    expect(file.content.error).toBe('file: URLs cannot be fetched (http and https only)');
    expect(pages.requests.length).toBe(before);
  });

  it('reads at most max_page_bytes and cuts the text at max_text_chars, saying so', async () => {
    const { items } = await webRun(t, { config: { max_page_bytes: 2048, max_text_chars: 1000 } }, [
      fetchOf(`${pages.url}/big.html`),
      fetchOf(`${pages.url}/long.txt`),
      fetchOf(`${pages.url}/article.html`),
    ]);
    const [big, long, small] = toolCalls(items).map((i) => i.content.result);
    expect(big.truncated).toBe(true);
    expect(big.text.length).toBeLessThanOrEqual(2048);
    expect(big.text).toMatch(/^otter otter/);
    expect(long).toMatchObject({ truncated: true, content_type: 'text/plain' });
    expect(long.text).toBe('x'.repeat(1000));
    expect(small.truncated).toBe(false);
  });

  it('refuses pages that are not text, pages that fail, and pages slower than the time limit', async () => {
    const { run, items } = await webRun(t, { config: { timeout_seconds: 1 } }, [
      fetchOf(`${pages.url}/image.png`),
      fetchOf(`${pages.url}/nothing`),
      fetchOf(`${pages.url}/slow`),
    ]);
    expect(run.status).toBe('completed');
    expect(toolCalls(items).map((i) => i.content.error)).toEqual([
      `${pages.url}/image.png is image/png, not a text page`,
      `${pages.url}/nothing answered 404`,
      `${pages.url}/slow did not answer within 1 s`,
    ]);
  });

  it('honours tool tuning: a disabled tool is not offered, a denied one is refused', async () => {
    const { items } = await webRun(
      t,
      { config: { provider_id: braveId }, tools: { web_search: { enabled: false }, web_fetch: { permission: 'deny' } } },
      [{ name: 'web_search', arguments: { query: 'otters' } }, fetchOf(`${pages.url}/article.html`)],
    );
    const told = items.filter((i: { kind: string }) => i.kind === 'tool_result').map((i: any) => [i.content.tool_name, i.content.error]);
    expect(told).toContainEqual(['web_search', expect.stringContaining("unavailable tool 'web_search'")]);
    expect(told).toContainEqual(['web_fetch', 'This tool call is not allowed for this agent.']);
    expect(toolCalls(items)).toEqual([]);
  });

  it('tells the model when the web provider is disabled or reads no pages', async () => {
    const off = await t.rest('POST', '/api/v1/web-providers', {
      body: { type: 'brave', name: 'Switched off', config: { base_url: search.url }, credential: { api_key: 'brave-key-1234' } },
    });
    await t.rest('PATCH', `/api/v1/web-providers/${off.body.id}`, {
      headers: { 'if-match': off.headers.get('etag')! },
      body: { enabled: false },
    });
    const disabled = await webRun(t, { config: { provider_id: off.body.id } }, [{ name: 'web_search', arguments: { query: 'otters' } }]);
    expect(toolCalls(disabled.items)[0].content.error).toBe('the web provider "Switched off" is disabled');
    const noFetch = await webRun(t, { config: { fetch_provider_id: braveId } }, [fetchOf(`${pages.url}/article.html`)]);
    expect(toolCalls(noFetch.items)[0].content.error).toBe('the web provider "Brave loopback" (brave) does not fetch pages');
  });

  it('offers nothing when the toolset is disabled, and checks its configuration when the agent is written', async () => {
    const { items } = await webRun(t, { enabled: false, config: { provider_id: braveId } }, [fetchOf(`${pages.url}/article.html`)]);
    expect(items.find((i: { kind: string }) => i.kind === 'tool_result').content.error).toContain("unavailable tool 'web_fetch'");
    expect(toolCalls(items)).toEqual([]);
    for (const [web, field] of [
      [{ config: { max_results: 99 } }, 'config.toolsets.web.config.max_results'],
      [{ config: { provider: 'x' } }, 'config.toolsets.web.config.provider'],
      [{ tools: { web_browse: {} } }, 'config.toolsets.web.tools.web_browse'],
      [{ tools: { web_fetch: { permission: 'sometimes' } } }, 'config.toolsets.web.tools.web_fetch.permission'],
    ] as const) {
      const response = await t.rest('POST', '/api/v1/agents', { body: { name: 'bad', config: { model: 'dev', toolsets: { web } } } });
      expect(response.status, field).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_argument', details: { field } });
    }
    // Providers must be web providers of the workspace (a model provider is not one).
    const modelProvider = (await t.rest('GET', '/api/v1/model-providers')).body.items[0].id;
    for (const [config, field] of [
      [{ provider_id: 'prv_01J0000000000000000000000' }, 'config.toolsets.web.config.provider_id'],
      [{ provider_id: braveId, fetch_provider_id: modelProvider }, 'config.toolsets.web.config.fetch_provider_id'],
    ] as const) {
      const response = await t.rest('POST', '/api/v1/agents', {
        body: { name: 'bad', config: { model: 'dev', toolsets: { web: { config } } } },
      });
      expect(response.status, field).toBe(404);
      expect(response.body.error).toMatchObject({ code: 'not_found', details: { field } });
    }
  });
});

describe('the web toolset through the real adapters', () => {
  let openai: ModelServer;
  let anthropic: ModelServer;
  beforeAll(async () => {
    openai = await startOpenAICompatibleServer();
    anthropic = await startAnthropicServer();
  });
  afterAll(async () => {
    await openai.close();
    await anthropic.close();
  });

  for (const [label, type, server, path] of [
    ['OpenAI-compatible', 'openai_compatible', () => openai, '/v1/chat/completions'],
    ['Anthropic', 'anthropic', () => anthropic, '/v1/messages'],
  ] as const) {
    it(`${label}: the model searches, fetches and answers from the page`, async () => {
      const s = server();
      const provider = await t.rest('POST', '/api/v1/model-providers', {
        body: { type, name: label, config: { base_url: `${s.url}/v1` }, credential: { api_key: s.apiKey } },
      });
      const key = `${type.replace('_', '-')}-web`;
      await t.rest('POST', '/api/v1/models', { body: { key, provider_id: provider.body.id, provider_model: 'loop-model' } });
      const agent = await t.rest('POST', '/api/v1/agents', {
        body: {
          name: `${label} researcher`,
          config: { model: key, toolsets: { web: { enabled: true, config: { provider_id: braveId } } } },
        },
      });
      s.requests.length = 0;
      s.turns.push(
        { tool: { id: 'search_1', name: 'web_search', arguments: { query: 'otters' } } },
        { tool: { id: 'fetch_1', name: 'web_fetch', arguments: { url: `${pages.url}/article.html` } } },
        { text: 'Otters are semi-aquatic mammals.' },
      );
      const started = await t.rest('POST', '/api/v1/runs', {
        body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'What are otters?' }] } },
      });
      const run = await settleRun(t, started.body.id);
      expect(run).toMatchObject({ status: 'completed', output: 'Otters are semi-aquatic mammals.' });
      const sent = s.requests.filter((r) => r.path === path);
      expect(sent).toHaveLength(3);
      const offered = JSON.stringify(sent[0]!.body.tools);
      expect(offered).toContain('web_search');
      expect(offered).toContain('web_fetch');
      expect(JSON.stringify(sent[1]!.body)).toContain('All about');
      expect(JSON.stringify(sent[2]!.body)).toContain('semi-aquatic mammals');
      const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
      expect(toolCalls(items).map((i) => [i.content.tool_name, i.state])).toEqual([
        ['web_search', 'completed'],
        ['web_fetch', 'completed'],
      ]);
    });
  }
});
