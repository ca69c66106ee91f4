// The seed's first step: the service itself writes one small workspace of every kind of row the
// scale seed multiplies (runs that completed, waited, were cancelled; their items, inbox entries,
// audit rows, trace spans; a memory with records; a webhook subscription with deliveries). The SQL
// step then copies these rows' documents, so every JSON document in the seeded database is one the
// service wrote and its readers accept — nothing is hand-written to look like the service's output.
import { Rest, addEchoModel } from '../blackbox/clients.js';

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

export interface Templates {
  agentIds: string[];
  memoryIds: string[];
}

/** Waits until every run of the workspace has settled (the echo model answers at once). */
async function settled(rest: Rest, runIds: string[]): Promise<void> {
  for (const id of runIds) {
    for (;;) {
      const run = await rest.ok('GET', `/api/v1/runs/${id}`);
      if (['completed', 'failed', 'cancelled', 'waiting'].includes(run.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export async function writeTemplates(rest: Rest, agents: number, memories: number): Promise<Templates> {
  await addEchoModel(rest, 'scale development');
  // Webhook deliveries: a subscription to every run event, on a loopback port nobody listens on (the
  // seed's service never delivers: WEBHOOK_DELIVERY_CONCURRENCY=0).
  await rest.ok('POST', '/api/v1/webhook-subscriptions', {
    url: 'http://127.0.0.1:9/hooks',
    event_kinds: ['run.completed', 'run.waiting', 'run.cancelled'],
    description: 'scale seed',
  });
  const agentIds: string[] = [];
  for (let i = 0; i < agents; i++) {
    agentIds.push((await rest.ok('POST', '/api/v1/agents', { name: `scale agent ${i}`, config: { model: 'dev' } })).id);
  }
  const toolAgent = (
    await rest.ok('POST', '/api/v1/agents', {
      name: 'scale client tool',
      config: {
        model: 'dev',
        client_tools: [{ name: 'pick' }],
        model_settings: { script: [[{ tool_call: { id: 'p1', name: 'pick' } }], [{ text: 'picked' }]], after_script: 'echo' },
      },
    })
  ).id;
  // One thread of three completed runs (a history of six messages), one waiting run, one cancelled.
  const first = await rest.ok('POST', '/api/v1/runs', { agent_id: agentIds[0], input: text('what is the weather in Lisbon today') });
  await settled(rest, [first.id]);
  const runIds = [first.id];
  for (const words of ['and tomorrow', 'thanks, summarise it']) {
    const next = await rest.ok('POST', `/api/v1/threads/${first.thread_id}/inbox`, { payload: text(words) });
    runIds.push(next.run.id);
    await settled(rest, [next.run.id]);
  }
  const waiting = await rest.ok('POST', '/api/v1/runs', { agent_id: toolAgent, input: text('pick one') });
  await settled(rest, [waiting.id]);
  const cancelled = await rest.ok('POST', '/api/v1/runs', { agent_id: toolAgent, input: text('pick another') });
  await settled(rest, [cancelled.id]);
  await rest.ok('POST', `/api/v1/runs/${cancelled.id}/cancel`);
  const memoryIds: string[] = [];
  for (let i = 0; i < memories; i++) {
    memoryIds.push((await rest.ok('POST', '/api/v1/memories', { name: `scale memory ${i}` })).id);
  }
  await rest.ok('POST', `/api/v1/memories/${memoryIds[0]}/records`, { text: 'the customer prefers morning deliveries' });
  return { agentIds, memoryIds };
}
