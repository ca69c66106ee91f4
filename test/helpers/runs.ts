// Waiting for runs through the public API, as a client would.
import type { TestApp } from './app.js';
import { waitFor } from './wait.js';

export const SETTLED = ['completed', 'failed', 'cancelled', 'waiting'];

/** Reads GET /runs/{id} until its status is one of `statuses` (default: settled). */
export function settleRun(t: TestApp, runId: string, statuses = SETTLED, timeoutMs = 30_000): Promise<any> {
  return waitFor(
    async () => (await t.rest('GET', `/api/v1/runs/${runId}`)).body,
    (run) => statuses.includes(run.status),
    `run ${runId} to be ${statuses.join(' or ')}`,
    timeoutMs,
    15,
  );
}
