// Driving a long thread through the public API, turn after turn (each turn a run on the thread with
// `Prefer: wait`), against a windowed loopback model (window-model-server.ts). Shared by the context
// management tests (a short default-tier thread and the 200-turn slow ones) and the benchmark's shape.
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import type { WindowModelServer } from './window-model-server.js';

export const CODE_WORD = 'PERIWINKLE-42';

const FILLER =
  'The weather report mentioned light rain over the harbour, the ferry schedule changed twice this week, ' +
  'and the committee still has to choose between the blue and the green design for the new library entrance. ';

/** A user turn of about `chars` characters (≈ chars / 4 tokens); turn 1 gives the code word to remember. */
export function turnText(turn: number, chars = 1000): string {
  const head = turn === 1 ? `Turn 1. Please remember this: the code word is ${CODE_WORD}. ` : `Turn ${turn}. `;
  let text = head;
  while (text.length < chars) text += FILLER;
  return text.slice(0, chars);
}

/** The loopback's answer: what it finds of the code word in what it was sent, else a plain reply of ~`chars`. */
export function answerFrom(chars = 400) {
  return (body: any): string => {
    const prompt = JSON.stringify(body.messages);
    const asked = /what is the code word/i.test(String(body.messages.at(-1)?.content ?? ''));
    if (asked) return prompt.includes(CODE_WORD) ? `The code word is ${CODE_WORD}.` : 'I do not know the code word.';
    let text = 'Noted. ';
    while (text.length < chars) text += 'I will keep that in mind while we go on. ';
    return text.slice(0, chars);
  };
}

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
