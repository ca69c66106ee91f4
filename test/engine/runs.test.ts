// The run engine end to end on the scripted development model: completion, streaming to
// graphql-ws subscribers, pauses and resume, cancellation, output specs, usage caps, transient errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { waitFor } from '../helpers/wait.js';
import { createApiKey } from '../../src/features/access/admin.js';

let t: TestApp;
let loopback: ModelServer;
let readOnly: string;
beforeAll(async () => {
  loopback = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
  await insertModel(t, 'dev');
  // A model whose streamed answers the test can hold mid-stream (a gate instead of a delay).
  await addLoopbackModel(t, loopback, 'loop');
});
afterAll(async () => {
  await t.stop();
  await loopback.close();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

async function agentWith(config: Record<string, unknown>) {
  const response = await t.rest('POST', '/api/v1/agents', { body: { name: 'engine', config: { model: 'dev', ...config } } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; default_revision_id: string };
}

async function startRun(agentId: string, body: Record<string, unknown> = {}) {
  const response = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('hello'), ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; thread_id: string; agent_revision_id: string };
}

const settle = (runId: string, statuses?: string[]) => settleRun(t, runId, statuses);

const script = (...turns: unknown[][]) => ({ model_settings: { script: turns } });

describe('a run', () => {
  it('completes: echo output, items, committed history, usage', async () => {
    const agent = await agentWith({});
    const run = await startRun(agent.id);
    const done = await settle(run.id);
    expect(done).toMatchObject({ status: 'completed', output: 'echo: hello', attempts: 1, failure: null });
    expect(done.usage_at_seal).toMatchObject({ requests: 1 });
    expect(done.sealed_at).toEqual(expect.any(String));
    expect(done.current_attempt_id).toMatch(/^att_/);
    const items = await t.rest('GET', `/api/v1/runs/${run.id}/items`);
    expect(items.body.items.map((i: { kind: string; ordinal: number; state: string }) => [i.ordinal, i.kind, i.state])).toEqual([
      [1, 'user_message', 'completed'],
      [2, 'text_message', 'completed'],
    ]);
    expect(items.body.items[1].content.text).toBe('echo: hello');
    expect(items.body).toMatchObject({ baseline: true, complete: true, resume_after: '2', run: { id: run.id, status: 'completed' } });
    expect(items.body.continuation).toMatchObject({ run_id: run.id, next_ordinal: 3, fragments: { max_bytes: 67108864, max_pending: 8 } });
    const thread = await t.rest('GET', `/api/v1/threads/${run.thread_id}`);
    expect(thread.body.current_run_id).toBeNull();
    expect(thread.body.message_history.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    // The next run of the thread continues the conversation.
    const next = await startRun(agent.id, { thread_id: run.thread_id, input: text('again') });
    expect((await settle(next.id)).output).toBe('echo: again');
    const history = (await t.rest('GET', `/api/v1/threads/${run.thread_id}`)).body.message_history;
    expect(history).toHaveLength(4);
  });

  it('streams deltas to a graphql-ws subscriber, then completes the subscription', async () => {
    // The model's answer is held after two chunks until the subscriber has seen the item in progress.
    const held = streamGate(2);
    loopback.turns.push({ text: 'Hello world', gate: held.gate });
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'streaming', config: { model: 'loop' } } })).body as {
      id: string;
    };
    const run = await startRun(agent.id);
    await held.reached;
    const ws = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
    });
    const seen: { ordinal: number; state: string; text?: string }[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.subscribe(
        { query: 'subscription($id: ID!) { runItems(runId: $id) { ordinal kind state content lastStreamId } }', variables: { id: run.id } },
        {
          next: (value) => {
            const item = (value.data as any).runItems;
            seen.push({ ordinal: item.ordinal, state: item.state, text: item.content.text });
            // Whatever order replay and live deltas arrive in, the held state is "Hello wo" in progress.
            if (item.ordinal === 2 && item.state === 'in_progress' && item.content.text === 'Hello wo') held.open();
          },
          error: reject,
          complete: resolve,
        },
      );
    });
    await ws.dispose();
    expect(seen).toContainEqual({ ordinal: 2, state: 'in_progress', text: 'Hello wo' });
    expect(seen.filter((i) => i.ordinal === 2).pop()).toMatchObject({ state: 'completed', text: 'Hello world' });
    expect((await settle(run.id)).output).toBe('Hello world');
  });

  it("the items continuation follows the run: what is streaming, earlier items left out, the run's attempt", async () => {
    const held = streamGate(2);
    loopback.turns.push({ text: 'Hello world', gate: held.gate });
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'continued', config: { model: 'loop' } } })).body as {
      id: string;
    };
    const run = await startRun(agent.id);
    await held.reached;
    // Held mid-stream: once the in-progress text is written, the continuation lists it as pending.
    const during = await waitFor(
      async () => (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body,
      (page: any) => page.items.some((i: { state: string; content: { text?: string } }) => i.state === 'in_progress' && i.content.text),
      'the answer in progress to be written',
    );
    const open = during.items.find((i: { state: string }) => i.state === 'in_progress');
    expect(during.complete).toBe(false);
    expect(during.continuation.fragments.pending).toEqual({
      [open.id]: { count: 2, parts: ['role', 'text'], size: Buffer.byteLength('assistant') + Buffer.byteLength(open.content.text) },
    });
    expect(during.continuation.observer.state.parts).toEqual([open.id]);
    expect(during.continuation.position.attempt).toBe(1);
    held.open();
    await settle(run.id);
    const after = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body;
    expect(after.continuation).toMatchObject({
      fragments: { gap: false, pending: {} },
      full_content: true,
      observer: { state: { parts: [], request_index: 1 } },
      position: { attempt: 1 },
    });
    // The newest item alone leaves the first one out; a page from the start does not.
    expect((await t.rest('GET', `/api/v1/runs/${run.id}/items?limit=1`)).body.continuation.fragments.gap).toBe(true);
    expect((await t.rest('GET', `/api/v1/runs/${run.id}/items?after=0&limit=1`)).body.continuation.fragments.gap).toBe(false);
  });

  it('pauses for a client tool call and resumes from the result (idempotently)', async () => {
    const agent = await agentWith({
      ...script([{ tool_call: { id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } } }], [{ text: 'It is sunny.' }]),
      client_tools: [
        {
          name: 'get_weather',
          description: 'Weather',
          parameters_json_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
    });
    const run = await startRun(agent.id);
    const waiting = await settle(run.id);
    expect(waiting).toMatchObject({
      status: 'waiting',
      wait_reason: 'client_tool',
      pending: { approvals: [], calls: [{ tool_call_id: 'call_1', tool_name: 'get_weather', arguments: { city: 'Oslo' } }] },
    });
    const headers = { 'idempotency-key': 'resume-1' };
    expect((await t.rest('POST', `/api/v1/runs/${run.id}/resume`, { body: { calls: {} }, headers })).status).toBe(400);
    expect(
      (await t.rest('POST', `/api/v1/runs/${run.id}/resume`, { body: { calls: { call_1: { status: 'returned', value: 1 } } } })).status,
    ).toBe(400);
    const extra = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers,
      body: { calls: { call_1: { status: 'returned', value: 1 }, call_x: { status: 'returned', value: 2 } } },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.error.details.unknown).toEqual(['call_x']);
    const body = { calls: { call_1: { status: 'returned', value: { sky: 'clear' } } } };
    const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, { headers, body });
    expect(successor.status).toBe(200);
    expect(successor.body).toMatchObject({
      lineage: 'resume',
      trigger: 'resume',
      parent_run_id: run.id,
      resume: { calls: body.calls, approvals: {} },
    });
    const replay = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, { headers, body });
    expect(replay.body.id).toBe(successor.body.id);
    const conflicting = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers,
      body: { calls: { call_1: { status: 'returned', value: 'other' } } },
    });
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.error.code).toBe('idempotency_key_reused');
    const again = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, { headers: { 'idempotency-key': 'resume-2' }, body });
    expect(again.status).toBe(409);
    expect((await t.rest('GET', `/api/v1/runs/${run.id}`)).body.resumed_by_id).toBe(successor.body.id);
    expect((await settle(successor.body.id)).output).toBe('It is sunny.');
    const lineage = await t.rest('GET', `/api/v1/runs/${successor.body.id}/lineage`);
    expect(lineage.body.items.map((r: { id: string }) => r.id)).toEqual([successor.body.id, run.id]);
  });

  it('asks for approval; a denial is reported to the model', async () => {
    const agent = await agentWith({
      ...script(
        [{ tool_call: { id: 'del_1', name: 'delete_file', arguments: { path: '/tmp/x' } } }],
        [{ text: 'Understood, I will not delete it.' }],
      ),
      client_tools: [{ name: 'delete_file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
    });
    const run = await startRun(agent.id);
    const waiting = await settle(run.id);
    expect(waiting).toMatchObject({
      status: 'waiting',
      wait_reason: 'approval',
      pending: { approvals: [{ tool_call_id: 'del_1', tool_name: 'delete_file' }], calls: [] },
    });
    const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': 'deny' },
      body: { approvals: { del_1: { action: 'deny' } } },
    });
    expect(successor.status).toBe(200);
    expect((await settle(successor.body.id)).output).toBe('Understood, I will not delete it.');
    const history = (await t.rest('GET', `/api/v1/threads/${run.thread_id}`)).body.message_history;
    expect(JSON.stringify(history)).toContain('The user denied this tool call.');
  });

  it('asks the user a question when user_questions is on', async () => {
    const agent = await agentWith({
      user_questions: true,
      ...script([{ tool_call: { id: 'q1', name: 'ask_user', arguments: { question: 'Which city?' } } }], [{ text: 'Thanks!' }]),
    });
    const run = await startRun(agent.id);
    const waiting = await settle(run.id);
    expect(waiting).toMatchObject({
      status: 'waiting',
      wait_reason: 'user_question',
      pending: { calls: [{ tool_call_id: 'q1', tool_name: 'ask_user', presentation: { kind: 'question', question: 'Which city?' } }] },
    });
    const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': 'q' },
      body: { calls: { q1: { status: 'returned', value: 'Oslo' } } },
    });
    expect((await settle(successor.body.id)).output).toBe('Thanks!');
  });

  it('is cancelled during a streaming turn, aborting the model call', async () => {
    // The model holds its answer until the test ends: only an aborted call lets the run settle.
    const held = streamGate(1);
    loopback.turns.push({ text: 'thinking hard', gate: held.gate });
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'held', config: { model: 'loop' } } })).body as { id: string };
    const run = await startRun(agent.id);
    await held.reached;
    const cancel = await t.rest('POST', `/api/v1/runs/${run.id}/cancel`);
    expect(cancel.status).toBe(200);
    const done = await settle(run.id, ['cancelled']);
    expect(done.failure).toEqual({ code: 'cancelled', message: 'the run was cancelled' });
    // The aborted request counts: a cancelled run seals with what it consumed (runs.md, usage_at_seal).
    expect(done.usage_at_seal.requests).toBe(1);
    const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
    expect(items.every((i: { state: string }) => i.state !== 'in_progress')).toBe(true);
  });

  it('validates output_spec output and retries once before succeeding', async () => {
    const agent = await agentWith({
      ...script([{ text: 'not json' }], [{ text: '{"answer": 42}' }]),
      output_spec: { name: 'answer', schema: { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'] } },
      retries: { output: 1 },
    });
    expect((await settle((await startRun(agent.id)).id)).output).toEqual({ answer: 42 });
    const strict = await agentWith({
      ...script([{ text: '{"answer": "x"}' }], [{ text: '{"answer": "y"}' }]),
      output_spec: { schema: { type: 'object', properties: { answer: { type: 'integer' } } } },
      retries: { output: 0 },
    });
    const failed = await settle((await startRun(strict.id)).id);
    expect(failed).toMatchObject({ status: 'failed', failure: { code: 'output_invalid' } });
  });

  it('output schemas: one with an $id serves every run, draft-07 is read as draft-07, formats are checked; a schema that cannot be used is refused when written', async () => {
    // The same $id in every run's spec (each run parses its configuration anew) never collides.
    const identified = await agentWith({
      ...script([{ text: '{"a": 1}' }]),
      output_spec: { schema: { $id: 'https://example.com/answer', type: 'object', required: ['a'] } },
    });
    for (const _ of [1, 2])
      expect(await settle((await startRun(identified.id)).id)).toMatchObject({ status: 'completed', output: { a: 1 } });
    const draft07 = await agentWith({
      ...script([{ text: '{"at": "yesterday"}' }]),
      output_spec: {
        schema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { at: { type: 'string', format: 'date-time' } },
        },
      },
    });
    expect(await settle((await startRun(draft07.id)).id)).toMatchObject({ status: 'failed', failure: { code: 'output_invalid' } });
    for (const [outputSpec, field] of [
      [{ schema: { type: 'not-a-type' } }, 'config.output_spec.schema'],
      [{ schema: { $schema: 'http://json-schema.org/draft-04/schema#' } }, 'config.output_spec.schema'],
      [
        {
          variants: [
            { name: 'a', schema: { type: 'object' } },
            { name: 'b', schema: { $ref: '#/$defs/missing' } },
          ],
        },
        'config.output_spec.variants[1].schema',
      ],
    ] as const) {
      const refused = await t.rest('POST', '/api/v1/agents', {
        body: { name: 'refused', config: { model: 'dev', output_spec: outputSpec } },
      });
      expect(refused.status, field).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_argument', details: { field } });
    }
  });

  it('stops at max_usage.requests', async () => {
    const agent = await agentWith({
      ...script([{ tool_call: { name: 'nope' } }], [{ tool_call: { name: 'nope' } }], [{ text: 'done' }]),
      retries: { tools: 5 },
    });
    const run = await startRun(agent.id, { options: { max_usage: { requests: 2 } } });
    expect(await settle(run.id)).toMatchObject({
      status: 'failed',
      failure: { code: 'usage_limit_exceeded' },
      usage_at_seal: { requests: 2 },
    });
  });

  it('retries a transient provider error as new attempts, then fails with the error', async () => {
    const agent = await agentWith({
      model_settings: { script: [[{ error: { message: 'overloaded', transient: true } }]], after_script: 'echo' },
    });
    // The first turn fails on every attempt (an attempt starts again from the committed history),
    // so the run uses all its attempts and then fails; each attempt leaves its error item.
    const run = await startRun(agent.id);
    const done = await settle(run.id, ['failed', 'completed']);
    expect(done.attempts).toBe(3);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'model_error' } });
    const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
    expect(items.filter((i: { kind: string }) => i.kind === 'error')).toHaveLength(3);
    expect(items.map((i: { ordinal: number }) => i.ordinal)).toEqual(items.map((_: unknown, index: number) => index + 1));
  });
});

describe('usage of a run that fails', () => {
  it('seals with the requests it made, the one that broke included', async () => {
    const agent = await agentWith({
      ...script(
        [{ tool_call: { id: 'c1', name: 'http_request', arguments: { method: 'GET', url: `${t.url}/healthz` } } }],
        [{ error: { message: 'the model is broken' } }],
      ),
      plugins: [{ plugin_key: 'http_request', config: { permission: 'allow', methods: ['GET'] } }],
    });
    const sealed = await settle((await startRun(agent.id)).id);
    expect(sealed.status).toBe('failed');
    expect(sealed.failure.code).toBe('model_error');
    expect(sealed.usage_at_seal.requests).toBe(2);
  });
});

describe('run item content', () => {
  it('streams reasoning as a reasoning item before the answer', async () => {
    const agent = await agentWith(script([{ reasoning: 'The user said go, ' }, { reasoning: 'so I answer.' }, { text: 'Going.' }]));
    const run = await settle((await startRun(agent.id)).id);
    expect(run.status).toBe('completed');
    const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
    expect(items.map((item: { kind: string; state: string }) => [item.kind, item.state])).toEqual([
      ['user_message', 'completed'],
      ['reasoning', 'completed'],
      ['text_message', 'completed'],
    ]);
    expect(items[1].content.text).toBe('The user said go, so I answer.');
    expect(items[2].content.text).toBe('Going.');
    expect(run.output).toBe('Going.');
  });

  it('keeps a preview of text beyond 64 KiB inline and describes the rest in content_refs', async () => {
    const long = 'abcdefghij'.repeat(7_000); // 70 000 bytes
    const agent = await agentWith(script([{ text_chunks: [long.slice(0, 35_000), long.slice(35_000)] }]));
    const run = await settle((await startRun(agent.id)).id);
    expect(run.status).toBe('completed');
    const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
    const message = items.find((item: { kind: string }) => item.kind === 'text_message');
    expect(message.content.text).toBe(long.slice(0, 1024));
    expect(message.content_refs.text).toEqual({
      id: `${message.id}:text`,
      media_type: 'text/plain; charset=utf-8',
      preview: long.slice(0, 1024),
      size_bytes: 70_000,
      truncated: true,
    });
    // The committed history and the output keep the whole text.
    expect(run.output).toBe(long);
    expect(items.find((item: { kind: string }) => item.kind === 'user_message').content_refs).toEqual({});
  });
});

describe('the items response', () => {
  // Pages of every shape: the newest page, one item, before, after, and empty pages past either end.
  const pageShapes = ['', '?limit=1', '?before=3&limit=1', '?before=2', '?after=1&limit=1', '?after=1', '?after=99', '?before=1'];
  const completeOnEveryPage = async (runId: string) => {
    const seen: Record<string, boolean> = {};
    for (const query of pageShapes) {
      const page = await t.rest('GET', `/api/v1/runs/${runId}/items${query}`);
      expect(page.status, query).toBe(200);
      seen[query] = page.body.complete;
    }
    return seen;
  };
  const everywhere = (value: boolean) => Object.fromEntries(pageShapes.map((query) => [query, value]));

  it('says `complete` per run: the same on every page of a sealed, a waiting and a running run', async () => {
    // Sealed, with three items (user message, reasoning, answer).
    const sealed = await settle((await startRun((await agentWith(script([{ reasoning: 'hm' }, { text: 'done' }]))).id)).id);
    expect(sealed.status).toBe('completed');
    expect((await t.rest('GET', `/api/v1/runs/${sealed.id}/items`)).body.items).toHaveLength(3);
    expect(await completeOnEveryPage(sealed.id)).toEqual(everywhere(true));

    // Waiting for a client tool: its history is committed and nothing is in progress.
    const pauses = await agentWith({
      ...script([{ reasoning: 'ask' }, { tool_call: { id: 'c1', name: 'pick' } }]),
      client_tools: [{ name: 'pick' }],
    });
    const waiting = await settle((await startRun(pauses.id)).id);
    expect(waiting.status).toBe('waiting');
    expect((await t.rest('GET', `/api/v1/runs/${waiting.id}/items`)).body.items.length).toBeGreaterThanOrEqual(3);
    expect(await completeOnEveryPage(waiting.id)).toEqual(everywhere(true));

    // Running, mid-answer: its text item is still in progress (the model pauses after a first delta).
    const slow = await agentWith(script([{ reasoning: 'first' }, { text: 'partial' }, { delay_ms: 60_000 }, { text: 'never' }]));
    const running = await startRun(slow.id);
    await waitFor(
      async () => (await t.rest('GET', `/api/v1/runs/${running.id}/items`)).body.items,
      (items: { kind: string; state: string }[]) => items.some((item) => item.kind === 'text_message' && item.state === 'in_progress'),
      'an answer in progress',
    );
    expect(await completeOnEveryPage(running.id)).toEqual(everywhere(false));
    expect((await t.rest('POST', `/api/v1/runs/${running.id}/cancel`)).status).toBe(200);
    await settle(running.id, ['cancelled']);
    expect(await completeOnEveryPage(running.id)).toEqual(everywhere(true));
  });
});

describe('revision pinning', () => {
  it('a waiting run keeps the revision it started with after the default moves: its agent_revision_id, its agent view and its resume', async () => {
    // Each revision scripts its own answer to the client call, so the successor's output says which one ran.
    const pausing = (answer: string, instructions: string) => ({
      instructions,
      client_tools: [{ name: 'pick', parameters_json_schema: { type: 'object' } }],
      ...script([{ tool_call: { id: 'p1', name: 'pick', arguments: {} } }], [{ text: answer }]),
    });
    const agent = await agentWith(pausing('answered by revision 1', 'first'));
    const pinned = agent.default_revision_id;
    const run = await startRun(agent.id);
    expect(await settle(run.id)).toMatchObject({ status: 'waiting', wait_reason: 'client_tool', agent_revision_id: pinned });
    const moved = await t.rest('POST', `/api/v1/agents/${agent.id}/revisions`, {
      headers: { 'if-match': '*' },
      body: { config: { model: 'dev', ...pausing('answered by revision 2', 'second') } },
    });
    expect(moved.status).toBe(201);
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}`)).body.default_revision_id).toBe(moved.body.id);

    expect((await t.rest('GET', `/api/v1/runs/${run.id}`)).body.agent_revision_id).toBe(pinned);
    const view = await t.rest('GET', `/api/v1/runs/${run.id}/agent`);
    expect(view.body.revision).toMatchObject({ id: pinned, number: 1 });
    expect(view.body.config.instructions).toBe('first');

    const answers = { calls: { p1: { status: 'returned', value: 'a' } } };
    // Resuming is a change: a read-only key is refused before anything is created.
    const refused = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      token: readOnly,
      headers: { 'idempotency-key': 'pinned-ro' },
      body: answers,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'permission_denied', details: { permission: 'write' } });
    expect((await t.rest('GET', `/api/v1/runs/${run.id}`)).body.resumed_by_id).toBeNull();

    const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, { headers: { 'idempotency-key': 'pinned' }, body: answers });
    expect(successor.status).toBe(200);
    expect(successor.body.agent_revision_id).toBe(pinned);
    expect(await settle(successor.body.id)).toMatchObject({ status: 'completed', output: 'answered by revision 1' });
    expect((await t.rest('GET', `/api/v1/runs/${successor.body.id}/agent`)).body.revision.id).toBe(pinned);
    // A new run without a pin takes the new default.
    expect((await startRun(agent.id)).agent_revision_id).toBe(moved.body.id);
  });
});

describe('paging run items', () => {
  type Item = { ordinal: number; state: string; kind: string };
  const ordinals = (items: Item[]) => items.map((item) => item.ordinal);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const page = async (runId: string, query: string) => {
    const response = await t.rest('GET', `/api/v1/runs/${runId}/items${query}`);
    expect(response.status, `${query}: ${JSON.stringify(response.body)}`).toBe(200);
    return response.body.items as Item[];
  };

  // One waiting run with 252 committed items: the user message, then 251 client calls of one model turn.
  let runId: string;
  const CALLS = 251;
  const LAST = CALLS + 1;
  beforeAll(async () => {
    const agent = await agentWith({
      client_tools: [{ name: 'pick', parameters_json_schema: { type: 'object' } }],
      ...script(Array.from({ length: CALLS }, (_, i) => ({ tool_call: { id: `c${i}`, name: 'pick', arguments: {} } }))),
    });
    const waiting = await settle((await startRun(agent.id)).id);
    expect(waiting.status).toBe('waiting');
    runId = waiting.id;
  });

  it('refuse before with after, and limits outside 1 to 500; the default page is the newest 200', async () => {
    const both = await t.rest('GET', `/api/v1/runs/${runId}/items?before=10&after=2`);
    expect(both.status).toBe(400);
    expect(both.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'before' } });
    for (const limit of ['0', '501']) {
      const refused = await t.rest('GET', `/api/v1/runs/${runId}/items?limit=${limit}`);
      expect(refused.status, limit).toBe(400);
      expect(refused.body.error, limit).toMatchObject({ code: 'invalid_argument', details: { field: 'limit' } });
    }
    expect(ordinals(await page(runId, '?limit=1'))).toEqual([LAST]);
    expect(ordinals(await page(runId, '?limit=500'))).toEqual(range(1, LAST));
    expect(ordinals(await page(runId, ''))).toEqual(range(LAST - 199, LAST));
  });

  it('before=N and after=N are exactly the items just before and just after ordinal N', async () => {
    expect(ordinals(await page(runId, '?before=10&limit=3'))).toEqual([7, 8, 9]);
    expect(ordinals(await page(runId, '?after=10&limit=3'))).toEqual([11, 12, 13]);
    expect(ordinals(await page(runId, '?before=4'))).toEqual([1, 2, 3]);
    expect(ordinals(await page(runId, `?after=${LAST - 2}`))).toEqual([LAST - 1, LAST]);
    expect(ordinals(await page(runId, '?after=0&limit=2'))).toEqual([1, 2]);
    expect(ordinals(await page(runId, `?before=${LAST + 1}&limit=2`))).toEqual([LAST - 1, LAST]);
    // The default limit applies to before and after too.
    expect(ordinals(await page(runId, '?after=0'))).toEqual(range(1, 200));
    expect(ordinals(await page(runId, `?before=${LAST}`))).toEqual(range(LAST - 200, LAST - 1));
    expect(await page(runId, '?before=1')).toEqual([]);
    expect(await page(runId, `?after=${LAST}`)).toEqual([]);
  });

  it('committed items read through after and through before are identical', async () => {
    const forwards: Item[] = [];
    for (let after = 0; ;) {
      const items = await page(runId, `?after=${after}&limit=37`);
      if (!items.length) break;
      // Each page must move on, or the walk would never end.
      expect(items[0]!.ordinal).toBeGreaterThan(after);
      forwards.push(...items);
      after = items[items.length - 1]!.ordinal;
    }
    const backwards: Item[] = [];
    for (let before = LAST + 1; ;) {
      const items = await page(runId, `?before=${before}&limit=41`);
      if (!items.length) break;
      expect(items[items.length - 1]!.ordinal).toBeLessThan(before);
      backwards.unshift(...items);
      before = items[0]!.ordinal;
    }
    expect(ordinals(forwards)).toEqual(range(1, LAST));
    expect(backwards).toEqual(forwards);
    expect(await page(runId, '?limit=500')).toEqual(forwards);
  });

  it('without before or after: the newest items, and always the live tail from the oldest item still in progress', async () => {
    // One model turn streams an answer, then reasoning, and holds: both items stay in progress until it is cancelled.
    const agent = await agentWith(script([{ text: 'partial' }, { reasoning: 'thinking' }, { delay_ms: 600_000 }]));
    const running = await startRun(agent.id);
    const open = await waitFor(
      () => page(running.id, ''),
      (items) => items.length === 3 && items.every((item) => item.ordinal === 1 || item.state === 'in_progress'),
      'the answer and the reasoning in progress',
    );
    expect(open.map((item) => [item.ordinal, item.kind, item.state])).toEqual([
      [1, 'user_message', 'completed'],
      [2, 'text_message', 'in_progress'],
      [3, 'reasoning', 'in_progress'],
    ]);
    // limit=1 would be the reasoning alone; the answer before it is still in progress, so it comes too.
    expect(ordinals(await page(running.id, '?limit=1'))).toEqual([2, 3]);
    // Paged explicitly, the limit holds.
    expect(ordinals(await page(running.id, '?after=1&limit=1'))).toEqual([2]);
    expect((await t.rest('POST', `/api/v1/runs/${running.id}/cancel`)).status).toBe(200);
    await settle(running.id, ['cancelled']);
    // Sealed, nothing is in progress any more: limit=1 is the newest item alone.
    expect(ordinals(await page(running.id, '?limit=1'))).toEqual([3]);
  });
});
