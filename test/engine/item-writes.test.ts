// What streaming an answer writes to the database. The item writer writes an item's row when it
// opens, changes otherwise or ends, and only the appended text while it streams (run_item_appends),
// for all runs of the process in one statement per tick: an answer of N tokens costs one statement
// per write batch, never one per token, and bytes written (WAL) grow with its length, not its
// square. Readers of an item still in progress (the items page, Run.items, node(id), REST, a later
// attempt adopting what a dead worker left) see its row and its appends as one text.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunItemStream } from '../../src/engine/items.js';
import { itemsLeftInProgress, writeItems } from '../../src/features/runs/attempt-items.js';
import { newId } from '../../src/lib/ids.js';
import { holdBareRun } from '../helpers/bare-runs.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addLoopbackModel, sse, start, type ModelServer } from '../helpers/model-servers.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
/** A second instance on the same database without run workers: nothing in the background adds statements to its count. */
let quiet: TestApp;
let model: ModelServer;

/** The loopback model's one held answer: the test sends each piece of it. */
let answer: { res: ServerResponse; connected: Promise<void> } | null = null;
let connected!: () => void;

function chunk(res: ServerResponse, delta: unknown, finish: string | null = null) {
  const choice = { index: 0, delta, finish_reason: finish };
  res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [choice] })}\n\n`);
}

beforeAll(async () => {
  model = await start((_state, req, res, body) => {
    if (req.method !== 'POST' || !body?.stream) return void res.writeHead(404).end();
    sse(res);
    chunk(res, { role: 'assistant', content: '' });
    answer!.res = res;
    connected();
  }, 'sk-held');
  t = await startTestApp({ runWorkers: 1, allowPlainHttpEndpoints: ['127.0.0.1'] });
  quiet = await startTestApp({ runWorkers: 0 }, t);
  await addLoopbackModel(t, model, 'held');
});
afterAll(async () => {
  await quiet?.stop();
  await t?.stop();
  await model?.close();
});

/** A bare run row held by `attempt` (test/helpers/bare-runs.ts). */
const holdRun = (runId: string, attempt: number) => holdBareRun(t.databaseUrl, quiet.workspaceId, runId, attempt);

/** An attempt's item stream on the quiet instance, for a run of its own that the attempt holds. */
async function quietStream(runId = newId('run'), attempt = 1, lastOrdinal = 0) {
  await holdRun(runId, attempt);
  return new RunItemStream(quiet.app.deps, { id: runId, workspaceId: quiet.workspaceId, principalId: 'p' }, attempt, lastOrdinal);
}

const storedAppends = async (runId: string) =>
  Number((await t.app.deps.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM run_item_appends WHERE run_id = ${runId}`)[0]!.n);
const storedRow = async (runId: string) =>
  (await t.app.deps.db.runItem.findMany({ where: { runId }, orderBy: { ordinal: 'asc' } })).map((row) => ({
    state: row.state,
    text: (row.content as { text?: string }).text,
  }));

/** WAL bytes PostgreSQL inserted while `work` ran. */
async function walBytes(work: () => Promise<void>): Promise<number> {
  const lsn = async () => (await t.app.deps.db.$queryRaw<{ lsn: string }[]>`SELECT pg_current_wal_insert_lsn()::text AS lsn`)[0]!.lsn;
  const before = await lsn();
  await work();
  const after = await lsn();
  return Number(
    (await t.app.deps.db.$queryRaw<{ n: string }[]>`SELECT pg_wal_lsn_diff(${after}::pg_lsn, ${before}::pg_lsn)::text AS n`)[0]!.n,
  );
}

describe('the item writer', () => {
  it('writes one statement per batch however many tokens it holds, and the appends of later batches only', async () => {
    const stream = await quietStream();
    const count = () => quiet.app.database.operationCount();
    let before = count();
    const item = stream.open('text_message', { text: '' });
    for (let index = 0; index < 500; index++) stream.append(item, 'text', 'tok ');
    await stream.flush();
    // 500 tokens and the opening in one batch: one statement, the row with all of it.
    expect(count() - before).toBe(1);
    expect(await storedRow(stream.runId)).toEqual([{ state: 'in_progress', text: 'tok '.repeat(500) }]);
    expect(await storedAppends(stream.runId)).toBe(0);
    before = count();
    for (let batch = 0; batch < 10; batch++) {
      for (let index = 0; index < 50; index++) stream.append(item, 'text', 'more ');
      await stream.flush();
    }
    // Ten batches: ten statements, each inserting one append (a batch's appends to a member run together);
    // the row is not written again.
    expect(count() - before).toBe(10);
    expect(await storedAppends(stream.runId)).toBe(10);
    expect(await storedRow(stream.runId)).toEqual([{ state: 'in_progress', text: 'tok '.repeat(500) }]);
    // The end: the row holds the whole text, its appends are gone, in the statement handed to the seal.
    stream.append(item, 'text', 'end');
    stream.complete(item);
    before = count();
    await writeItems(quiet.app.deps.db, (await stream.drain())!);
    expect(count() - before).toBe(1);
    expect(await storedRow(stream.runId)).toEqual([{ state: 'completed', text: `${'tok '.repeat(500)}${'more '.repeat(500)}end` }]);
    expect(await storedAppends(stream.runId)).toBe(0);
  });

  it('writes all live runs’ changes in one statement per tick', async () => {
    const streams = await Promise.all(Array.from({ length: 50 }, () => quietStream()));
    const items = streams.map((stream) => stream.open('text_message', { text: 'a' }));
    await streams[0]!.flush();
    const before = quiet.app.database.operationCount();
    for (let index = 0; index < 20; index++) streams.forEach((stream, at) => stream.append(items[at]!, 'text', 'b'));
    await streams[0]!.flush();
    expect(quiet.app.database.operationCount() - before).toBe(1);
    for (const stream of streams) expect(await storedAppends(stream.runId)).toBe(1);
  });

  it('writes WAL bytes linear in an answer’s length even when every token is a batch of its own', async () => {
    const stream = async (tokens: number) => {
      const items = await quietStream();
      const item = items.open('text_message', { text: '' });
      await items.flush();
      for (let index = 0; index < tokens; index++) {
        items.append(item, 'text', 'a token ');
        await items.flush();
      }
      items.complete(item);
      await writeItems(quiet.app.deps.db, (await items.drain())!);
    };
    // WAL is the whole server's: other test files writing meanwhile (on a shared server, or the
    // embedded one) and checkpoints (full-page images) only ever add to a try, so the least of several
    // tries is this work's own.
    const measure = async (tokens: number) => {
      let least = Infinity;
      for (let attempt = 0; attempt < 6; attempt++) least = Math.min(least, await walBytes(() => stream(tokens)));
      return least;
    };
    const short = await measure(150);
    const long = await measure(300);
    // Linear is 2×; rewriting the whole text at each batch would be about 4× (the answer's square). The
    // bound sits between them (near their geometric mean), so a loaded machine's stray WAL cannot fail it.
    expect(long / short).toBeLessThan(3);
  });

  it('hands an item a dead attempt left in progress to the next attempt with its appended text, closed as interrupted', async () => {
    const runId = newId('run');
    const dead = await quietStream(runId);
    dead.open('user_message', { text: 'go' }, 'completed');
    const item = dead.open('text_message', { text: '' });
    dead.append(item, 'text', 'part one');
    await dead.flush();
    dead.append(item, 'text', ', part two');
    await dead.flush();
    dead.append(item, 'text', ', part three');
    await dead.flush();
    // The first attempt's worker dies here: nothing more of it is written.
    expect(await storedAppends(runId)).toBe(2);
    const left = await itemsLeftInProgress(quiet.app.deps.db, runId);
    expect(left.map((row) => [row.ordinal, (row.content as { text: string }).text])).toEqual([[2, 'part one, part two, part three']]);
    const next = await quietStream(runId, 2, 2);
    next.adoptStale(left);
    await writeItems(quiet.app.deps.db, (await next.drain())!);
    expect(await storedRow(runId)).toEqual([
      { state: 'completed', text: 'go' },
      { state: 'failed', text: 'part one, part two, part three' },
    ]);
    expect(await storedAppends(runId)).toBe(0);
  });

  it('an attempt whose run was taken over writes nothing more (its worker lost the database past its lease)', async () => {
    const runId = newId('run');
    const cut = await quietStream(runId);
    cut.open('user_message', { text: 'go' }, 'completed');
    const item = cut.open('text_message', { text: 'part one' });
    await cut.flush();
    // Another worker takes the run over and writes its own item at the same ordinal.
    const next = await quietStream(runId, 2, 1);
    next.open('text_message', { text: 'the new attempt' }, 'completed');
    await writeItems(quiet.app.deps.db, (await next.drain())!);
    // The first attempt comes back: its appends, its item's end and a new item change nothing.
    cut.append(item, 'text', ', part two');
    await cut.flush();
    cut.complete(item);
    cut.open('text_message', { text: 'late' }, 'completed');
    await writeItems(quiet.app.deps.db, (await cut.drain())!);
    expect(await storedRow(runId)).toEqual([
      { state: 'completed', text: 'go' },
      { state: 'completed', text: 'the new attempt' },
    ]);
    expect(await storedAppends(runId)).toBe(0);
  });
});

describe('reading an answer while it streams', () => {
  it('the items page, Run.items, node(id) and REST show the row with its appends; the end leaves the whole text in the row', async () => {
    answer = { res: null as unknown as ServerResponse, connected: new Promise<void>((resolve) => (connected = resolve)) };
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'streamer', config: { model: 'held' } } })).body;
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'go' }] } } }))
      .body;
    await answer.connected;
    const pageText = async () => {
      const data = await t.graphql(`query ($id: ID!) { runItems(runId: $id) { items { kind state content } } }`, { id: run.id });
      return (data.data.runItems.items as { kind: string; content: { text?: string } }[]).find((i) => i.kind === 'text_message')?.content
        .text;
    };
    let sent = '';
    // Each piece waits until the page shows it: every piece after the first is its own write batch.
    for (const piece of ['Hello', ', streaming', ' world', ', in', ' pieces']) {
      chunk(answer.res, { content: piece });
      sent += piece;
      await waitFor(pageText, (text) => text === sent, `the page to show ${JSON.stringify(sent)}`);
    }
    // The row holds the text as it opened; the rest is in appends, which every reader adds.
    expect(await storedAppends(run.id)).toBeGreaterThan(0);
    expect((await storedRow(run.id)).find((row) => row.state === 'in_progress')?.text).not.toBe(sent);
    const connection = await t.graphql(`query ($id: ID!) { node(id: $id) { ... on Run { items { nodes { id kind content } } } } }`, {
      id: run.id,
    });
    const viaRun = (connection.data.node.items.nodes as { id: string; kind: string; content: { text: string } }[]).find(
      (i) => i.kind === 'text_message',
    )!;
    expect(viaRun.content.text).toBe(sent);
    const viaNode = await t.graphql(`query ($id: ID!) { node(id: $id) { ... on RunItem { content } } }`, { id: viaRun.id });
    expect(viaNode.data.node.content.text).toBe(sent);
    const rest = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items as { kind: string; content: { text: string } }[];
    expect(rest.find((i) => i.kind === 'text_message')!.content.text).toBe(sent);
    chunk(answer.res, {}, 'stop');
    answer.res.end('data: [DONE]\n\n');
    await waitFor(
      () => t.rest('GET', `/api/v1/runs/${run.id}`).then((r) => r.body.status),
      (status) => status === 'completed',
      'the run to complete',
    );
    expect(await storedRow(run.id)).toContainEqual({ state: 'completed', text: sent });
    expect(await storedAppends(run.id)).toBe(0);
  });
});
