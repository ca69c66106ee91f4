// Memory mounts in runs: recall into the context (visible in items and the continuation), search
// and write tools with the run's provenance, read-only mounts refusing writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { rememberingRun } from '../helpers/memory-runs.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await insertModel(t, 'dev');
});
afterAll(async () => {
  await t.stop();
});

const settle = (runId: string, statuses?: string[]) => settleRun(t, runId, statuses);

describe('memory mounts', () => {
  it('recall, search and write with provenance', async () => {
    const memory = (await t.rest('POST', '/api/v1/memories', { body: { name: 'Team Notes' } })).body;
    await t.rest('POST', `/api/v1/memories/${memory.id}/records`, { body: { text: 'Deploys happen on Tuesdays after the standup' } });
    await t.rest('POST', `/api/v1/memories/${memory.id}/records`, { body: { text: 'The office plant needs water' } });
    const { run, done } = await rememberingRun(t, memory.id, { searchQuery: 'plant', added: 'Deploy freeze starts Friday' });
    expect(done).toMatchObject({
      status: 'completed',
      output: 'Noted.',
      memory_mounts: [{ memory_id: memory.id, name: 'Team Notes', access: 'write', recall: true }],
    });
    const response = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body;
    const recallItem = response.items.find((i: { kind: string }) => i.kind === 'memory_recall');
    expect(recallItem.content.records[0].text).toBe('Deploys happen on Tuesdays after the standup');
    expect(response.continuation.memory_sources['Team Notes'][0]).toMatchObject({
      kind: 'records',
      memory_id: memory.id,
      records: [recallItem.content.records[0].id],
    });
    const toolItems = response.items.filter((i: { kind: string }) => i.kind === 'tool_call');
    expect(toolItems.map((i: { content: { tool_name: string } }) => i.content.tool_name)).toEqual([
      'search_memory_team_notes',
      'add_memory_team_notes',
    ]);
    // Each call's result is its own `tool_result` item.
    const results = response.items.filter((i: { kind: string }) => i.kind === 'tool_result');
    expect(results.map((i: { content: { tool_call_id: string } }) => i.content.tool_call_id)).toEqual(
      toolItems.map((i: { content: { tool_call_id: string } }) => i.content.tool_call_id),
    );
    expect(results[0].content.result[0].text).toBe('The office plant needs water');
    const records = (await t.rest('GET', `/api/v1/memories/${memory.id}/records`)).body.items;
    const written = records.find((r: { text: string }) => r.text === 'Deploy freeze starts Friday');
    expect(written.provenance.created).toMatchObject({
      run_id: run.id,
      tool_call_id: 'a1',
      attempt_id: done.current_attempt_id,
      principal_id: run.principal_id,
      principal_name: 'bootstrap key',
    });
    // The model saw the recalled record in its context.
    const history = (await t.rest('GET', `/api/v1/threads/${run.thread_id}`)).body.message_history;
    expect(JSON.stringify(history)).toContain('Deploy freeze starts Friday');
  });

  it('a read-only mount refuses writes', async () => {
    const memory = (await t.rest('POST', '/api/v1/memories', { body: { name: 'Reference' } })).body;
    const agent = (
      await t.rest('POST', '/api/v1/agents', {
        body: {
          name: 'reader',
          config: {
            model: 'dev',
            memory_mounts: [{ memory_id: memory.id, access: 'read' }],
            retries: { tools: 1 },
            model_settings: {
              script: [[{ tool_call: { id: 'w1', name: 'add_memory_reference', arguments: { text: 'sneaky' } } }], [{ text: 'ok' }]],
            },
          },
        },
      })
    ).body;
    const run = (
      await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'write it down' }] } } })
    ).body;
    expect((await settle(run.id)).status).toBe('completed');
    expect((await t.rest('GET', `/api/v1/memories/${memory.id}/records`)).body.items).toEqual([]);
    const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
    expect(items.find((i: { kind: string; state: string }) => i.kind === 'tool_call')).toMatchObject({
      state: 'failed',
      content: { error: expect.stringContaining('read-only') },
    });
  });
});
