// GET /metrics over real HTTP: off (404) without METRICS_TOKEN, 401 without the token or with a wrong one
// (a workspace API key included, METRICS_ADMIN_KEYS being off), and with it the Prometheus text format — the event-loop delay and the
// database pool's waits and connections, which grow with the queries the service has made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startTestApp, type TestApp } from '../helpers/app.js';

const TOKEN = 'metrics-token-for-the-test-0123';
let t: TestApp;
let off: TestApp;

beforeAll(async () => {
  t = await startTestApp({ metricsToken: TOKEN });
  off = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
  await off?.stop();
});

const scrape = (app: TestApp, authorization?: string) => fetch(`${app.url}/metrics`, { headers: authorization ? { authorization } : {} });

/**
 * The exposition read by a Prometheus text parser, as `name{label="value",…}` → value (histogram
 * buckets as `name_bucket{le="…"}`, summaries' and histograms' `_sum` and `_count`).
 */
function samples(text: string): Map<string, number> {
  const map = new Map<string, number>();
  const key = (name: string, labels: Record<string, string> = {}) => {
    const pairs = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
    return pairs.length ? `${name}{${pairs.join(',')}}` : name;
  };
  for (const family of parsePrometheusTextFormat(text))
    for (const sample of family.metrics) {
      if (sample.value !== undefined) map.set(key(family.name, sample.labels), Number(sample.value));
      for (const [quantile, value] of Object.entries(sample.quantiles ?? {}))
        map.set(key(family.name, { ...sample.labels, quantile }), Number(value));
      // In the order of their bounds (an object's integer-like keys, "1", would come first).
      const bound = ([le]: [string, string]) => (le === '+Inf' ? Infinity : Number(le));
      for (const [le, value] of Object.entries(sample.buckets ?? {}).sort((a, b) => bound(a) - bound(b)))
        map.set(key(`${family.name}_bucket`, { ...sample.labels, le }), Number(value));
      if (sample.count !== undefined) map.set(key(`${family.name}_count`, sample.labels), Number(sample.count));
      if (sample.sum !== undefined) map.set(key(`${family.name}_sum`, sample.labels), Number(sample.sum));
    }
  return map;
}

describe('GET /metrics', () => {
  it('answers 404 when METRICS_TOKEN is not set, whatever the caller sends', async () => {
    const answer = await scrape(off, `Bearer ${off.apiKey}`);
    expect(answer.status).toBe(404);
    expect((await answer.json()).error.code).toBe('not_found');
  });

  it('answers 401 without the token, with a wrong one and with a workspace API key', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${t.apiKey}`, TOKEN]) {
      const answer = await scrape(t, authorization);
      expect(answer.status, String(authorization)).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await answer.json()).error.code).toBe('unauthenticated');
    }
  });

  it('serves the event-loop delay and the pool in the Prometheus text format', async () => {
    const first = await scrape(t, `Bearer ${TOKEN}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const before = samples(await first.text());
    // Queries through the service's pool: each takes a connection from it.
    for (let i = 0; i < 5; i++) expect((await t.rest('GET', '/api/v1/agents')).status).toBe(200);
    const text = await (await scrape(t, `Bearer ${TOKEN}`)).text();
    expect(text).toContain('# TYPE wsa_event_loop_delay_seconds summary');
    expect(text).toContain('# TYPE wsa_db_pool_wait_seconds histogram');
    const after = samples(text);
    for (const name of [
      'wsa_event_loop_delay_seconds{quantile="0.5"}',
      'wsa_event_loop_delay_seconds{quantile="0.99"}',
      'wsa_event_loop_delay_seconds_count',
      'wsa_db_pool_wait_max_seconds',
      'wsa_db_pool_connections{state="open"}',
      'wsa_db_pool_connections{state="waiting"}',
      'process_cpu_seconds_total',
    ])
      expect(after.get(name), name).toBeGreaterThanOrEqual(0);
    expect(after.get('wsa_db_pool_max_connections')).toBe(t.app.deps.config.databasePoolSize);
    const count = 'wsa_db_pool_wait_seconds_count';
    expect(after.get(count)).toBeGreaterThanOrEqual(before.get(count)! + 5);
    // Buckets are cumulative and end at the count.
    const buckets = [...after].filter(([name]) => name.startsWith('wsa_db_pool_wait_seconds_bucket'));
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]![1]).toBeGreaterThanOrEqual(buckets[i - 1]![1]);
    expect(after.get('wsa_db_pool_wait_seconds_bucket{le="+Inf"}')).toBe(after.get(count));
  });
});
