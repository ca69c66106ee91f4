// What run items carry: reasoning streamed as its own item, and text larger than the inline limit
// kept as a preview in `content` with the whole size described in `content_refs`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await insertModel(t, 'dev');
});
afterAll(async () => {
  await t.stop();
});

async function runWith(script: unknown[][]) {
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'items', config: { model: 'dev', model_settings: { script } } } });
  const run = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'go' }] } } });
  expect(run.status).toBe(201);
  return settleRun(t, run.body.id);
}

describe('run item content', () => {
  it('streams reasoning as a reasoning item before the answer', async () => {
    const run = await runWith([[{ reasoning: 'The user said go, ' }, { reasoning: 'so I answer.' }, { text: 'Going.' }]]);
    expect(run.status).toBe('completed');
    const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
    expect(items.map((item: { kind: string; state: string }) => [item.kind, item.state])).toEqual([
      ['user_message', 'completed'], ['reasoning', 'completed'], ['text_message', 'completed'],
    ]);
    expect(items[1].content.text).toBe('The user said go, so I answer.');
    expect(items[2].content.text).toBe('Going.');
    expect(run.output).toBe('Going.');
  });

  it('keeps a preview of text beyond 64 KiB inline and describes the rest in content_refs', async () => {
    const long = 'abcdefghij'.repeat(7_000); // 70 000 bytes
    const run = await runWith([[{ text_chunks: [long.slice(0, 35_000), long.slice(35_000)] }]]);
    expect(run.status).toBe('completed');
    const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
    const message = items.find((item: { kind: string }) => item.kind === 'text_message');
    expect(message.content.text).toBe(long.slice(0, 1024));
    expect(message.content_refs.text).toEqual({ id: `${message.id}:text`, media_type: 'text/plain; charset=utf-8', preview: long.slice(0, 1024), size_bytes: 70_000, truncated: true });
    // The committed history and the output keep the whole text.
    expect(run.output).toBe(long);
    const small = items.find((item: { kind: string }) => item.kind === 'user_message');
    expect(small.content_refs).toEqual({});
  });
});
