// Driving a long thread through the public API, turn after turn (each turn a run on the thread with
// `Prefer: wait`), against a windowed loopback model (window-model-server.ts). Shared by the context
// management tests (a short default-tier thread and the 200-turn slow ones).
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import type { WindowModelServer } from './window-model-server.js';

export { answerFrom, CODE_WORD, turnText } from './window-model-server.js';

export async function runTurn(t: TestApp, agentId: string, threadId: string | null, text: string): Promise<any> {
  const response = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agentId, input: { content: [{ type: 'text', text }] }, ...(threadId ? { thread_id: threadId } : {}) },
    headers: { prefer: 'wait=60' },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** Every request the server answered or refused fits its window (refused ones are counted in `refusals`). */
export function expectWithinWindow(server: WindowModelServer) {
  expect(server.refusals).toBe(0);
  expect(Math.max(...server.promptTokens)).toBeLessThanOrEqual(server.window);
}
