// Waiting for runs through the public API, as a client would.
import type { TestApp } from './app.js';

export const SETTLED = ['completed', 'failed', 'cancelled', 'waiting'];

/** Reads GET /runs/{id} until its status is one of `statuses` (default: settled). */
export async function settleRun(t: TestApp, runId: string, statuses = SETTLED, timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = (await t.rest('GET', `/api/v1/runs/${runId}`)).body;
    if (statuses.includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} stayed ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}
