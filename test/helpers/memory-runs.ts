// A run that uses a write mount the way the memory tests need it: recall for the input, one search
// call, one add call, then an answer — on the scripted development model (model key `dev`).
import type { TestApp } from './app.js';
import { settleRun } from './runs.js';

export async function rememberingRun(t: TestApp, memoryId: string, options: { searchQuery: string; added: string }) {
  const agent = (
    await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'rememberer',
        config: {
          model: 'dev',
          memory_mounts: [{ memory_id: memoryId, access: 'write', recall: true }],
          model_settings: {
            script: [
              [{ tool_call: { id: 's1', name: 'search_memory_team_notes', arguments: { query: options.searchQuery } } }],
              [{ tool_call: { id: 'a1', name: 'add_memory_team_notes', arguments: { text: options.added } } }],
              [{ text: 'Noted.' }],
            ],
          },
        },
      },
    })
  ).body;
  const run = (
    await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'When do deploys happen?' }] } },
    })
  ).body;
  return { run, done: await settleRun(t, run.id) };
}
