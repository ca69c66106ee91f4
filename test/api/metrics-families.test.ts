// The operator metrics after real work, read as Prometheus reads them (a Prometheus text parser): a
// run on a loopback model server (a failed tool call, then an answer) moves the run, model, token,
// cost, first-token, tool-call and HTTP counters — HTTP labelled by route template, never by a raw
// path; a graphql-ws subscription is counted while open; an admin API key opens /metrics (with
// METRICS_ADMIN_KEYS) and a read-only one does not; METRICS_PORT serves the same text without
// credentials on 127.0.0.1; and every metric the Grafana dashboard queries is in the output.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';
import { createApiKey } from '../../src/features/access/admin.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

const TOKEN = 'metrics-token-for-the-families-test';
const DASHBOARD = join(import.meta.dirname, '../../deploy/grafana/workspace-agent-service.json');

let t: TestApp;
let server: ModelServer;
let agentId: string;

beforeAll(async () => {
  server = await startOpenAICompatibleServer(undefined, { usage: { prompt: 100, completion: 20, cached: 40, reasoning: 5 } });
  t = await startTestApp({
    allowPlainHttpEndpoints: ['127.0.0.1'],
    metricsToken: TOKEN,
    metricsAdminKeys: true,
    metricsPort: 0,
    // A failed attempt's retry is due long after the test: the delivery stays in the backlog.
    webhookRetryDelaysMs: [3_600_000],
  });
  const provider = await t.rest('POST', '/api/v1/model-providers', {
    body: { type: 'openai_compatible', name: 'loopback', config: { base_url: `${server.url}/v1` }, credential: { api_key: server.apiKey } },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  const model = await t.rest('POST', '/api/v1/models', {
    body: { key: 'loop', provider_id: provider.body.id, provider_model: 'loop-model', pricing: { input_per_mtok: 3, output_per_mtok: 15 } },
  });
  expect(model.status, JSON.stringify(model.body)).toBe(201);
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'measured', config: { model: 'loop', retries: { tools: 1 } } } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  agentId = agent.body.id;
});
afterAll(async () => {
  await t?.stop();
  await server?.close();
});

/**
 * A scrape as the parser reads it: `families` by name with their types, and `series`, every sample line
 * by its own name (`…_bucket`, `…_count` too). The parser folds a histogram's or summary's lines into
 * one object per family and keeps the labels only of the buckets, so the series are read from the
 * same text without its TYPE lines, where every line is a sample of its own.
 */
interface Scrape {
  families: Map<string, ParsedFamily>;
  series: Map<string, ParsedFamily>;
  has(name: string): boolean;
}

async function scrape(authorization = `Bearer ${TOKEN}`, url = `${t.url}/metrics`): Promise<Scrape> {
  const answer = await fetch(url, { headers: authorization ? { authorization } : {} });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await answer.text();
  const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  const untyped = text
    .split('\n')
    .filter((line) => !line.startsWith('# TYPE'))
    .join('\n');
  // Untyped, a histogram's series come as one family per run of lines: gathered by name.
  const series = new Map<string, ParsedFamily>();
  for (const family of parsePrometheusTextFormat(untyped)) {
    const known = series.get(family.name);
    if (known) known.metrics.push(...family.metrics);
    else series.set(family.name, family);
  }
  return { families, series, has: (name) => families.has(name) };
}

/** The sum of the samples of series `name` whose labels include `labels`; 0 if none. */
function value(scraped: Scrape, name: string, labels: Record<string, string> = {}): number {
  const series = scraped.series.get(name);
  if (!series) return 0;
  return series.metrics
    .filter((sample) => Object.entries(labels).every(([key, wanted]) => sample.labels?.[key] === wanted))
    .reduce((sum, sample) => sum + Number(sample.value ?? 0), 0);
}

describe('metrics after a run', () => {
  let before: Scrape;
  let after: Scrape;
  let runId: string;

  beforeAll(async () => {
    before = await scrape();
    // A call to a tool the run does not have (it fails, the model is told: retries.tools allows one), then the answer.
    server.turns.push({ tool: { id: 'call_1', name: 'no_such_tool', arguments: {} } }, { text: 'Done.' });
    const created = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agentId, input: { content: [{ type: 'text', text: 'Hi' }] } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    runId = created.body.id;
    const done = await settleRun(t, runId);
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    // A GraphQL query and a path no route knows, for the HTTP labels.
    expect((await t.graphql('{ agent(id: "' + agentId + '") { id } }')).errors).toBeUndefined();
    expect((await t.rest('GET', `/api/v1/no-such-thing/${runId}`)).status).toBe(404);
    after = await scrape();
  });

  const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);

  it('counts the run started and ended, with its queue wait and duration', () => {
    // Test files share their process's registry: when earlier files' agents took the whole label cap,
    // this agent is counted under `other` (with whatever else ran meanwhile).
    if (value(after, 'wsa_runs_started_total', { agent: agentId }) > 0) {
      expect(delta('wsa_runs_started_total', { agent: agentId })).toBe(1);
      expect(delta('wsa_runs_ended_total', { agent: agentId, status: 'completed' })).toBe(1);
    } else {
      expect(delta('wsa_runs_started_total', { agent: 'other' })).toBeGreaterThanOrEqual(1);
      expect(delta('wsa_runs_ended_total', { agent: 'other', status: 'completed' })).toBeGreaterThanOrEqual(1);
    }
    // The histograms carry no agent label, and test files share their process: every run started
    // (or completed) in the window is one observation, whichever file's it is.
    expect(delta('wsa_run_queue_wait_seconds_count')).toBe(delta('wsa_runs_started_total'));
    expect(delta('wsa_run_duration_seconds_count', { status: 'completed' })).toBe(delta('wsa_runs_ended_total', { status: 'completed' }));
    expect(after.families.get('wsa_run_duration_seconds')!.type).toBe('HISTOGRAM');
  });

  it('counts both model requests, their tokens by kind, their cost and their first tokens', () => {
    const model = { model: 'loop', provider_type: 'openai_compatible' };
    expect(delta('wsa_model_requests_total', model)).toBe(2);
    expect(delta('wsa_model_tokens_total', { ...model, kind: 'input' })).toBe(200);
    expect(delta('wsa_model_tokens_total', { ...model, kind: 'output' })).toBe(40);
    expect(delta('wsa_model_tokens_total', { ...model, kind: 'cached_input' })).toBe(80);
    expect(delta('wsa_model_tokens_total', { ...model, kind: 'reasoning' })).toBe(10);
    // 2 × (100 input × 3 + 20 output × 15) per million tokens (cached input at the input price).
    expect(delta('wsa_model_cost_total', { ...model, currency: 'USD' })).toBeCloseTo(0.0012, 9);
    expect(delta('wsa_model_time_to_first_token_seconds_count', model)).toBe(2);
  });

  it('counts the tool call by kind and outcome', () => {
    expect(delta('wsa_tool_calls_total', { tool_kind: 'unknown', outcome: 'failed' })).toBe(1);
  });

  it('labels HTTP requests by route template, GraphQL by operation type, unknown paths as other', () => {
    expect(delta('wsa_http_requests_total', { method: 'POST', route: '/api/v1/runs', status: '201' })).toBe(1);
    expect(delta('wsa_http_requests_total', { method: 'GET', route: '/api/v1/runs/:run_id', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(delta('wsa_http_requests_total', { method: 'POST', route: '/graphql:query', status: '200' })).toBe(1);
    expect(delta('wsa_http_requests_total', { method: 'GET', route: 'other', status: '404' })).toBe(1);
    expect(delta('wsa_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/runs' })).toBe(1);
    const routes = after.families.get('wsa_http_requests_total')!.metrics.map((sample) => sample.labels?.route ?? '');
    expect(routes.filter((route) => route.includes(runId))).toEqual([]);
  });

  it('reports the pool, the workers, the webhook backlog, the event loop and the process', () => {
    expect(value(after, 'wsa_db_pool_connections', { state: 'open' })).toBeGreaterThan(0);
    expect(value(after, 'wsa_db_pool_connections', { state: 'in_use' })).toBeGreaterThanOrEqual(0);
    expect(value(after, 'wsa_db_pool_max_connections')).toBe(t.app.deps.config.databasePoolSize);
    expect(value(after, 'wsa_worker_slots', { state: 'total' })).toBe(t.app.deps.config.runWorkers);
    expect(value(after, 'wsa_runs_live')).toBe(0);
    expect(value(after, 'wsa_worker_utilisation_ratio')).toBe(0);
    expect(after.families.get('wsa_webhook_deliveries_pending')?.metrics).toHaveLength(1);
    expect(value(after, 'wsa_webhook_deliveries_pending')).toBe(0);
    expect(after.families.get('wsa_event_loop_delay_seconds')!.type).toBe('SUMMARY');
    expect(value(after, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  });

  it('has every metric the Grafana dashboard queries', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.templating.list.find((variable: { type: string }) => variable.type === 'datasource')).toMatchObject({
      name: 'datasource',
      query: 'prometheus',
    });
    const panels = dashboard.panels.filter((panel: { type: string }) => panel.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    const expressions: string[] = [
      ...panels.flatMap((panel: { datasource: { uid: string }; targets: { expr: string }[] }) => {
        expect(panel.datasource.uid).toBe('${datasource}');
        return panel.targets.map((target) => target.expr);
      }),
      ...dashboard.templating.list
        .filter((variable: { type: string }) => variable.type === 'query')
        .map((variable: { definition: string }) => variable.definition),
    ];
    // Metric names: identifiers followed by a selector, a range or a comma/paren, that are not PromQL functions or labels.
    const referenced = new Set(
      expressions.flatMap((expr) => [...expr.matchAll(/\b((?:wsa|process|nodejs)_[a-z_]+)\b/g)].map((m) => m[1]!)),
    );
    expect(referenced.size).toBeGreaterThan(15);
    const family = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
    const missing = [...referenced].filter((name) => !after.has(name) && !after.has(family(name)) && !after.series.has(name));
    expect(missing).toEqual([]);
  });
});

describe('who may read /metrics', () => {
  it('an admin API key (METRICS_ADMIN_KEYS) may; a read-only key is refused 403; an unknown key 401', async () => {
    expect((await scrape(`Bearer ${t.apiKey}`)).has('wsa_runs_started_total')).toBe(true);
    const readOnly = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' });
    const refused = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${readOnly.token}` } });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('permission_denied');
    const unknown = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${t.apiKey}x` } });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('METRICS_PORT serves the same metrics without credentials, on 127.0.0.1, and nothing else', async () => {
    expect(t.app.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const families = await scrape('', `${t.app.metricsUrl}/metrics`);
    expect(families.has('wsa_http_requests_total')).toBe(true);
    expect((await fetch(`${t.app.metricsUrl}/api/v1/agents`)).status).toBe(404);
  });
});

describe('subscriptions open', () => {
  it('counts a graphql-ws subscription while it is open', async () => {
    const base = value(await scrape(), 'wsa_subscriptions_open');
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
    });
    server.turns.push({ text: 'Fine.' });
    const created = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agentId, input: { content: [{ type: 'text', text: 'Hi' }] } },
    });
    await settleRun(t, created.body.id);
    // threadUpdated first answers the thread as it is, then stays open for its changes: once the first
    // answer arrived, the subscription is open.
    let received!: () => void;
    const first = new Promise<void>((resolve) => (received = resolve));
    const stop = client.subscribe(
      { query: 'subscription ($id: ID!) { threadUpdated(threadId: $id) { id } }', variables: { id: created.body.thread_id } },
      { next: () => received(), error: () => undefined, complete: () => undefined },
    );
    await first;
    expect(value(await scrape(), 'wsa_subscriptions_open')).toBe(base + 1);
    stop();
    await waitFor(
      async () => value(await scrape(), 'wsa_subscriptions_open'),
      (open) => open === base,
      'the subscription to be counted closed',
    );
    await client.dispose();
  });
});

describe('webhook deliveries', () => {
  it('counts attempts by outcome, and the pending backlog', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const base = await scrape();
      const created = await t.rest('POST', '/api/v1/webhook-subscriptions', {
        body: { url: receiver.url, event_kinds: ['run.completed'] },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const test = (status: number) => {
        receiver.plan.push({ status });
        return t.rest('POST', `/api/v1/webhook-subscriptions/${created.body.id}/test`);
      };
      // One delivery the receiver takes, one it refuses (retried in an hour: pending meanwhile).
      expect((await test(204)).status).toBe(202);
      await receiver.waitForCount(() => true, 1);
      expect((await test(500)).status).toBe(202);
      await receiver.waitForCount(() => true, 2);
      const counted = await waitFor(
        () => scrape(),
        (now) =>
          value(now, 'wsa_webhook_delivery_attempts_total', { outcome: 'retrying' }) >
          value(base, 'wsa_webhook_delivery_attempts_total', { outcome: 'retrying' }),
        'the refused attempt to be counted',
      );
      expect(
        value(counted, 'wsa_webhook_delivery_attempts_total', { outcome: 'succeeded' }) -
          value(base, 'wsa_webhook_delivery_attempts_total', { outcome: 'succeeded' }),
      ).toBe(1);
      // The backlog is counted at most every few seconds: read until the pending delivery shows.
      await waitFor(
        () => scrape(),
        (now) => value(now, 'wsa_webhook_deliveries_pending') === 1,
        'the pending delivery in the backlog',
        30_000,
        200,
      );
    } finally {
      await receiver.close();
    }
  });
});

describe('the run queue', () => {
  it('reports the accepted runs waiting for a worker as wsa_runs_queued', async () => {
    // An instance without workers: what it accepts stays queued (its own database).
    const queue = await startTestApp({ runWorkers: 0, metricsToken: TOKEN, allowPlainHttpEndpoints: ['127.0.0.1'] });
    try {
      const provider = await queue.rest('POST', '/api/v1/model-providers', {
        body: {
          type: 'openai_compatible',
          name: 'loopback',
          config: { base_url: `${server.url}/v1` },
          credential: { api_key: server.apiKey },
        },
      });
      expect(provider.status, JSON.stringify(provider.body)).toBe(201);
      expect(
        (await queue.rest('POST', '/api/v1/models', { body: { key: 'loop', provider_id: provider.body.id, provider_model: 'm' } })).status,
      ).toBe(201);
      const agent = await queue.rest('POST', '/api/v1/agents', { body: { name: 'queued', config: { model: 'loop' } } });
      for (let i = 0; i < 3; i += 1) {
        const created = await queue.rest('POST', '/api/v1/runs', {
          body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'Hi' }] } },
        });
        expect(created.body.status).toBe('accepted');
      }
      const scraped = await scrape(`Bearer ${TOKEN}`, `${queue.url}/metrics`);
      expect(scraped.families.get('wsa_runs_queued')?.type).toBe('GAUGE');
      expect(value(scraped, 'wsa_runs_queued')).toBe(3);
    } finally {
      await queue.stop();
    }
  });
});
