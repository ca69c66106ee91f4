// A worker process killed mid-run: after its lease expires another worker takes the run over as a
// new attempt; committed items stay, the interrupted item is closed, ordinals stay gapless. The
// model (a loopback OpenAI-compatible server) holds its first answer mid-stream until the kill, so
// the first worker is provably mid-run however fast or slow the machine is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { startWorkerProcess, type ChildService } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
let model: ModelServer;
const workers: ChildService[] = [];
const gate = streamGate(2);

async function startWorker(): Promise<ChildService> {
  // SIGKILL is what this test is about: a short lease so that the takeover comes soon.
  const worker = await startWorkerProcess({
    DATABASE_URL: t.databaseUrl,
    DATA_DIR: t.app.deps.config.dataDir,
    RUN_WORKERS: '2',
    RUN_LEASE_MS: '1500',
    ALLOW_PLAIN_HTTP_ENDPOINTS: '127.0.0.1',
  });
  workers.push(worker);
  return worker;
}

beforeAll(async () => {
  model = await startOpenAICompatibleServer();
  // No in-process workers: the worker processes below do the work.
  t = await startTestApp({ runWorkers: 0, allowPlainHttpEndpoints: ['127.0.0.1'] });
  await addLoopbackModel(t, model, 'loop');
});
afterAll(async () => {
  for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  gate.open();
  await t.stop();
  await model.close();
});

describe('worker takeover', () => {
  it('a killed worker’s run is taken over as a new attempt, without lost or duplicated items', async () => {
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'held', config: { model: 'loop' } } })).body;
    model.turns.push({ text: 'part one, part two', gate: gate.gate }, { text: 'part one, part two' });
    const first = await startWorker();
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'go' }] } } }))
      .body;
    // The model holds mid-stream and the first worker's in-progress text item is in the database.
    await gate.reached;
    await waitFor(
      () => t.rest('GET', `/api/v1/runs/${run.id}/items`).then((r) => r.body.items),
      // Both chunks before the hold are stored (the row, or the row and an append), as read by this process.
      (items) =>
        items.some((i: { kind: string; content: { text?: string } }) => i.kind === 'text_message' && i.content.text === 'part one'),
      'first worker streaming',
      30_000,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    await startWorker();
    const done = await waitFor(
      () => t.rest('GET', `/api/v1/runs/${run.id}`).then((r) => r.body),
      (r) => r.status === 'completed',
      'takeover completion',
      30_000,
    );
    expect(done).toMatchObject({ attempts: 2, max_attempts: 3, output: 'part one, part two' });
    const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items as {
      ordinal: number;
      kind: string;
      state: string;
      content: Record<string, unknown>;
    }[];
    expect(items.map((i) => i.ordinal)).toEqual(items.map((_, index) => index + 1));
    expect(items.filter((i) => i.kind === 'user_message')).toHaveLength(1);
    const texts = items.filter((i) => i.kind === 'text_message');
    expect(texts).toHaveLength(2);
    // The interrupted item keeps the text the first worker had stored (its row and its appends).
    expect(texts[0]).toMatchObject({ state: 'failed', content: { interrupted: true, text: 'part one' } });
    expect(texts[1]).toMatchObject({ state: 'completed', content: { text: 'part one, part two' } });
    expect(items.every((i) => i.state !== 'in_progress')).toBe(true);
  }, 180_000); // two worker process starts: slow on a busy machine
});
