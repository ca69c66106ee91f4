// Waiting for runs through the public API, as a client would.
import { expect } from 'vitest';
import type { Rest, TestApp } from './app.js';
import { streamGate, type ModelServer } from './model-servers.js';
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

/**
 * Starts `count` runs of a new agent on `modelKey`, each answer held mid-stream by a gate (after 3
 * chunks) that the test opens: the runs are provably in flight when something is done to them.
 * `answerOf(n)` is run n's answer; `spareAnswers` more whole answers follow for attempts that ask again.
 */
export async function startHeldRuns(
  rest: Rest,
  model: ModelServer,
  options: { count: number; modelKey: string; answerOf: (n: number) => string; spareAnswers?: number },
) {
  const agent = (await rest('POST', '/api/v1/agents', { body: { name: 'held', config: { model: options.modelKey } } })).body;
  // Each run's answer is bound to its input (unique to this call's agent): runs that reach the model
  // together may do so in any order.
  const inputOf = (n: number) => `go ${n} for ${agent.id}`;
  const gates = Array.from({ length: options.count }, (_, n) => {
    const gate = streamGate(3);
    model.turns.push({ text: options.answerOf(n), gate: gate.gate, forInput: inputOf(n) });
    return gate;
  });
  for (let n = options.count; n < options.count + (options.spareAnswers ?? 0); n++) model.turns.push({ text: options.answerOf(n) });
  const runs: { id: string }[] = [];
  for (let n = 0; n < options.count; n++) {
    const created = await rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.id, input: { content: [{ type: 'text', text: inputOf(n) }] } },
    });
    expect(created.status).toBe(201);
    runs.push(created.body);
  }
  return { agent, gates, runs };
}
