// A PostgreSQL outage, with real processes: a service (with its run workers) on a PostgreSQL of the
// test's own, which the test stops for 5 s while runs are held mid-stream. Meanwhile every request
// answers — 503 `unavailable` with Retry-After through REST and GraphQL, never 500 — /readyz is not
// ready and names the database, /healthz stays alive; once PostgreSQL is back every run completes
// with its whole answer, and the process never exited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/storage/embedded.js';
import { createLogger } from '../../src/lib/logger.js';
import { RETRY_AFTER_SECONDS } from '../../src/lib/errors.js';
import { restClient, type Rest } from '../helpers/app.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { startHeldRuns } from '../helpers/runs.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

const RUNS = 3;
const OUTAGE_MS = 5_000;
const answerOf = (n: number) => `answer ${n}: ${'the quick brown fox '.repeat(3)}end.`;
const logger = createLogger('silent');

let root: string;
let port: number;
let postgres: EmbeddedDatabase | null = null;
let model: ModelServer;
let service: ServiceProcess;
let rest: Rest;
const apiKey = `wsk_${randomBytes(16).toString('hex')}`;

const startPostgres = async () => {
  postgres = await startEmbeddedPostgres(root, logger, { port, fastUnsafe: true, adopt: false });
  return postgres;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'wsa-outage-pg-'));
  port = await freePort();
  const { url } = await startPostgres();
  model = await startOpenAICompatibleServer();
  service = await startServiceProcess({
    DATABASE_URL: url,
    DATA_DIR: join(root, 'service'),
    BOOTSTRAP_API_KEY: apiKey,
    RUN_WORKERS: String(RUNS),
    ALLOW_PLAIN_HTTP_ENDPOINTS: '127.0.0.1',
  });
  rest = restClient(service.url, apiKey);
  await addLoopbackModel({ rest }, model, 'loop');
}, 180_000);
afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  await postgres?.stop();
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

interface Answer {
  what: string;
  status: number;
  retryAfter: string | null;
  code: string | undefined;
}

/** One of each kind of request: REST read and write, GraphQL query. */
async function requestsOnce(agentId: string, runId: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  const restCall = async (what: string, method: string, path: string, body?: unknown) => {
    const response = await rest(method, path, body === undefined ? {} : { body });
    answers.push({ what, status: response.status, retryAfter: response.headers.get('retry-after'), code: response.body?.error?.code });
  };
  await restCall('GET run', 'GET', `/api/v1/runs/${runId}`);
  await restCall('GET items', 'GET', `/api/v1/runs/${runId}/items`);
  await restCall('POST run', 'POST', '/api/v1/runs', { agent_id: agentId, input: { content: [{ type: 'text', text: 'meanwhile' }] } });
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ query: 'query($id: ID!) { run(id: $id) { id status } }', variables: { id: runId } }),
  });
  const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
  answers.push({
    what: 'GraphQL run',
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    code: body.errors?.[0]?.extensions?.code,
  });
  return answers;
}

describe('PostgreSQL down for 5 s', { tags: ['slow'] }, () => {
  it('answers 503 with Retry-After meanwhile, never 500, then every run completes', { timeout: 240_000 }, async () => {
    // An attempt the outage broke is retried by a new one, which asks the model again: whole answers for those.
    const { agent, gates, runs } = await startHeldRuns(rest, model, { count: RUNS, modelKey: 'loop', answerOf, spareAnswers: RUNS * 3 });
    try {
      await Promise.all(gates.map((gate) => gate.reached));

      await postgres!.stop();
      postgres = null;
      const down = Date.now();
      // The runs' models go on streaming while their database is away.
      for (const gate of gates) gate.open();
      const answers: Answer[] = [];
      do answers.push(...(await requestsOnce(agent.id, runs[0]!.id)));
      while (Date.now() - down < OUTAGE_MS);
      const byStatus: Record<number, number> = {};
      for (const answer of answers) byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
      console.log(`${answers.length} requests while PostgreSQL was down, by status: ${JSON.stringify(byStatus)}`);
      expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
      const refused = answers.filter((a) => a.status === 503);
      // Every kind of request was refused while the database was down, each with its code and Retry-After.
      expect(new Set(refused.map((a) => a.what))).toEqual(new Set(['GET run', 'GET items', 'POST run', 'GraphQL run']));
      for (const answer of refused) expect(answer).toMatchObject({ code: 'unavailable', retryAfter: String(RETRY_AFTER_SECONDS) });
      // Still down: the service is alive but not ready, and says why.
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'not_ready', unavailable: ['database'] });
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);

      await startPostgres();
      const back = Date.now();

      // Back: every run completes with a whole answer (which one depends on the order of the model requests).
      const texts: string[] = [];
      for (const run of runs) {
        const completed = await waitFor(
          async () => (await rest('GET', `/api/v1/runs/${run.id}`)).body,
          (read) => read?.status === 'completed',
          `run ${run.id} to complete after the outage`,
          120_000,
          100,
        );
        const items = (await rest('GET', `/api/v1/runs/${run.id}/items`)).body.items as {
          kind: string;
          state: string;
          content: { text?: string };
        }[];
        const last = items.filter((i) => i.kind === 'text_message').at(-1)!;
        expect(last.state).toBe('completed');
        texts.push(last.content.text ?? '');
        console.log(`run ${run.id}: completed after ${completed.attempts} attempt(s)`);
      }
      console.log(`every run completed ${Date.now() - back} ms after PostgreSQL was back`);
      const wholeAnswers = Array.from({ length: RUNS * 4 }, (_, n) => answerOf(n));
      for (const text of texts) expect(wholeAnswers).toContain(text);
      expect(new Set(texts).size).toBe(RUNS);
      await waitFor(
        async () => (await fetch(`${service.url}/readyz`)).status,
        (status) => status === 200,
        'readyz after PostgreSQL is back',
        30_000,
        100,
      );
      expect(service.child.exitCode).toBeNull();
    } finally {
      for (const gate of gates) gate.open();
    }
  });
});
