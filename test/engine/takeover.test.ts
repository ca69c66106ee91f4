// A worker process killed mid-run: after its lease expires another worker takes the run over as a
// new attempt; committed items stay, the interrupted item is closed, ordinals stay gapless.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
const workers: ChildProcess[] = [];

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    env: { ...process.env, DATABASE_URL: t.databaseUrl, DATA_DIR: t.app.deps.config.dataDir, RUN_WORKERS: '2', RUN_LEASE_MS: '1500', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  workers.push(child);
  return child;
}

beforeAll(async () => {
  // No in-process workers: the worker processes below do the work.
  t = await startTestApp({ runWorkers: 0 });
  await insertModel(t, 'dev');
});
afterAll(async () => {
  for (const child of workers) if (child.exitCode === null) child.kill('SIGKILL');
  await t.stop();
});

describe('worker takeover', () => {
  it('a killed worker’s run is taken over as a new attempt, without lost or duplicated items', async () => {
    const agent = (await t.rest('POST', '/api/v1/agents', {
      body: { name: 'slow', config: { model: 'dev', model_settings: { script: [[{ text: 'part one, ' }, { delay_ms: 1500 }, { text: 'part two' }]] } } },
    })).body;
    const first = startWorker();
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'go' }] } } })).body;
    // Wait until the first worker streams: an in-progress text item is in the database.
    await waitFor(() => t.rest('GET', `/api/v1/runs/${run.id}/items`).then((r) => r.body.items), (items) => items.some((i: { kind: string }) => i.kind === 'text_message'), 'first worker streaming', 30_000);
    first.kill('SIGKILL');
    startWorker();
    const done = await waitFor(() => t.rest('GET', `/api/v1/runs/${run.id}`).then((r) => r.body), (r) => r.status === 'completed', 'takeover completion', 30_000);
    expect(done).toMatchObject({ attempts: 2, output: 'part one, part two' });
    const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items as { ordinal: number; kind: string; state: string; content: Record<string, unknown> }[];
    expect(items.map((i) => i.ordinal)).toEqual(items.map((_, index) => index + 1));
    expect(items.filter((i) => i.kind === 'user_message')).toHaveLength(1);
    const texts = items.filter((i) => i.kind === 'text_message');
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatchObject({ state: 'failed', content: { interrupted: true } });
    expect(texts[1]).toMatchObject({ state: 'completed', content: { text: 'part one, part two' } });
    expect(items.every((i) => i.state !== 'in_progress')).toBe(true);
  });
});
