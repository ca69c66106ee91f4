// Subagents end to end over the public API: the configuration's `subagents` offers a delegate tool
// per subagent; a call starts a child run in a child thread (origin, tool call and subagent name on
// the thread, `child_run_id` on the parent's inbox entry, lineage `subagent`), the child's output is
// the call's result, `inline` mirrors the child's items into the parent's and `thread` keeps them
// apart, cancelling the parent cancels the child, and a child that stops to wait is refused. The
// app runs ONE worker: a parent waiting for its child must not hold that slot. Scripted models, and
// the real OpenAI-compatible adapter against a loopback server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { waitFor } from '../helpers/wait.js';
import { createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let openai: ModelServer;
let otherKey: string;
beforeAll(async () => {
  openai = await startOpenAICompatibleServer();
  // The tightest admission, with no expiry: one run prepares at a time, and a parent whose preparation
  // waits for a child (an approved delegate call) must give its place up for the child, or both wait.
  t = await startTestApp({ runWorkers: 1, runPreparingLimit: 1, runPreparingHoldMs: 600_000, allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
  await addLoopbackModel(t, openai, 'loop');
  const other = await createWorkspace(t.app.deps, { name: 'B' });
  otherKey = other.apiKey.token;
  await insertModel(t, 'dev', { workspaceId: other.workspace.id });
});
afterAll(async () => {
  await t.stop();
  await openai.close();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const script = (...turns: unknown[][]) => ({ model_settings: { script: turns } });
const delegate = (id: string, name: string, task: string) => ({ tool_call: { id, name: `delegate_to_${name}`, arguments: { task } } });

async function createAgent(config: Record<string, unknown>, token?: string) {
  const response = await t.rest('POST', '/api/v1/agents', { token, body: { name: 'agent', config: { model: 'dev', ...config } } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; default_revision_id: string };
}

async function startRun(agentId: string) {
  const response = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; thread_id: string; session_id: string; source_entry_id: string };
}

const get = async (path: string) => {
  const response = await t.rest('GET', path);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};
const itemsOf = async (runId: string) => (await get(`/api/v1/runs/${runId}/items`)).items as any[];

/** The run a subagent call of `parentId` started, once it exists (read from the parent's items response). */
async function childOf(parentId: string, statuses = ['running']) {
  const observer = await waitFor(
    async () => (await get(`/api/v1/runs/${parentId}/items`)).continuation.observer,
    (o) => o.state.children.length > 0 && statuses.includes(o.state.children[0].status),
    `a child run of ${parentId} that is ${statuses.join(' or ')}`,
  );
  return observer.state.children[0] as { run_id: string; thread_id: string; subagent: string; tool_call_id: string };
}

describe('delegating to a subagent', () => {
  it('inline: the child runs in a child thread, its items stream into the parent, its output is the result', async () => {
    const helper = await createAgent({ instructions: 'You add numbers.', ...script([{ text_chunks: ['The sum ', 'is 5.'] }]) });
    const parent = await createAgent({
      subagents: { adder: { agent_id: helper.id, description: 'adds numbers' } },
      subagent_mode: 'inline',
      ...script([delegate('call_add', 'adder', 'Add 2 and 3.')], [{ text: 'The adder says 5.' }]),
    });
    const started = await startRun(parent.id);
    const done = await settleRun(t, started.id);
    expect(done).toMatchObject({ status: 'completed', output: 'The adder says 5.' });

    const items = await itemsOf(started.id);
    const result = items.find((i) => i.kind === 'tool_result' && !i.content.subagent);
    expect(result.content).toMatchObject({ tool_call_id: 'call_add', tool_name: 'delegate_to_adder', result: 'The sum is 5.' });
    const record = items.find((i) => i.kind === 'subagent_run');
    expect(record).toMatchObject({
      state: 'completed',
      content: { name: 'adder', tool_call_id: 'call_add', mode: 'inline', status: 'completed' },
    });
    const childId = record.content.run_id as string;
    // The child's items, mirrored into the parent as they changed, each naming where it came from.
    const childItems = await itemsOf(childId);
    const mirrored = items.filter((i) => i.content.subagent?.run_id === childId);
    expect(mirrored.map((i) => [i.kind, i.state, i.content.subagent.ordinal])).toEqual(childItems.map((i) => [i.kind, i.state, i.ordinal]));
    expect(mirrored.find((i) => i.kind === 'user_message').content.content).toEqual([{ type: 'text', text: 'Add 2 and 3.' }]);
    expect(mirrored.find((i) => i.kind === 'text_message').content.text).toBe('The sum is 5.');

    // The child run, its thread, the parent's inbox entry, lineage and the observer.
    const child = await get(`/api/v1/runs/${childId}`);
    expect(child).toMatchObject({
      status: 'completed',
      output: 'The sum is 5.',
      agent_id: helper.id,
      lineage: 'subagent',
      trigger: 'subagent',
      parent_run_id: started.id,
      session_id: started.session_id,
    });
    expect(child.thread_id).not.toBe(started.thread_id);
    expect(await get(`/api/v1/threads/${child.thread_id}`)).toMatchObject({
      origin: 'subagent',
      origin_run_id: started.id,
      origin_thread_id: started.thread_id,
      origin_tool_call_id: 'call_add',
      subagent: 'adder',
    });
    const entry = await get(`/api/v1/threads/${started.thread_id}/inbox/${started.source_entry_id}`);
    expect(entry.child_run_id).toBe(childId);
    const childEntry = await get(`/api/v1/threads/${child.thread_id}/inbox/${child.source_entry_id}`);
    expect(childEntry.origin_run_id).toBe(started.id);
    const lineage = await get(`/api/v1/runs/${childId}/lineage`);
    expect(lineage.items.map((r: { id: string }) => r.id)).toEqual([childId, started.id]);
    const { observer } = (await get(`/api/v1/runs/${started.id}/items`)).continuation;
    expect(observer.state).toMatchObject({
      children: [{ run_id: childId, thread_id: child.thread_id, subagent: 'adder', tool_call_id: 'call_add', status: 'completed' }],
      threads: [child.thread_id],
    });
    // GraphQL shows the same relation.
    const graph = await t.graphql(
      `query ($id: ID!, $thread: ID!, $entry: ID!) {
        run(id: $id) { lineage trigger parentRunId parent { output } thread { origin subagent originToolCallId originRunId originRun { output } } }
        inboxEntry(threadId: $thread, entryId: $entry) { childRunId childRun { output } }
      }`,
      { id: childId, thread: started.thread_id, entry: started.source_entry_id },
    );
    expect(graph.errors).toBeUndefined();
    expect(graph.data.run).toMatchObject({
      lineage: 'subagent',
      trigger: 'subagent',
      parentRunId: started.id,
      parent: { output: 'The adder says 5.' },
      thread: {
        origin: 'subagent',
        subagent: 'adder',
        originToolCallId: 'call_add',
        originRunId: started.id,
        originRun: { output: 'The adder says 5.' },
      },
    });
    expect(graph.data.inboxEntry).toEqual({ childRunId: childId, childRun: { output: 'The sum is 5.' } });
  });

  it('thread: the child keeps its items in its own thread; the parent gets only the result', async () => {
    const helper = await createAgent(script([{ text: 'Researched: the answer is 42.' }]));
    const parent = await createAgent({
      subagents: { researcher: { agent_id: helper.id } },
      subagent_mode: 'thread',
      ...script([delegate('call_r', 'researcher', 'Find the answer.')], [{ text: 'It is 42.' }]),
    });
    const started = await startRun(parent.id);
    expect(await settleRun(t, started.id)).toMatchObject({ status: 'completed', output: 'It is 42.' });
    const items = await itemsOf(started.id);
    expect(items.filter((i) => i.content.subagent)).toEqual([]);
    expect(items.find((i) => i.kind === 'tool_result').content.result).toBe('Researched: the answer is 42.');
    const record = items.find((i) => i.kind === 'subagent_run');
    expect(record.content).toMatchObject({ mode: 'thread', status: 'completed' });
    const childItems = await itemsOf(record.content.run_id);
    expect(childItems.find((i) => i.kind === 'text_message').content.text).toBe('Researched: the answer is 42.');
    // The parent's model saw the child's output as the call's result.
    const history = JSON.stringify((await get(`/api/v1/threads/${started.thread_id}`)).message_history);
    expect(history).toContain('Researched: the answer is 42.');
  });

  it('cancelling the parent cancels the child it waits for', async () => {
    // The child's model holds its answer until its run is cancelled.
    const helper = await createAgent(script([{ delay_ms: 600_000 }, { text: 'never' }]));
    const parent = await createAgent({
      subagents: { slow: { agent_id: helper.id } },
      ...script([delegate('call_s', 'slow', 'Take your time.')]),
    });
    const started = await startRun(parent.id);
    // With one worker the child runs only because the waiting parent gave up its slot.
    const child = await childOf(started.id);
    const cancelled = await t.rest('POST', `/api/v1/runs/${started.id}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(await settleRun(t, started.id)).toMatchObject({ status: 'cancelled' });
    expect(await settleRun(t, child.run_id)).toMatchObject({ status: 'cancelled' });
    // The worker is free again: a new run completes.
    const plain = await createAgent({});
    expect(await settleRun(t, (await startRun(plain.id)).id)).toMatchObject({ status: 'completed' });
  });

  it('a child that stops to wait is refused: it is cancelled and the call fails; a failed child fails the call', async () => {
    const asker = await createAgent({
      user_questions: true,
      ...script([{ tool_call: { id: 'q1', name: 'ask_user', arguments: { question: 'Which?' } } }]),
    });
    const failing = await createAgent(script([{ error: { message: 'the model is broken' } }]));
    const parent = await createAgent({
      subagents: { asker: { agent_id: asker.id }, failing: { agent_id: failing.id } },
      retries: { tools: 2 },
      ...script([delegate('call_q', 'asker', 'Ask something.')], [delegate('call_f', 'failing', 'Try.')], [{ text: 'gave up' }]),
    });
    const started = await startRun(parent.id);
    expect(await settleRun(t, started.id)).toMatchObject({ status: 'completed', output: 'gave up' });
    const results = (await itemsOf(started.id)).filter((i) => i.kind === 'tool_result' && !i.content.subagent);
    expect(results[0].content.error).toMatch(/subagent asker stopped to wait \(user_question\).*cancelled/);
    expect(results[1].content.error).toMatch(/subagent failing failed \(model_error\): .*the model is broken/);
    const records = (await itemsOf(started.id)).filter((i) => i.kind === 'subagent_run');
    expect(records.map((r) => [r.state, r.content.status])).toEqual([
      ['failed', 'cancelled'],
      ['failed', 'failed'],
    ]);
    expect((await get(`/api/v1/runs/${records[0].content.run_id}`)).status).toBe('cancelled');
  });

  it('a delegate tool with `ask` waits for the approval; approved, the child runs in the successor', async () => {
    const helper = await createAgent(script([{ text: 'Deployed.' }]));
    const parent = await createAgent({
      subagents: { deployer: { agent_id: helper.id, permission: 'ask' } },
      ...script([delegate('call_d', 'deployer', 'Deploy it.')], [{ text: 'Done: deployed.' }]),
    });
    const started = await startRun(parent.id);
    const waiting = await settleRun(t, started.id);
    expect(waiting).toMatchObject({ status: 'waiting', wait_reason: 'approval' });
    expect(waiting.pending.approvals).toMatchObject([
      { tool_call_id: 'call_d', tool_name: 'delegate_to_deployer', arguments: { task: 'Deploy it.' } },
    ]);
    // Nothing was delegated before the approval.
    expect((await get(`/api/v1/runs/${started.id}/items`)).continuation.observer.state.children).toEqual([]);
    const successor = await t.rest('POST', `/api/v1/runs/${started.id}/resume`, {
      headers: { 'idempotency-key': 'approve-call_d' },
      body: { approvals: { call_d: { action: 'approve' } } },
    });
    expect(successor.status, JSON.stringify(successor.body)).toBe(200);
    expect(await settleRun(t, successor.body.id)).toMatchObject({ status: 'completed', output: 'Done: deployed.' });
    const result = (await itemsOf(successor.body.id)).find((i) => i.kind === 'tool_result' && !i.content.subagent);
    expect(result.content).toMatchObject({ tool_call_id: 'call_d', result: 'Deployed.' });
    const [child] = (await get(`/api/v1/runs/${successor.body.id}/items`)).continuation.observer.state.children;
    expect(await get(`/api/v1/runs/${child.run_id}`)).toMatchObject({ status: 'completed', parent_run_id: successor.body.id });
  });

  it('subagents nest: an agent that delegates to itself stops at the depth limit, every level completes', async () => {
    // Every level plays the same script: delegate to itself, then answer with what it was told.
    const recursive = await createAgent({});
    const head = await t.rest('GET', `/api/v1/agents/${recursive.id}`);
    const revision = await t.rest('POST', `/api/v1/agents/${recursive.id}/revisions`, {
      headers: { 'if-match': head.headers.get('etag')! },
      body: {
        config: {
          model: 'dev',
          subagents: { self: { agent_id: recursive.id } },
          retries: { tools: 1 },
          model_settings: { script: [[delegate('call_self', 'self', 'Go deeper.')], [{ text: 'level done' }]] },
        },
      },
    });
    expect(revision.status, JSON.stringify(revision.body)).toBe(201);
    const started = await startRun(recursive.id);
    expect(await settleRun(t, started.id)).toMatchObject({ status: 'completed', output: 'level done' });
    // Walk down the children: four levels below the root, the last one refused to go deeper.
    let runId = started.id;
    const chain: string[] = [];
    for (;;) {
      const { children } = (await get(`/api/v1/runs/${runId}/items`)).continuation.observer.state;
      if (!children.length) break;
      expect(children[0]).toMatchObject({ subagent: 'self', status: 'completed' });
      runId = children[0].run_id;
      chain.push(runId);
    }
    expect(chain).toHaveLength(4);
    const deepest = (await itemsOf(runId)).find((i) => i.kind === 'tool_result' && !i.content.subagent);
    expect(deepest.content.error).toBe('subagents nest at most 4 levels deep');
    const lineage = await get(`/api/v1/runs/${runId}/lineage`);
    expect(lineage.items.map((r: { id: string }) => r.id)).toEqual([...chain].reverse().concat(started.id));
  });

  it("a parent's usage shows its subagents', at every depth, apart from its own requests", async () => {
    // Priced so that every request costs whole millionths: the shown amounts add up exactly.
    await insertModel(t, 'priced-dev');
    const model = await t.rest('GET', '/api/v1/models/priced-dev');
    const priced = await t.rest('PATCH', '/api/v1/models/priced-dev', {
      headers: { 'if-match': model.headers.get('etag')! },
      body: { pricing: { input_per_mtok: 1, output_per_mtok: 2, currency: 'USD' } },
    });
    expect(priced.status, JSON.stringify(priced.body)).toBe(200);
    const leaf = await createAgent({ model: 'priced-dev', ...script([{ text: 'leaf done' }]) });
    const middle = await createAgent({
      model: 'priced-dev',
      subagents: { leaf: { agent_id: leaf.id } },
      ...script([delegate('call_leaf', 'leaf', 'Finish it.')], [{ text: 'middle done' }]),
    });
    const root = await createAgent({
      model: 'priced-dev',
      subagents: { middle: { agent_id: middle.id } },
      ...script([delegate('call_middle', 'middle', 'Pass it on.')], [{ text: 'root done' }]),
    });
    const started = await startRun(root.id);
    const rootRun = await settleRun(t, started.id);
    expect(rootRun).toMatchObject({ status: 'completed', output: 'root done' });
    const childRunOf = async (runId: string) => (await get(`/api/v1/runs/${runId}/items`)).continuation.observer.state.children[0].run_id;
    const middleRun = await get(`/api/v1/runs/${await childRunOf(rootRun.id)}`);
    const leafRun = await get(`/api/v1/runs/${await childRunOf(middleRun.id)}`);

    type Counted = { requests: number; input_tokens: number; output_tokens: number; cost: { amount: string } };
    const own = (run: { usage_at_seal: Counted }) => run.usage_at_seal;
    const micros = (amount: string) => BigInt(amount.replace('.', ''));
    const amount = (value: bigint) => `${value / 1_000_000n}.${(value % 1_000_000n).toString().padStart(6, '0')}`;
    const sum = (...runs: Counted[]) => ({
      requests: runs.reduce((n, r) => n + r.requests, 0),
      input_tokens: runs.reduce((n, r) => n + r.input_tokens, 0),
      output_tokens: runs.reduce((n, r) => n + r.output_tokens, 0),
      cached_input_tokens: 0,
      reasoning_tokens: 0,
      cost: { amount: amount(runs.reduce((n, r) => n + micros(r.cost.amount), 0n)), currency: 'USD', complete: true },
    });
    // Each run's own counters are its own requests: two turns for the delegating runs, one for the leaf.
    expect([rootRun, middleRun, leafRun].map((run) => own(run).requests)).toEqual([2, 2, 1]);
    expect(rootRun.usage_at_seal.by_model).toMatchObject([{ model: 'priced-dev', requests: 2 }]);
    expect(micros(own(leafRun).cost.amount)).toBeGreaterThan(0n);
    // The leaf delegated nothing; the middle run shows the leaf's; the root both, at every depth.
    expect(leafRun.usage_at_seal.subagents).toBeNull();
    expect(middleRun.usage_at_seal.subagents).toEqual({ runs: 1, ...sum(own(leafRun)) });
    expect(rootRun.usage_at_seal.subagents).toEqual({ runs: 2, ...sum(own(middleRun), own(leafRun)) });
    // The ledger (and so GET /usage) keeps each run's own usage: the family is not counted twice.
    const viaGraphql = await t.graphql(
      `{ run(id: "${rootRun.id}") { usageAtSeal { requests subagents { runs requests cost { amount } } } } }`,
    );
    expect(viaGraphql.data.run.usageAtSeal).toEqual({
      requests: 2,
      subagents: { runs: 2, requests: 3, cost: { amount: rootRun.usage_at_seal.subagents.cost.amount } },
    });
  });

  it("through the OpenAI-compatible adapter: the model is offered the delegate tool and told the child's output", async () => {
    const helper = await createAgent(script([{ text: 'Translated: Bonjour.' }]));
    const parent = await createAgent({
      model: 'loop',
      subagents: { translator: { agent_id: helper.id, description: 'translates into French' } },
    });
    openai.turns.push(
      { tool: { id: 'call_t', name: 'delegate_to_translator', arguments: { task: 'Translate "Hello".' } } },
      { text: 'Bonjour.' },
    );
    const before = openai.requests.length;
    const started = await startRun(parent.id);
    expect(await settleRun(t, started.id)).toMatchObject({ status: 'completed', output: 'Bonjour.' });
    const [first, second] = openai.requests.slice(before).map((r) => r.body);
    const offered = first.tools.find((tool: { function: { name: string } }) => tool.function.name === 'delegate_to_translator');
    expect(offered.function.description).toContain('translates into French');
    expect(offered.function.parameters.required).toEqual(['task']);
    const told = second.messages.find((m: { role: string }) => m.role === 'tool');
    expect(told).toMatchObject({ tool_call_id: 'call_t' });
    expect(told.content).toContain('Translated: Bonjour.');
  });
});

describe('subagents the configuration may not name', () => {
  it("another workspace's agent, or a made-up one, answers 404 naming the entry; bad shapes 400", async () => {
    const foreign = await createAgent({}, otherKey);
    const refused = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'x', config: { model: 'dev', subagents: { spy: { agent_id: foreign.id } } } },
    });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'not_found', details: { field: 'config.subagents.spy.agent_id' } });
    const madeUp = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'x', config: { model: 'dev', subagents: { ghost: { agent_id: 'agt_made_up' } } } },
    });
    expect(madeUp.status).toBe(404);
    // A revision of another agent (here: the foreign one's) is not this agent's revision.
    const own = await createAgent({});
    const mismatched = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'x', config: { model: 'dev', subagents: { own: { agent_id: own.id, revision_id: foreign.default_revision_id } } } },
    });
    expect(mismatched.status).toBe(404);
    expect(mismatched.body.error.details.field).toBe('config.subagents.own.revision_id');
    // So are the references in a subagent's overrides.
    const foreignModel = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'x', config: { model: 'dev', subagents: { own: { agent_id: own.id, overrides: { model: 'no-such-model' } } } } },
    });
    expect(foreignModel.status).toBe(404);
    expect(foreignModel.body.error.details.field).toBe('config.subagents.own.overrides.model');
    // Run overrides are checked the same way.
    const overridden = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: own.id, input: text('hi'), options: { overrides: { subagents: { spy: { agent_id: foreign.id } } } } },
    });
    expect(overridden.status).toBe(404);
    expect(overridden.body.error.details.field).toBe('options.overrides.subagents.spy.agent_id');
    // Shapes: a name outside the pattern, a missing agent_id, an unknown member, invalid overrides.
    for (const [subagents, field] of [
      [{ 'Bad Name': { agent_id: own.id } }, 'config.subagents'],
      [{ ok: {} }, 'config.subagents.ok.agent_id'],
      [{ ok: { agent_id: own.id, colour: 'red' } }, 'config.subagents.ok.colour'],
      [{ ok: { agent_id: own.id, overrides: { retries: { tools: -1 } } } }, 'config.subagents.ok.overrides.retries.tools'],
    ] as const) {
      const bad = await t.rest('POST', '/api/v1/agents', { body: { name: 'x', config: { model: 'dev', subagents } } });
      expect(bad.status, JSON.stringify(subagents)).toBe(400);
      expect(bad.body.error.details.field).toBe(field);
    }
  });
});
