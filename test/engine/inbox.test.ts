// Inbox deliveries (steer, queue, interrupt), entry editing, and fork with lineage.
import { recordStatements } from '../helpers/query-plans.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { createWorkspace } from '../../src/features/access/admin.js';
import { waitFor } from '../helpers/wait.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, userTexts, type ModelServer } from '../helpers/model-servers.js';

let t: TestApp;
let otherKey: string;
// A model whose answers the tests hold until they have done what must happen while a run is active.
let loopback: ModelServer;
beforeAll(async () => {
  loopback = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  await insertModel(t, 'dev');
  await addLoopbackModel(t, loopback, 'loop');
});
afterAll(async () => {
  await t.stop();
  await loopback.close();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
async function agentWith(config: Record<string, unknown>) {
  return (await t.rest('POST', '/api/v1/agents', { body: { name: 'inbox', config: { model: 'dev', ...config } } })).body as { id: string };
}
const getRun = async (id: string) => (await t.rest('GET', `/api/v1/runs/${id}`)).body;
const settled = (id: string) =>
  waitFor(
    () => getRun(id),
    (run) => ['completed', 'failed', 'cancelled', 'waiting'].includes(run.status),
    `run ${id}`,
  );

/**
 * A run on a new thread whose first model request asks for a tool (so a second request follows) and is
 * held until the test opens it; the second answers `answer`.
 */
async function runHeldAtFirstRequest(input: string, answer: string) {
  const held = streamGate();
  loopback.turns.push({ tool: { id: `call_${input}`, name: 'missing_tool', arguments: {} }, gate: held.gate }, { text: answer });
  const agent = await agentWith({ model: 'loop', retries: { tools: 1 } });
  const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
  const first = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { agent_id: agent.id, payload: text(input) } })).body;
  await held.reached;
  return { held, thread, first };
}

/** The statements that write an idempotency record, in order: the key's claim, then the one carrying its result. */
const keyedStatements = (statements: readonly { text: string }[]) =>
  statements
    .filter((statement) => /idempotency_records/.test(statement.text))
    .map((statement) =>
      /^\s*INSERT/.test(statement.text) ? 'INSERT' : /INSERT INTO runs\b/.test(statement.text) ? 'WITH … INSERT INTO runs' : statement.text,
    );

/** Reads of a delivery's answer after its write (an entry with its thread and run, read back). */
const answerReads = (statements: readonly { text: string }[]) =>
  statements.filter((statement) => statement.text.includes('"entry.id"') && /^\s*SELECT/.test(statement.text));

describe('thread inbox', () => {
  it('a delivery to an idle thread writes its run, its entry and its key’s result, and answers from that one statement', async () => {
    const agent = await agentWith({});
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const headers = { 'idempotency-key': 'idle-delivery' };
    const body = { agent_id: agent.id, payload: text('hello') };
    const { result: delivered, statements } = await recordStatements(() =>
      t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { headers, body }),
    );
    expect(delivered.status).toBe(201);
    expect(keyedStatements(statements)).toEqual(['INSERT', 'WITH … INSERT INTO runs']);
    expect(answerReads(statements)).toEqual([]);
    const { entry, run, thread: after } = delivered.body;
    expect(entry).toMatchObject({ thread_id: thread.id, status: 'assigned', assigned_run_id: run.id, position: 1 });
    expect(run).toMatchObject({ status: 'accepted', thread_id: thread.id, source_entry_id: entry.id });
    expect(after).toMatchObject({ id: thread.id, current_run_id: run.id, last_run_id: run.id });
    // The answer is the entry as stored: a read of it now differs only in what the run changed since.
    const {
      status: _status,
      updated_at: _updated,
      finished_at: _finished,
      ...stored
    } = (await t.rest('GET', `/api/v1/threads/${thread.id}/inbox/${entry.id}`)).body;
    expect(entry).toMatchObject(stored);
    const replay = await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { headers, body });
    expect(replay.body.entry.id).toBe(entry.id);
    expect(replay.body.run.id).toBe(run.id);
    expect((await settled(run.id)).output).toBe('echo: hello');
  });

  it('starts a run at once when the thread is idle, then queues behind an active run; the promotion locks and reads the thread once', async () => {
    const held = streamGate(1);
    loopback.turns.push({ text: 'first done', gate: held.gate });
    const slow = await agentWith({ model: 'loop' });
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const first = await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { agent_id: slow.id, payload: text('one') } });
    expect(first.status).toBe(201);
    expect(first.body.entry).toMatchObject({
      kind: 'message',
      delivery: 'queue',
      status: 'assigned',
      position: 1,
      assigned_run_id: first.body.run.id,
    });
    expect(first.body.thread.current_run_id).toBe(first.body.run.id);
    const queued = await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('two'), delivery: 'queue' } });
    expect(queued.body.entry).toMatchObject({ status: 'pending', position: 2, assigned_run_id: null, origin_run_id: first.body.run.id });
    expect(queued.body.run.id).toBe(first.body.run.id);
    // From the first run's answer to the queued entry's run: the seal, the promotion, the next run.
    const { result: entry, statements } = await recordStatements(async () => {
      held.open();
      expect((await settled(first.body.run.id)).output).toBe('first done');
      return waitFor(
        () => t.rest('GET', `/api/v1/threads/${thread.id}/inbox/${queued.body.entry.id}`).then((r) => r.body),
        (e) => e.status === 'completed',
        'queued entry',
      );
    });
    // The promotion's transaction reads the thread once, locking it (a lock, then a read, before).
    const threadReads = statements.filter(
      (s) => s.inTransaction && /^\s*SELECT\b/i.test(s.text) && /\bthreads\b/.test(s.text) && s.values.includes(thread.id),
    );
    expect(threadReads.map((s) => /FOR UPDATE/.test(s.text))).toEqual([true]);
    const second = await getRun(entry.assigned_run_id);
    expect(second).toMatchObject({ trigger: 'queue', status: 'completed', source_entry_id: entry.id });
    const list = await t.rest('GET', `/api/v1/threads/${thread.id}/inbox`);
    expect(list.body.items.map((e: { position: number; status: string }) => [e.position, e.status])).toEqual([
      [1, 'completed'],
      [2, 'completed'],
    ]);
    expect((await t.rest('GET', `/api/v1/threads/${thread.id}/inbox?status=pending`)).body.items).toEqual([]);
  });

  it('interrupt cancels the active run and goes next', async () => {
    // Never opened: only the interrupt ends this run.
    const held = streamGate(1);
    loopback.turns.push({ text: 'working on it', gate: held.gate });
    const slow = await agentWith({ model: 'loop' });
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const first = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { agent_id: slow.id, payload: text('long') } })).body;
    await held.reached;
    const echo = await agentWith({});
    const interrupt = await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, {
      body: { agent_id: echo.id, payload: text('stop that'), delivery: 'interrupt' },
    });
    expect(interrupt.status).toBe(201);
    expect((await settled(first.run.id)).status).toBe('cancelled');
    const entry = await waitFor(
      () => t.rest('GET', `/api/v1/threads/${thread.id}/inbox/${interrupt.body.entry.id}`).then((r) => r.body),
      (e) => e.assigned_run_id !== null,
      'interrupt entry assigned',
    );
    expect(await settled(entry.assigned_run_id)).toMatchObject({ status: 'completed', output: 'echo: stop that' });
  });

  it('steer joins the active run at its next model request', async () => {
    const { held, thread, first } = await runHeldAtFirstRequest('start', 'considered');
    const requestsBefore = loopback.requests.length;
    const steer = await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, {
      body: { payload: text('also consider this'), delivery: 'steer' },
    });
    expect(steer.body.entry.status).toBe('pending');
    held.open();
    const run = await settled(first.run.id);
    const entry = (await t.rest('GET', `/api/v1/threads/${thread.id}/inbox/${steer.body.entry.id}`)).body;
    expect(run).toMatchObject({ status: 'completed', output: 'considered' });
    // The model's next request carried the steered message.
    expect(userTexts(loopback.requests[requestsBefore]!)).toEqual(['start', 'also consider this']);
    expect(entry).toMatchObject({ status: 'incorporated', assigned_run_id: first.run.id, incorporated_checkpoint_seq: 1 });
    const items = (await t.rest('GET', `/api/v1/runs/${first.run.id}/items`)).body.items;
    expect(items.some((i: { kind: string; content: { steered?: boolean } }) => i.kind === 'user_message' && i.content.steered)).toBe(true);
  });

  it('a model request reads the steer queue only when a steer entry was delivered to its thread', async () => {
    const { statements } = await recordStatements(async () => {
      loopback.turns.push(
        { tool: { id: 'call_q1', name: 'missing_tool', arguments: {} } },
        { tool: { id: 'call_q2', name: 'missing_tool', arguments: {} } },
        { text: 'done' },
      );
      const agent = await agentWith({ model: 'loop', retries: { tools: 2 } });
      const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: text('go') } })).body;
      expect(await settled(run.id)).toMatchObject({ status: 'completed', output: 'done' });
    });
    // Three model requests and no steer: the claim said none was pending and no NOTIFY came, so no read.
    const reads = statements.filter((statement) => statement.text.includes('"inbox_entries"') && statement.text.includes('"delivery"'));
    expect(reads).toEqual([]);
  });

  it('an edit that makes a pending entry steer joins the active run at its next model request', async () => {
    const { held, thread, first } = await runHeldAtFirstRequest('begin', 'steered late');
    const queued = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('join in after all') } })).body;
    const requestsBefore = loopback.requests.length;
    const edited = await t.rest('PATCH', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`, {
      headers: { 'if-match': '*' },
      body: { delivery: 'steer' },
    });
    expect(edited.body.entry).toMatchObject({ delivery: 'steer', status: 'pending' });
    held.open();
    expect(await settled(first.run.id)).toMatchObject({ status: 'completed', output: 'steered late' });
    expect(userTexts(loopback.requests[requestsBefore]!)).toEqual(['begin', 'join in after all']);
    expect((await t.rest('GET', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`)).body).toMatchObject({
      status: 'incorporated',
      assigned_run_id: first.run.id,
    });
  });

  it('a steer no worker heard of (delivered before any listened) joins the run that claims it', async () => {
    // The first instance runs no workers: its run stays accepted, and its steer's NOTIFY reaches no one.
    const front = await startTestApp({ runWorkers: 0, allowPlainHttpEndpoints: ['127.0.0.1'] });
    let worker: TestApp | undefined;
    try {
      await addLoopbackModel(front, loopback, 'loop');
      const agent = (
        await front.rest('POST', '/api/v1/agents', { body: { name: 'claimed', config: { model: 'loop', retries: { tools: 1 } } } })
      ).body;
      const thread = (await front.rest('POST', '/api/v1/threads', { body: {} })).body;
      const first = (
        await front.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { agent_id: agent.id, payload: text('opening') } })
      ).body;
      expect(first.run.status).toBe('accepted');
      const steer = (
        await front.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('heard at the claim'), delivery: 'steer' } })
      ).body;
      expect(steer.entry.status).toBe('pending');
      loopback.turns.push({ tool: { id: 'call_c1', name: 'missing_tool', arguments: {} } }, { text: 'claimed with it' });
      const requestsBefore = loopback.requests.length;
      // A second instance with workers claims the run: the claim reads that a steer entry is pending.
      worker = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] }, front);
      const run = await waitFor(
        () => front.rest('GET', `/api/v1/runs/${first.run.id}`).then((r) => r.body),
        (r) => ['completed', 'failed'].includes(r.status),
        'claimed run',
      );
      expect(run).toMatchObject({ status: 'completed', output: 'claimed with it' });
      expect(userTexts(loopback.requests[requestsBefore + 1]!)).toEqual(['opening', 'heard at the claim']);
      expect((await front.rest('GET', `/api/v1/threads/${thread.id}/inbox/${steer.entry.id}`)).body).toMatchObject({
        status: 'incorporated',
        assigned_run_id: first.run.id,
      });
    } finally {
      await worker?.stop();
      await front.stop();
    }
  });

  it('edits pending entries only, with the thread ETag', async () => {
    const held = streamGate(1);
    loopback.turns.push({ text: 'first answer', gate: held.gate }, { text: 'echo: B' });
    const slow = await agentWith({ model: 'loop' });
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const first = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { agent_id: slow.id, payload: text('a') } })).body;
    const queued = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { payload: text('b') } })).body;
    const etag = (await t.rest('GET', `/api/v1/threads/${thread.id}`)).headers.get('etag')!;
    expect((await t.rest('PATCH', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`, { body: { payload: text('B') } })).status).toBe(
      428,
    );
    const edited = await t.rest('PATCH', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`, {
      headers: { 'if-match': etag },
      body: { payload: text('B'), delivery: 'queue' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.entry.payload).toEqual(text('B'));
    expect(edited.body.thread.version).toBe(thread.version + 1);
    // The same edit again changes nothing: the thread keeps its version (and its ETag stays valid).
    const again = await t.rest('PATCH', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`, {
      headers: { 'if-match': `"${thread.id}:${thread.version + 1}"` },
      body: { payload: text('B'), delivery: 'queue' },
    });
    expect(again.status).toBe(200);
    expect(again.body.thread.version).toBe(thread.version + 1);
    expect(
      (
        await t.rest('PATCH', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`, {
          headers: { 'if-match': etag },
          body: { payload: text('C') },
        })
      ).status,
    ).toBe(412);
    const notPending = await t.rest('PATCH', `/api/v1/threads/${thread.id}/inbox/${first.entry.id}`, {
      headers: { 'if-match': '*' },
      body: { payload: text('late') },
    });
    expect(notPending.status).toBe(409);
    held.open();
    const entry = await waitFor(
      () => t.rest('GET', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`).then((r) => r.body),
      (e) => e.status === 'completed',
      'edited entry ran',
    );
    expect((await getRun(entry.assigned_run_id)).output).toBe('echo: B');
    for (const [method, path] of [
      ['GET', `/api/v1/threads/${thread.id}/inbox`],
      ['GET', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`],
      ['PATCH', `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`],
      ['POST', `/api/v1/threads/${thread.id}/inbox`],
    ] as const) {
      expect(
        (
          await t.rest(method, path, {
            token: otherKey,
            headers: { 'if-match': '*' },
            body: method === 'GET' ? undefined : { payload: text('x') },
          })
        ).status,
        `${method} ${path}`,
      ).toBe(404);
    }
  });
});

describe('idempotency keys', () => {
  it('a key binds its request until its record expires; then it starts a new request', async () => {
    const agent = await agentWith({});
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const deliver = (value: string) =>
      t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, {
        headers: { 'idempotency-key': 'expiring' },
        body: { agent_id: agent.id, payload: text(value) },
      });
    const first = await deliver('one');
    expect(first.status, JSON.stringify(first.body)).toBeLessThan(300);
    expect((await deliver('one')).body.entry.id).toBe(first.body.entry.id);
    expect((await deliver('two')).status).toBe(409);
    await settled(first.body.run.id);
    // The record's lifetime is over (the shortest configurable one is a minute): the key is free again.
    await t.app.deps.db.$executeRaw`UPDATE idempotency_records SET expires_at = now() - interval '1 second' WHERE key = 'expiring'`;
    const second = await deliver('two');
    expect(second.status, JSON.stringify(second.body)).toBeLessThan(300);
    expect(second.body.entry.id).not.toBe(first.body.entry.id);
    expect((await settled(second.body.run.id)).output).toBe('echo: two');
    // And the new record binds it again.
    expect((await deliver('two')).body.entry.id).toBe(second.body.entry.id);
    expect((await deliver('three')).status).toBe(409);
  });
});

describe('idempotent deliveries and edits', () => {
  it('an edit keeps the original request digest: a replay of the original delivery still matches, the edited body does not', async () => {
    // The busy run's model pauses for ten minutes: the delivery below stays pending until the run is cancelled.
    const busy = await agentWith({ model_settings: { script: [[{ delay_ms: 600_000 }]] } });
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const first = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { agent_id: busy.id, payload: text('a') } })).body;
    const echo = await agentWith({});
    const original = { agent_id: echo.id, payload: text('original'), delivery: 'queue' };
    const headers = { 'idempotency-key': 'edited-later' };
    const delivered = await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { headers, body: original });
    expect(delivered.status).toBe(201);
    expect(delivered.body.entry.status).toBe('pending');
    const entryPath = `/api/v1/threads/${thread.id}/inbox/${delivered.body.entry.id}`;
    // The entry's own digest of its request is not in its view; it is read from the row.
    const storedDigest = async () =>
      (await t.app.deps.db.inboxEntry.findUniqueOrThrow({ where: { id: delivered.body.entry.id } })).requestDigest;
    const digestBefore = await storedDigest();
    const read = await t.rest('GET', entryPath);
    const edited = await t.rest('PATCH', entryPath, {
      headers: { 'if-match': read.headers.get('etag')! },
      body: { payload: text('edited') },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.entry.payload).toEqual(text('edited'));
    expect(await storedDigest()).toBe(digestBefore);

    // The original request, sent again with its key: the same delivery (as it is now, edited), nothing new.
    const replay = await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { headers, body: original });
    expect(replay.status, JSON.stringify(replay.body)).toBe(201);
    expect(replay.body.entry).toMatchObject({ id: delivered.body.entry.id, payload: text('edited') });
    // The edited body is another request under that key.
    const asEdited = await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, {
      headers,
      body: { ...original, payload: text('edited') },
    });
    expect(asEdited.status).toBe(409);
    expect(asEdited.body.error.code).toBe('idempotency_key_reused');
    const entries = (await t.rest('GET', `/api/v1/threads/${thread.id}/inbox`)).body.items;
    expect(entries.map((entry: { id: string }) => entry.id)).toEqual([first.entry.id, delivered.body.entry.id]);
    expect((await t.rest('POST', `/api/v1/runs/${first.run.id}/cancel`)).status).toBe(200);
  });
});

describe('inbox entry reads', () => {
  it("GET of an entry returns the thread's ETag, which edits take as If-Match until the thread changes", async () => {
    // A run that stays active (its model pauses for a minute) keeps a queued entry pending.
    const busy = await agentWith({ model_settings: { script: [[{ delay_ms: 60_000 }, { text: 'x' }]], after_script: 'echo' } });
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const first = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { agent_id: busy.id, payload: text('a') } })).body;
    const echo = await agentWith({});
    const queued = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { agent_id: echo.id, payload: text('b') } })).body;
    expect(queued.entry.status).toBe('pending');
    const entryPath = `/api/v1/threads/${thread.id}/inbox/${queued.entry.id}`;

    const read = await t.rest('GET', entryPath);
    expect(read.status).toBe(200);
    const threadEtag = (await t.rest('GET', `/api/v1/threads/${thread.id}`)).headers.get('etag');
    expect(read.headers.get('etag')).toBe(threadEtag);
    expect(read.body).not.toHaveProperty('etag');
    expect(read.body.incorporated_checkpoint_seq).toBe(0);

    const edited = await t.rest('PATCH', entryPath, { headers: { 'if-match': read.headers.get('etag')! }, body: { payload: text('B') } });
    expect(edited.status).toBe(200);
    // The edit moved the thread's version: the entry's next read carries the new ETag, the old one is refused.
    const reread = await t.rest('GET', entryPath);
    expect(reread.headers.get('etag')).toBe(`"${thread.id}:${edited.body.thread.version}"`);
    expect(
      (await t.rest('PATCH', entryPath, { headers: { 'if-match': read.headers.get('etag')! }, body: { payload: text('C') } })).status,
    ).toBe(412);

    // Any change of the thread makes the entry's ETag stale too.
    const relabelled = await t.rest('PATCH', `/api/v1/threads/${thread.id}`, {
      headers: { 'if-match': reread.headers.get('etag')! },
      body: { labels: { team: 'a' } },
    });
    expect(relabelled.status).toBe(200);
    const stale = await t.rest('PATCH', entryPath, { headers: { 'if-match': reread.headers.get('etag')! }, body: { payload: text('D') } });
    expect(stale.status).toBe(412);
    expect(stale.body.error.details.current_etag).toBe(relabelled.headers.get('etag'));
    const fresh = await t.rest('GET', entryPath);
    expect(fresh.headers.get('etag')).toBe(relabelled.headers.get('etag'));
    expect(
      (await t.rest('PATCH', entryPath, { headers: { 'if-match': fresh.headers.get('etag')! }, body: { payload: text('E') } })).status,
    ).toBe(200);

    // GraphQL exposes the same ETag on the entry.
    const gql = await t.graphql(
      `query($t: ID!, $e: ID!) { inboxEntry(threadId: $t, entryId: $e) { threadEtag incorporatedCheckpointSeq } }`,
      { t: thread.id, e: queued.entry.id },
    );
    expect(gql.data.inboxEntry).toEqual({ threadEtag: (await t.rest('GET', entryPath)).headers.get('etag'), incorporatedCheckpointSeq: 0 });

    // Cancelling the busy run lets the edited entry run.
    expect((await t.rest('POST', `/api/v1/runs/${first.run.id}/cancel`)).status).toBe(200);
    const ran = await waitFor(
      () => t.rest('GET', entryPath).then((r) => r.body),
      (e) => e.status === 'completed',
      'edited entry ran',
    );
    expect((await getRun(ran.assigned_run_id)).output).toBe('echo: E');
  });
});

describe('fork', () => {
  it('continues a run’s committed history in a new thread of the same session; lineage spans resume and fork', async () => {
    const agent = await agentWith({
      client_tools: [{ name: 'pick' }],
      model_settings: { script: [[{ tool_call: { id: 'p1', name: 'pick' } }], [{ text: 'picked' }]], after_script: 'echo' },
    });
    const root = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: text('choose') } })).body;
    await settled(root.id);
    const { result: resumption, statements: resumeStatements } = await recordStatements(() =>
      t.rest('POST', `/api/v1/runs/${root.id}/resume`, {
        headers: { 'idempotency-key': 'r' },
        body: { calls: { p1: { status: 'returned', value: 'blue' } } },
      }),
    );
    // The key's claim, then the successor written with the key's result in the same statement.
    expect(keyedStatements(resumeStatements)).toEqual(['INSERT', 'WITH … INSERT INTO runs']);
    const resumed = resumption.body;
    expect((await settled(resumed.id)).output).toBe('picked');
    expect((await t.rest('POST', `/api/v1/runs/${resumed.id}/fork`, { body: { payload: text('x') } })).status).toBe(400);
    const headers = { 'idempotency-key': 'fork-1' };
    const { result: fork, statements: forkStatements } = await recordStatements(() =>
      t.rest('POST', `/api/v1/runs/${resumed.id}/fork`, {
        headers,
        body: { agent_id: agent.id, payload: text('and now?') },
      }),
    );
    expect(fork.status).toBe(201);
    // The new thread, entry and run, the key's result and the answer: one statement after the key's claim.
    expect(keyedStatements(forkStatements)).toEqual(['INSERT', 'WITH … INSERT INTO runs']);
    expect(answerReads(forkStatements)).toEqual([]);
    expect(fork.body.thread).toMatchObject({
      origin: 'fork',
      origin_run_id: resumed.id,
      origin_thread_id: root.thread_id,
      session_id: root.session_id,
    });
    expect(fork.body.thread.id).not.toBe(root.thread_id);
    expect(fork.body.run).toMatchObject({ lineage: 'fork', trigger: 'fork', parent_run_id: resumed.id, thread_id: fork.body.thread.id });
    expect(fork.body.entry).toMatchObject({ thread_id: fork.body.thread.id, status: 'assigned' });
    const replay = await t.rest('POST', `/api/v1/runs/${resumed.id}/fork`, {
      headers,
      body: { agent_id: agent.id, payload: text('and now?') },
    });
    expect(replay.body.run.id).toBe(fork.body.run.id);
    expect(
      (await t.rest('POST', `/api/v1/runs/${resumed.id}/fork`, { headers, body: { agent_id: agent.id, payload: text('different') } }))
        .status,
    ).toBe(409);
    expect((await settled(fork.body.run.id)).output).toBe('echo: and now?');
    const source = (await t.rest('GET', `/api/v1/threads/${root.thread_id}`)).body.message_history;
    const forked = (await t.rest('GET', `/api/v1/threads/${fork.body.thread.id}`)).body.message_history;
    expect(forked.slice(0, source.length)).toEqual(source);
    const lineage = await t.rest('GET', `/api/v1/runs/${fork.body.run.id}/lineage?limit=2`);
    expect(lineage.body.items.map((r: { id: string }) => r.id)).toEqual([fork.body.run.id, resumed.id]);
    const rest = await t.rest('GET', `/api/v1/runs/${fork.body.run.id}/lineage?limit=2&cursor=${lineage.body.next_cursor}`);
    expect(rest.body).toMatchObject({ items: [{ id: root.id }], next_cursor: null });
    const foreign = await t.rest('POST', `/api/v1/runs/${resumed.id}/fork`, { token: otherKey, headers, body: { payload: text('x') } });
    expect(foreign.status).toBe(404);
  });
});
