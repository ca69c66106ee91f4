// A worker process (`npm run worker`) with METRICS_PORT serves its own metrics: the run it carried out
// is counted there (started and ended, its model request), with its worker slots — read by a
// Prometheus text parser from the port the worker logged, without credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { startWorkerProcess, type ChildService } from '../helpers/process.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
let model: ModelServer;
let worker: ChildService;
let metricsUrl: string;

beforeAll(async () => {
  model = await startOpenAICompatibleServer();
  // No in-process workers: the worker process does the work.
  t = await startTestApp({ runWorkers: 0, allowPlainHttpEndpoints: ['127.0.0.1'] });
  await addLoopbackModel(t, model, 'loop');
  worker = await startWorkerProcess({
    DATABASE_URL: t.databaseUrl,
    DATA_DIR: t.app.deps.config.dataDir,
    RUN_WORKERS: '3',
    ALLOW_PLAIN_HTTP_ENDPOINTS: '127.0.0.1',
    METRICS_PORT: '0',
  });
  const logged = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*worker metrics served/.exec(worker.output());
  expect(logged, worker.output()).not.toBeNull();
  metricsUrl = logged![1]!;
});
afterAll(async () => {
  if (worker?.child.exitCode === null) {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  await t?.stop();
  await model?.close();
});

/** `name{labels…}` sums of the counters and gauges of one scrape. */
async function scrape(): Promise<(name: string, labels?: Record<string, string>) => number> {
  const answer = await fetch(`${metricsUrl}/metrics`);
  expect(answer.status).toBe(200);
  const families = parsePrometheusTextFormat(await answer.text());
  return (name, labels = {}) =>
    (families.find((family) => family.name === name)?.metrics ?? [])
      .filter((sample) => Object.entries(labels).every(([key, wanted]) => sample.labels?.[key] === wanted))
      .reduce((sum, sample) => sum + Number(sample.value ?? 0), 0);
}

describe('a worker process with METRICS_PORT', () => {
  it('serves the runs it carried out, its model requests and its slots', async () => {
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'on the worker', config: { model: 'loop' } } })).body;
    model.turns.push({ text: 'Done.' });
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'go' }] } } }))
      .body;
    expect((await settleRun(t, run.id)).status).toBe('completed');
    const value = await scrape();
    expect(value('wsa_runs_started_total', { agent: agent.id })).toBe(1);
    expect(value('wsa_runs_ended_total', { agent: agent.id, status: 'completed' })).toBe(1);
    expect(value('wsa_model_requests_total', { model: 'loop' })).toBe(1);
    expect(value('wsa_worker_slots', { state: 'total' })).toBe(3);
  });
});
