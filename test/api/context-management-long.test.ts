// The long versions of the context-management tests (slow tier): a 200-turn thread on a 4k window
// and a 200-turn thread whose every turn calls a tool returning more than the window. Every turn
// completes, no request passes the window, the prompt stays flat, the code word of turn 1 reaches the
// last turn through the summaries, and a fork of the compacted thread starts from its summary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addLoopbackModel } from '../helpers/model-servers.js';
import { startWindowModelServer, type WindowModelServer } from '../helpers/window-model-server.js';
import { answerFrom, CODE_WORD, expectWithinWindow, runTurn, turnText } from '../helpers/long-thread.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
const servers: WindowModelServer[] = [];
const CHARACTERISTICS = { context_window_tokens: 4000, compact_threshold: 0.7, proactive_context_management_threshold: 0.6 };

async function setup(key: string, config: Record<string, unknown> = {}) {
  const server = await startWindowModelServer({ window: 4000, answer: answerFrom() });
  servers.push(server);
  await addLoopbackModel(t, server, key);
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: { name: key, config: { model: key, model_characteristics: CHARACTERISTICS, ...config } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return { server, agentId: agent.body.id as string };
}

/** The prompt sizes of the last `n` turns are no larger than those of the `n` turns after the first compaction. */
function expectFlat(prompts: number[], n = 50) {
  const early = Math.max(...prompts.slice(20, 20 + n));
  const late = Math.max(...prompts.slice(-n));
  expect(late).toBeLessThanOrEqual(Math.ceil(early * 1.1));
}

beforeAll(async () => {
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
});

afterAll(async () => {
  await t?.stop();
  await Promise.all(servers.map((server) => server.close()));
});

describe('200-turn threads on a 4k window', { tags: ['slow'] }, () => {
  it(
    'completes every turn of a 200-turn conversation, within the window, keeping the code word; a fork starts from the summary',
    { timeout: 600_000 },
    async () => {
      const { server, agentId } = await setup('long-chat');
      let threadId: string | null = null;
      let lastRun: any = null;
      for (let turn = 1; turn <= 200; turn += 1) {
        lastRun = await runTurn(t, agentId, threadId, turnText(turn));
        expect(lastRun.status, `turn ${turn}: ${JSON.stringify(lastRun.failure)}`).toBe('completed');
        threadId = lastRun.thread_id;
      }
      const asked = await runTurn(t, agentId, threadId, 'What is the code word?');
      expect(asked.output).toBe(`The code word is ${CODE_WORD}.`);
      expectWithinWindow(server);
      const chatPrompts = server.promptTokens.filter((_, index) => server.requests[index]!.body?.stream);
      expectFlat(chatPrompts);

      const fork = await t.rest('POST', `/api/v1/runs/${lastRun.id}/fork`, {
        headers: { prefer: 'wait=60', 'idempotency-key': 'long-fork' },
        body: { payload: { content: [{ type: 'text', text: 'What is the code word?' }] } },
      });
      expect(fork.status, JSON.stringify(fork.body)).toBe(201);
      const forked = await settleRun(t, fork.body.run.id);
      expect(forked).toMatchObject({ status: 'completed', output: `The code word is ${CODE_WORD}.` });
      expectWithinWindow(server);
    },
  );

  it('completes 200 turns whose tool results are each larger than the window', { timeout: 600_000 }, async () => {
    const { server, agentId } = await setup('long-tools', {
      client_tools: [{ name: 'fetch_page', parameters_json_schema: { type: 'object', properties: { n: { type: 'integer' } } } }],
    });
    let threadId: string | null = null;
    for (let turn = 1; turn <= 200; turn += 1) {
      server.turns.push({ tool: { id: `call_${turn}`, name: 'fetch_page', arguments: { n: turn } } });
      const waiting = await runTurn(t, agentId, threadId, turnText(turn, 300));
      expect(waiting.status, `turn ${turn}: ${JSON.stringify(waiting.failure)}`).toBe('waiting');
      threadId = waiting.thread_id;
      const resumed = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
        headers: { 'idempotency-key': `long-page-${turn}`, prefer: 'wait=60' },
        body: { calls: { [`call_${turn}`]: { status: 'returned', value: `Page ${turn}. ${'Lorem ipsum dolor sit amet. '.repeat(800)}` } } },
      });
      expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
      const done = resumed.body.status === 'completed' ? resumed.body : await settleRun(t, resumed.body.id);
      expect(done.status, `turn ${turn}: ${JSON.stringify(done.failure)}`).toBe('completed');
    }
    const asked = await runTurn(t, agentId, threadId, 'What is the code word?');
    expect(asked.output).toBe(`The code word is ${CODE_WORD}.`);
    expectWithinWindow(server);
  });
});
