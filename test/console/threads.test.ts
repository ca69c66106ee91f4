// The threads section in a real browser: the list (filters, paging, create, archive), a thread's runs
// started through the API with a scripted model, the inbox (steer, queue, interrupt, and switching a
// queued entry to steer) against runs held mid-stream, the page following the thread live with no
// polling (runs started elsewhere, the newest run's transcript, the archive), and presence.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { streamGate, userTexts, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';

let app: ConsoleTestApp;
let t: TestApp;
let loopback: ModelServer;
let scripted: { id: string };
let echo: { id: string };

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

const agent = (name: string, config: Record<string, unknown>) => app.createAgent(name, config);

async function newThread(labels: Record<string, string> = {}): Promise<{ id: string; session_id: string }> {
  return (await t.rest('POST', '/api/v1/threads', { body: { labels } })).body;
}

async function deliver(threadId: string, body: Record<string, unknown>) {
  const answer = await t.rest('POST', `/api/v1/threads/${threadId}/inbox`, { body });
  if (answer.status !== 201) throw new Error(`deliver: ${JSON.stringify(answer.body)}`);
  return answer.body as { entry: { id: string }; run: { id: string } };
}

// Every gate a test holds, opened after it (a failed test must not leave a run holding the model).
const gates: { open(): void }[] = [];
function gated<G extends { open(): void }>(gate: G): G {
  gates.push(gate);
  return gate;
}

const signedInPage = (path: string) => app.signedIn(path);

/** The inbox's line about the thread's current run, once it says `status`. */
const runStatus = (within: Page | Locator, runId: string, status: string) =>
  within
    .getByRole('status')
    .filter({ hasText: `Run ${runId} is` })
    .filter({ hasText: status });

/** The inbox table's row for entry `position`. */
const entryRow = (page: Page, position: number) => page.getByRole('row', { name: `Entry ${position}` });

async function send(page: Page, message: string, delivery: 'queue' | 'steer' | 'interrupt') {
  await page.getByLabel('Message', { exact: true }).fill(message);
  await page.getByLabel('Delivery').selectOption(delivery);
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('status').filter({ hasText: 'Sent: entry' }).waitFor();
}

describe.skipIf(!browserAvailable)('the threads section', () => {
  beforeAll(async () => {
    // A short presence TTL: a closed page's participant expires within seconds. Ada and Bob share
    // the thread in the presence test.
    app = await startConsoleTestApp(
      { presenceTtlSeconds: 4 },
      {
        loopbackModel: 'loop',
        devModels: ['dev'],
        users: [
          { email: 'ada@example.com', password: 'correct horse', name: 'Ada', role: 'writer' },
          { email: 'bob@example.com', password: 'battery staple', name: 'Bob', role: 'reader' },
        ],
      },
    );
    t = app.t;
    loopback = app.model!;
    // One model request asks for a missing tool, so a second request follows (where a steer joins).
    scripted = await agent('scripted', { model: 'loop', retries: { tools: 1 } });
    echo = await agent('echo', { model: 'dev' });
  });
  afterEach(() => {
    for (const gate of gates.splice(0)) gate.open();
    loopback.turns.length = 0;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('lists threads with their runs, filters them, creates and archives one', async () => {
    const thread = await newThread({ team: 'research' });
    await newThread({ team: 'ops' });
    loopback.turns.push({ text: 'Hello from the scripted model' });
    const first = await t.graphql(`mutation ($input: StartRunInput!) { startRun(input: $input, wait: 30) { run { id status } } }`, {
      input: { agentId: scripted.id, threadId: thread.id, input: text('Say hello') },
    });
    expect(first.errors).toBeUndefined();
    expect(first.data.startRun.run.status).toBe('completed');
    const second = await deliver(thread.id, { agent_id: echo.id, payload: text('And again') });
    await settleRun(t, second.run.id);

    const page = await signedInPage('/threads');
    await page.getByRole('heading', { name: 'Threads', level: 1 }).waitFor();
    await page.getByRole('link', { name: thread.id }).waitFor();
    await screenshot(page, 'threads-list');

    // The label filter keeps the address; only the matching thread stays.
    await page.getByLabel('Label', { exact: true }).fill('team:research');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/label=team%3Aresearch/);
    await expect.poll(() => page.getByRole('table').getByRole('row').count()).toBe(2);
    await page.getByRole('link', { name: thread.id }).click();

    // The thread page: both runs in order, each with its input and output, linking to the run page.
    await page.getByRole('heading', { name: `Thread ${thread.id}` }).waitFor();
    const runs = page.getByRole('list', { name: 'Runs, oldest first' }).getByRole('listitem');
    await expect.poll(() => runs.count()).toBe(2);
    await expect(runs.nth(0).textContent()).resolves.toMatch(/Say hello[\s\S]*Hello from the scripted model/);
    await expect(runs.nth(1).textContent()).resolves.toMatch(/And again[\s\S]*echo: And again/);
    expect(await runs.nth(1).getByRole('link', { name: second.run.id }).getAttribute('href')).toBe(`/runs/${second.run.id}`);
    await runStatus(page, second.run.id, 'completed').waitFor();
    await screenshot(page, 'threads-thread');

    // Create a thread from the page: the console opens it.
    await page.getByRole('link', { name: 'All threads' }).click();
    await page.getByLabel('Labels for the new thread').fill('team:ops, stage:draft');
    await page.getByRole('button', { name: 'Create thread' }).click();
    const heading = page.getByRole('heading', { name: /^Thread thr_/ });
    await heading.waitFor();
    const createdId = (await heading.textContent())!.replace('Thread ', '');
    const created = (await t.rest('GET', `/api/v1/threads/${createdId}`)).body;
    expect(created.labels).toEqual({ team: 'ops', stage: 'draft' });
    await page.getByText('No runs yet').waitFor();

    // A label that is not key:value is refused before anything is sent.
    await page.getByRole('link', { name: 'All threads' }).click();
    await page.getByLabel('Labels for the new thread').fill('oops');
    await page.getByRole('button', { name: 'Create thread' }).click();
    await page.getByRole('alert').filter({ hasText: '"oops" is not key=value' }).waitFor();
    // The service's refusal shows too: a session that does not exist.
    await page.getByLabel('Labels for the new thread').fill('');
    await page.getByLabel('Session for the new thread').fill('ses_does_not_exist');
    await page.getByRole('button', { name: 'Create thread' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not create the thread' }).waitFor();
    await page.getByLabel('Session for the new thread').fill('');

    // Archive from the list; the archived list shows it.
    await page.getByRole('button', { name: `Archive ${createdId}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Archived ${createdId}` })
      .waitFor();
    await page.getByRole('link', { name: createdId }).waitFor({ state: 'detached' });
    await page.getByLabel('Show').selectOption('archived');
    await page.getByRole('link', { name: createdId }).waitFor();
    expect((await t.rest('GET', `/api/v1/threads/${createdId}`)).body.archived_at).toBeTruthy();
    // The service's refusal shows: an archived thread takes no new messages.
    await page.getByRole('link', { name: createdId }).click();
    await page.getByText('The thread is archived').waitFor();
    // An unknown thread: the service's not-found, not a blank page.
    await page.goto('/threads/thr_unknown');
    await page.getByRole('alert').filter({ hasText: 'not_found' }).waitFor();
    await page.close();
  }, 120_000);

  it('pages through threads', async () => {
    const label = { batch: 'paging' };
    for (let index = 0; index < 27; index++) await newThread(label);
    const page = await signedInPage('/threads?label=batch:paging');
    const rows = page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(26); // a header and the first 25
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows.count()).toBe(28);
    await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
    await page.close();
  });

  it('steers, switches a queued entry to steer, queues and interrupts from the page', async () => {
    const thread = await newThread();
    const page = await signedInPage(`/threads/${thread.id}`);
    await page.getByRole('heading', { name: `Thread ${thread.id}` }).waitFor();

    // Steer: the run is held mid-stream on its first model request (a tool call); the steered message
    // joins its next request.
    // The first message starts the run from the page (the thread is idle, so it starts at once).
    const steerGate = gated(streamGate());
    loopback.turns.push({ tool: { id: 'call_1', name: 'missing_tool', arguments: {} }, gate: steerGate.gate }, { text: 'considered' });
    await page.getByLabel('Agent').selectOption(scripted.id);
    await send(page, 'start', 'queue');
    await steerGate.reached;
    await entryRow(page, 1).filter({ hasText: 'assigned' }).waitFor();
    const held = { run: { id: (await t.rest('GET', `/api/v1/runs?thread_id=${thread.id}`)).body.items[0].id as string } };
    await runStatus(page, held.run.id, 'running').waitFor();
    const requestsBefore = loopback.requests.length;
    await send(page, 'also consider this', 'steer');
    await entryRow(page, 2).filter({ hasText: 'pending' }).waitFor();
    await screenshot(page, 'threads-inbox-steer-pending');
    steerGate.open();
    await entryRow(page, 2).filter({ hasText: 'incorporated' }).waitFor();
    await runStatus(page, held.run.id, 'completed').waitFor();
    await page.getByLabel("Newest run's output").getByText('considered').waitFor();
    expect(userTexts(loopback.requests[requestsBefore]!)).toEqual(['start', 'also consider this']);

    // A queued entry switched to steer from its row joins the held run too.
    const promoteGate = gated(streamGate());
    loopback.turns.push({ tool: { id: 'call_2', name: 'missing_tool', arguments: {} }, gate: promoteGate.gate }, { text: 'took it in' });
    const second = await deliver(thread.id, { payload: text('second task') });
    await promoteGate.reached;
    await runStatus(page, second.run.id, 'running').waitFor();
    await send(page, 'promote me', 'queue');
    await entryRow(page, 4).filter({ hasText: 'pending' }).waitFor();
    await entryRow(page, 4).getByRole('button', { name: 'Steer into the current run' }).click();
    await entryRow(page, 4).getByRole('button', { name: 'Queue instead' }).waitFor();
    promoteGate.open();
    await entryRow(page, 4).filter({ hasText: 'incorporated' }).waitFor();
    expect((await settleRun(t, second.run.id)).output).toBe('took it in');

    // Queue: the entry waits for the held run, then becomes the thread's next run.
    const queueGate = gated(streamGate(1));
    loopback.turns.push({ text: 'busy answer', gate: queueGate.gate }, { text: 'queued answer' });
    const busy = await deliver(thread.id, { payload: text('keep busy') });
    await queueGate.reached;
    await runStatus(page, busy.run.id, 'running').waitFor();
    await send(page, 'after that', 'queue');
    await entryRow(page, 6).filter({ hasText: 'pending' }).waitFor();
    await screenshot(page, 'threads-inbox-queued');
    queueGate.open();
    await entryRow(page, 6).filter({ hasText: 'completed' }).waitFor();
    const runs = page.getByRole('list', { name: 'Runs, oldest first' }).getByRole('listitem');
    await runs.filter({ hasText: 'after that' }).filter({ hasText: 'queued answer' }).waitFor();

    // Interrupt: the held run is cancelled and the interrupting entry goes next.
    const neverOpened = gated(streamGate(1));
    loopback.turns.push({ text: 'never finished', gate: neverOpened.gate }, { text: 'interrupted answer' });
    const long = await deliver(thread.id, { payload: text('long job') });
    await neverOpened.reached;
    await runStatus(page, long.run.id, 'running').waitFor();
    await send(page, 'stop that', 'interrupt');
    await runs.filter({ hasText: 'long job' }).filter({ hasText: 'cancelled' }).waitFor();
    await entryRow(page, 8).filter({ hasText: 'completed' }).waitFor();
    await runs.filter({ hasText: 'stop that' }).filter({ hasText: 'interrupted answer' }).waitFor();
    expect((await settleRun(t, long.run.id)).status).toBe('cancelled');
    await screenshot(page, 'threads-inbox-interrupted');
    neverOpened.open();
    await page.close();
  }, 180_000);

  it('follows the thread live with no polling: runs started elsewhere, a queued turn, the transcript, the archive', async () => {
    const thread = await newThread();
    const page = await app.signedIn();
    // Every thread read the page makes: when it opens, and none after — the rest arrives by subscription.
    const threadReads: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/graphql') {
        const body = request.postDataJSON() as { operationName?: string; query?: string } | null;
        if (body?.query?.includes('query ConsoleThread(')) threadReads.push(body.query);
      }
    });
    // Fake timers: time can be moved on at once to show that nothing runs on a timer.
    await page.clock.install();
    await page.goto(`/threads/${thread.id}`);
    await page.getByRole('heading', { name: `Thread ${thread.id}` }).waitFor();
    await page.getByText('No runs yet').waitFor();
    const readsAtOpen = threadReads.length;

    // A run started through the API, held mid-stream: the page shows it, its live status and its
    // transcript streaming.
    const held = gated(streamGate(2));
    loopback.turns.push({ text: 'Hello world, streamed live.', gate: held.gate }, { text: 'queued answer' });
    const started = await deliver(thread.id, { agent_id: scripted.id, payload: text('from elsewhere') });
    await held.reached;
    const live = page.getByRole('region', { name: 'Newest run, live' });
    await runStatus(live, started.run.id, 'running').waitFor();
    const transcript = live.getByRole('region', { name: 'Transcript' });
    await transcript
      .getByRole('article', { name: /Assistant/ })
      .getByText('Hello wo', { exact: true })
      .waitFor();
    await screenshot(page, 'threads-live-transcript');

    // A queued entry delivered through the API shows up in the inbox, pending.
    await deliver(thread.id, { payload: text('queued elsewhere') });
    await entryRow(page, 2).filter({ hasText: 'pending' }).waitFor();
    // Ten seconds pass on the page's clock: nothing reads the thread.
    await page.clock.fastForward('00:10');

    // The held run ends: the queued entry becomes the thread's next run, shown with its answer.
    held.open();
    const runs = page.getByRole('list', { name: 'Runs, oldest first' }).getByRole('listitem');
    await runs.filter({ hasText: 'queued elsewhere' }).filter({ hasText: 'queued answer' }).waitFor();
    await entryRow(page, 2).filter({ hasText: 'completed' }).waitFor();
    await transcript
      .getByRole('article', { name: /Assistant/ })
      .getByText('queued answer', { exact: true })
      .waitFor();

    // Archived through the API: the page shows it.
    await t.rest('POST', `/api/v1/threads/${thread.id}/archive`, { headers: { 'if-match': '*' } });
    await page.getByText('The thread is archived').waitFor();
    expect(threadReads.length, `thread reads when the page opened: ${readsAtOpen}`).toBe(readsAtOpen);
    await page.close();
  }, 120_000);

  it('edits a pending entry and shows the refusal of a stale edit', async () => {
    const thread = await newThread();
    const gate = gated(streamGate(1));
    loopback.turns.push({ text: 'hold on', gate: gate.gate }, { text: 'edited answer' });
    const held = await deliver(thread.id, { agent_id: scripted.id, payload: text('first') });
    await gate.reached;
    await deliver(thread.id, { payload: text('draft') });
    const page = await signedInPage(`/threads/${thread.id}`);
    await entryRow(page, 2).filter({ hasText: 'draft' }).waitFor();
    await entryRow(page, 2).getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('New text of entry 2').fill('final words');
    // Someone else changes the entry meanwhile: this page's copy of the thread's ETag is stale.
    const current = (await t.rest('GET', `/api/v1/threads/${thread.id}`)).headers.get('etag')!;
    const entryId = (await t.rest('GET', `/api/v1/threads/${thread.id}/inbox?status=pending`)).body.items[0].id;
    const other = await t.rest('PATCH', `/api/v1/threads/${thread.id}/inbox/${entryId}`, {
      headers: { 'if-match': current },
      body: { payload: text('their words') },
    });
    expect(other.status).toBe(200);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not change the entry' }).waitFor();
    // The page re-read the inbox; editing again uses the fresh ETag.
    await page.getByRole('button', { name: 'Cancel editing' }).click();
    await entryRow(page, 2).filter({ hasText: 'their words' }).waitFor();
    await entryRow(page, 2).getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('New text of entry 2').fill('final words');
    await page.getByRole('button', { name: 'Save' }).click();
    await entryRow(page, 2).filter({ hasText: 'final words' }).waitFor();
    gate.open();
    await entryRow(page, 2).filter({ hasText: 'completed' }).waitFor();
    const runs = page.getByRole('list', { name: 'Runs, oldest first' }).getByRole('listitem');
    await runs.filter({ hasText: 'final words' }).filter({ hasText: 'edited answer' }).waitFor();
    expect((await settleRun(t, held.run.id)).status).toBe('completed');
    await page.close();
  }, 120_000);

  it('shows who else is on the thread, live, and sees them go when they leave', async () => {
    const thread = await newThread();
    const ada = await app.signedInAs('ada@example.com', 'correct horse', `/threads/${thread.id}`);
    const adaSees = ada.getByRole('list', { name: 'People on this thread' });
    await adaSees.getByText('you, this tab').waitFor();
    await ada.getByText('Nobody else has this thread open.').waitFor();

    const bob = await app.signedInAs('bob@example.com', 'battery staple', `/threads/${thread.id}`);
    const bobSees = bob.getByRole('list', { name: 'People on this thread' });
    await bobSees.getByRole('listitem').filter({ hasText: 'Ada' }).waitFor();
    await adaSees.getByRole('listitem').filter({ hasText: 'Bob' }).waitFor();
    await screenshot(ada, 'threads-presence');

    // Bob leaves the thread (another page of the console): his page leaves presence at once (and his
    // entry would expire after the 4-second TTL here anyway; presence-leave.test.ts rules expiry out).
    await bob.getByRole('link', { name: 'Threads', exact: true }).click();
    await bob.getByRole('heading', { name: 'Threads', level: 1 }).waitFor();
    await adaSees.getByRole('listitem').filter({ hasText: 'Bob' }).waitFor({ state: 'detached' });
    await ada.getByText('Nobody else has this thread open.').waitFor();
    // A first message without an agent: the service's refusal, shown as it comes.
    await ada.getByLabel('Message', { exact: true }).fill('hello');
    await ada.getByRole('button', { name: 'Send' }).click();
    await ada.getByRole('alert').filter({ hasText: 'agent_id is required' }).waitFor();
    await bob.close();
    await ada.close();
  }, 120_000);
});
