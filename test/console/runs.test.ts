// The console's Runs section in a real browser against a real service and scripted models: starting a
// run from the page, streaming text shown while the model is held mid-stream, approving and denying
// tool calls, answering a client call and a question (each resume followed live into its successor),
// a waiting run resumed through the API while its page is open,
// cancel and fork, lineage, the list's filters kept in the URL, and the workspace-qualified run address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { insertModel } from '../helpers/fixtures.js';
import { streamGate, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { createApiKey, createUser, createWorkspace } from '../../src/features/access/admin.js';

let app: ConsoleTestApp;
let t: TestApp;
let loopback: ModelServer;

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const script = (...turns: unknown[][]) => ({ model_settings: { script: turns } });

const createAgent = async (name: string, config: Record<string, unknown>) => (await app.createAgent(name, config)).id;

async function startRun(agentId: string, message = 'hello'): Promise<{ id: string; thread_id: string }> {
  const response = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text(message) } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

const openSignedIn = (path: string) => app.signedIn(path);

const statusLine = (page: Page) => page.getByRole('status').filter({ hasText: 'Status:' });
const item = (page: Page, title: RegExp) => page.getByRole('article', { name: title });

/**
 * Waits for the page to show a run: `runId`, or (with `from`) any run but that one — where a resume,
 * a fork or the start form moved the page.
 */
async function onRunPage(page: Page, target: { runId?: string; from?: string } = {}): Promise<string> {
  await page.waitForURL((url) => {
    const match = /^\/runs\/(run_[^/]+)$/.exec(url.pathname);
    return !!match && (target.runId ? match[1] === target.runId : match[1] !== target.from);
  });
  const id = new URL(page.url()).pathname.split('/').pop()!;
  await page.getByRole('heading', { name: `Run ${id}` }).waitFor();
  return id;
}

describe.skipIf(!browserAvailable)('the Runs section of the console', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp({}, { loopbackModel: 'loop', devModels: ['dev'] });
    t = app.t;
    loopback = app.model!;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('starts a run from the page and shows its text streaming while the model is held mid-stream', async () => {
    const agentId = await createAgent('Streamer', { model: 'loop' });
    const held = streamGate(2);
    loopback.turns.push({ text: 'Hello world, streamed live.', gate: held.gate });
    const page = await openSignedIn(`/runs/new?agent=${agentId}`);
    await page.getByRole('heading', { name: 'Start a run' }).waitFor();
    await expect(page.getByLabel('Agent').inputValue()).resolves.toBe(agentId);
    // Bad JSON is refused on the page before anything is sent.
    await page.getByLabel('Message').fill('Say hello');
    await page.getByLabel('Labels (JSON, optional)').fill('{not json');
    await page.getByRole('button', { name: 'Start run' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Labels is not JSON/);
    await page.getByLabel('Labels (JSON, optional)').fill('{"ticket": "T-42"}');
    await screenshot(page, 'runs-start');
    await page.getByRole('button', { name: 'Start run' }).click();
    const runId = await onRunPage(page);
    await held.reached;
    // Held after two chunks: the partial text is on the page, the item still in progress.
    const assistant = item(page, /Assistant/);
    await assistant.getByText('Hello wo', { exact: true }).waitFor();
    await assistant.getByText('in progress').waitFor();
    await statusLine(page).getByText('running').waitFor();
    await page.getByText('Say hello').waitFor();
    await screenshot(page, 'runs-streaming');
    held.open();
    await assistant.getByText('Hello world, streamed live.', { exact: true }).waitFor();
    await assistant.getByText('completed').waitFor();
    await statusLine(page).getByText('completed').waitFor();
    // Screen readers hear it politely: the finished item is announced in the transcript's live region.
    await page.locator('.run-transcript [aria-live="polite"]').filter({ hasText: 'Assistant completed' }).waitFor({ state: 'attached' });
    await page.getByRole('region', { name: 'Outcome' }).getByText('1 model request(s)').waitFor();
    const run = (await t.rest('GET', `/api/v1/runs/${runId}`)).body;
    expect(run).toMatchObject({ status: 'completed', agent_id: agentId, labels: { ticket: 'T-42' } });
    await screenshot(page, 'runs-completed');
    await page.close();
  });

  it('approves a tool call from the page and follows the successor run live to completion', async () => {
    const agentId = await createAgent('Checker', {
      model: 'loop',
      plugins: [{ plugin_key: 'http_request', config: { permission: 'ask', methods: ['GET'] } }],
    });
    loopback.turns.push({ tool: { id: 'call_health', name: 'http_request', arguments: { method: 'GET', url: `${t.url}/healthz` } } });
    const held = streamGate(1);
    loopback.turns.push({ text: 'The service is healthy.', gate: held.gate });
    const run = await startRun(agentId, 'Is the service up?');
    const page = await openSignedIn(`/runs/${run.id}`);
    const pending = page.getByRole('region', { name: 'Waiting for you' });
    await pending.waitFor();
    await item(page, /Approval request/).waitFor();
    await pending.getByText('http_request').first().waitFor();
    // Nothing chosen yet: the page asks for a decision instead of sending an incomplete batch.
    await pending.getByRole('button', { name: 'Resume run' }).click();
    await expect(pending.getByRole('alert').textContent()).resolves.toMatch(/Choose Approve or Deny/);
    await pending.getByRole('radio', { name: 'Approve' }).check();
    await screenshot(page, 'runs-approval');
    await pending.getByRole('button', { name: 'Resume run' }).click();
    const successorId = await onRunPage(page, { from: run.id });
    expect(successorId).not.toBe(run.id);
    // The approved call ran in the successor; the model's answer is held until the page shows that.
    await item(page, /Tool result/).waitFor();
    await held.reached;
    await statusLine(page).getByText('running').waitFor();
    held.open();
    await item(page, /Assistant/)
      .getByText('The service is healthy.', { exact: true })
      .waitFor();
    await statusLine(page).getByText('completed').waitFor();
    // Lineage: the resumed run is this run's parent, linked.
    const lineage = page.getByRole('region', { name: 'Lineage' });
    await lineage.getByRole('link', { name: run.id }).waitFor();
    await lineage.getByText(/resumed from/).waitFor();
    await screenshot(page, 'runs-approved-lineage');
    await lineage.getByRole('link', { name: run.id }).click();
    await onRunPage(page, { runId: run.id });
    await page.getByRole('link', { name: `continue to run ${successorId}` }).waitFor();
    await page.close();
  });

  it('denies a tool call with a reason; the model is told and the run completes', async () => {
    const agentId = await createAgent('Deleter', {
      model: 'dev',
      ...script(
        [{ tool_call: { id: 'del_1', name: 'delete_file', arguments: { path: '/tmp/x' } } }],
        [{ text: 'Understood, I will not delete it.' }],
      ),
      client_tools: [{ name: 'delete_file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
    });
    const run = await startRun(agentId, 'Delete /tmp/x');
    await settleRun(t, run.id);
    const page = await openSignedIn(`/runs/${run.id}`);
    const pending = page.getByRole('region', { name: 'Waiting for you' });
    await pending.getByRole('radio', { name: 'Deny' }).check();
    await pending.getByLabel('Reason (optional)').fill('Keep that file');
    await pending.getByRole('button', { name: 'Resume run' }).click();
    const successorId = await onRunPage(page, { from: run.id });
    await item(page, /Tool result/)
      .getByText(/Denied by user/)
      .waitFor();
    await page.getByText('The answers this run continues from').click();
    await page
      .getByLabel('Resume answers')
      .getByText(/"deny"/)
      .waitFor();
    await item(page, /Assistant/)
      .getByText('Understood, I will not delete it.', { exact: true })
      .waitFor();
    await statusLine(page).getByText('completed').waitFor();
    const successor = (await t.rest('GET', `/api/v1/runs/${successorId}`)).body;
    expect(successor.resume).toMatchObject({ approvals: { del_1: { action: 'deny' } }, input: text('Denied delete_file: Keep that file') });
    await page.close();
  });

  it('answers a client call with a JSON result from the page', async () => {
    const agentId = await createAgent('Weather', {
      model: 'dev',
      ...script([{ tool_call: { id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } } }], [{ text: 'It is sunny.' }]),
      client_tools: [{ name: 'get_weather', description: 'Weather', parameters_json_schema: { type: 'object' } }],
    });
    const run = await startRun(agentId, 'Weather in Oslo?');
    await settleRun(t, run.id);
    const page = await openSignedIn(`/runs/${run.id}`);
    const pending = page.getByRole('region', { name: 'Waiting for you' });
    await item(page, /Client call/).waitFor();
    const result = pending.getByLabel('Result of get_weather (JSON)');
    await result.fill('{"sky": ');
    await pending.getByRole('button', { name: 'Resume run' }).click();
    await expect(pending.getByRole('alert').textContent()).resolves.toMatch(/not JSON/);
    await result.fill('{"sky": "clear"}');
    await screenshot(page, 'runs-client-call');
    await pending.getByRole('button', { name: 'Resume run' }).click();
    const successorId = await onRunPage(page, { from: run.id });
    await item(page, /Assistant/)
      .getByText('It is sunny.', { exact: true })
      .waitFor();
    await statusLine(page).getByText('completed').waitFor();
    const successor = (await t.rest('GET', `/api/v1/runs/${successorId}`)).body;
    expect(successor.resume.calls).toEqual({ call_1: { status: 'returned', value: { sky: 'clear' } } });
    await page.close();
  });

  it('answers a question with one of its choices', async () => {
    const agentId = await createAgent('Asker', {
      model: 'dev',
      user_questions: true,
      ...script(
        [{ tool_call: { id: 'q1', name: 'ask_user', arguments: { question: 'Which city?', choices: ['Oslo', 'Bergen'] } } }],
        [{ text: 'Thanks!' }],
      ),
    });
    const run = await startRun(agentId, 'Plan a trip');
    await settleRun(t, run.id);
    const page = await openSignedIn(`/runs/${run.id}`);
    const pending = page.getByRole('region', { name: 'Waiting for you' });
    await pending.getByRole('group', { name: 'Question: Which city?' }).waitFor();
    await pending.getByRole('radio', { name: 'Bergen' }).check();
    await screenshot(page, 'runs-question');
    await pending.getByRole('button', { name: 'Resume run' }).click();
    const successorId = await onRunPage(page, { from: run.id });
    await item(page, /Assistant/)
      .getByText('Thanks!', { exact: true })
      .waitFor();
    const successor = (await t.rest('GET', `/api/v1/runs/${successorId}`)).body;
    expect(successor.resume.calls).toEqual({ q1: { status: 'returned', value: 'Bergen' } });
    await page.close();
  });

  it('follows a waiting run resumed through the API while its page is open to the successor', async () => {
    const agentId = await createAgent('Picker', {
      model: 'dev',
      ...script([{ tool_call: { id: 'pick_1', name: 'pick', arguments: { from: ['a', 'b'] } } }], [{ text: 'Picked elsewhere.' }]),
      client_tools: [{ name: 'pick', description: 'Pick one', parameters_json_schema: { type: 'object' } }],
    });
    const run = await startRun(agentId, 'Pick one');
    await settleRun(t, run.id);
    const page = await openSignedIn(`/runs/${run.id}`);
    const pending = page.getByRole('region', { name: 'Waiting for you' });
    await pending.getByRole('button', { name: 'Resume run' }).waitFor();
    await statusLine(page).getByText('waiting').waitFor();
    // Someone else answers: the page, whose runStatus ended at waiting, hears it through the thread.
    const resumed = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': `elsewhere-${run.id}` },
      body: { calls: { pick_1: { status: 'returned', value: 'b' } } },
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    const successorId = resumed.body.id as string;
    const onward = page.getByRole('link', { name: `continue to run ${successorId}` });
    await onward.waitFor();
    await pending.waitFor({ state: 'detached' });
    await screenshot(page, 'runs-resumed-elsewhere');
    await onward.click();
    await onRunPage(page, { runId: successorId });
    await item(page, /Assistant/)
      .getByText('Picked elsewhere.', { exact: true })
      .waitFor();
    await statusLine(page).getByText('completed').waitFor();
    await page.close();
  });

  it('cancels a running run and forks a finished one', async () => {
    const agentId = await createAgent('Held', { model: 'loop' });
    const held = streamGate(1);
    loopback.turns.push({ text: 'never finished', gate: held.gate });
    const run = await startRun(agentId, 'Think hard');
    await held.reached;
    const page = await openSignedIn(`/runs/${run.id}`);
    await statusLine(page).getByText('running').waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await statusLine(page).getByText('cancelled').waitFor();
    await page.getByText(/Failed: cancelled/).waitFor();

    const echo = await createAgent('Echo', { model: 'dev' });
    const done = await startRun(echo, 'first message');
    await settleRun(t, done.id);
    await page.goto(`/runs/${done.id}`);
    await page.getByText('echo: first message', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Fork…' }).click();
    await page.getByLabel('Message for the fork').fill('second message');
    await page.getByRole('button', { name: 'Fork run' }).click();
    const forkId = await onRunPage(page, { from: done.id });
    expect(forkId).not.toBe(done.id);
    await page.getByText('echo: second message', { exact: true }).first().waitFor();
    const lineage = page.getByRole('region', { name: 'Lineage' });
    await lineage.getByRole('link', { name: done.id }).waitFor();
    await lineage.getByText(/forked from/).waitFor();
    await page.close();
  });

  it('filters the list by status, kept in the URL', async () => {
    const agentId = await createAgent('Waiter', {
      model: 'dev',
      ...script([{ tool_call: { id: 'w1', name: 'wait_here', arguments: {} } }]),
      client_tools: [{ name: 'wait_here', parameters_json_schema: { type: 'object' } }],
    });
    const waiting = await startRun(agentId, 'wait');
    await settleRun(t, waiting.id);
    const echo = await createAgent('Quick', { model: 'dev' });
    const completed = await startRun(echo, 'quick');
    await settleRun(t, completed.id);

    const page = await openSignedIn('/runs');
    const table = page.getByRole('table', { name: 'Runs, newest first' });
    await table.getByRole('link', { name: completed.id }).waitFor();
    // Clicked, not check(): the box follows the URL, which the router updates a moment later.
    await page.getByRole('group', { name: 'Status' }).getByRole('checkbox', { name: 'waiting' }).click();
    await page.waitForURL(/status=waiting/);
    // The unfiltered rows stay until the filtered answer replaces them.
    await table.getByRole('link', { name: completed.id }).waitFor({ state: 'detached' });
    await table.getByRole('link', { name: waiting.id }).waitFor();
    const statuses = await table.locator('tbody tr td:nth-child(2) .badge').allTextContents();
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(['waiting']));
    await screenshot(page, 'runs-list-waiting');
    // The filter survives a reload (it is the URL).
    await page.reload();
    await expect(page.getByRole('checkbox', { name: 'waiting' }).isChecked()).resolves.toBe(true);
    await table.getByRole('link', { name: waiting.id }).waitFor();
    // By agent too, and a row leads to its run.
    await page.getByLabel('Agent').selectOption(echo);
    await page.waitForURL(new RegExp(`agent=${echo}`));
    await page.getByText('No runs match.').waitFor();
    await page.getByRole('checkbox', { name: 'waiting' }).click();
    await page.waitForURL((url) => !url.searchParams.has('status'));
    await table.getByRole('link', { name: completed.id }).click();
    await onRunPage(page, { runId: completed.id });
    await page.close();
  });

  it('opens the workspace-qualified run address that notifications carry', async () => {
    const echo = await createAgent('Notified', { model: 'dev' });
    const run = await startRun(echo, 'ping');
    await settleRun(t, run.id);
    const page = await openSignedIn(`/workspaces/${t.workspaceId}/runs/${run.id}`);
    await onRunPage(page, { runId: run.id });
    await page.getByText('echo: ping', { exact: true }).first().waitFor();
    await page.goto(`/workspaces/wsp_elsewhere/runs/${run.id}`);
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/cannot reach workspace/);
    // A run that does not exist: the service's refusal, not a blank page.
    await page.goto('/runs/run_missing');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/not_found/);
    await page.close();
  });

  it('shows reasoning (opened from the keyboard), a server tool call with its result, and the error that failed the run', async () => {
    // First turn: the model reasons, then calls a tool the service runs itself (allowed, no approval);
    // second turn: the model breaks (not transient), so the run fails with that error.
    const agentId = await createAgent('Thinker', {
      model: 'dev',
      ...script(
        [
          { reasoning: 'The user wants to know if the service is up; ' },
          { reasoning: 'I will ask its health endpoint.' },
          { tool_call: { id: 'call_up', name: 'http_request', arguments: { method: 'GET', url: `${t.url}/healthz` } } },
        ],
        [{ error: { message: 'the model is broken' } }],
      ),
      plugins: [{ plugin_key: 'http_request', config: { permission: 'allow', methods: ['GET'] } }],
    });
    const run = await startRun(agentId, 'Is the service up?');
    const settled = await settleRun(t, run.id);
    expect(settled).toMatchObject({ status: 'failed', failure: { code: 'model_error' } });
    const page = await openSignedIn(`/runs/${run.id}`);
    await statusLine(page).getByText('failed').waitFor();

    // Reasoning: collapsed until opened, then its whole text is readable.
    const reasoning = item(page, /Reasoning/);
    const reasoningText = reasoning.getByText('The user wants to know if the service is up; I will ask its health endpoint.', {
      exact: true,
    });
    await expect(reasoningText.isVisible()).resolves.toBe(false);
    const toggle = reasoning.getByText('Show reasoning');
    await toggle.focus();
    await page.keyboard.press('Enter');
    await reasoningText.waitFor();

    // The server tool call, marked as run on the service, with its arguments; then its result.
    const call = item(page, /Tool call/);
    await call.getByText('http_request', { exact: true }).waitFor();
    await call.getByText('Runs on the service').waitFor();
    await expect(call.getByLabel('Arguments').textContent()).resolves.toContain('/healthz');
    const result = item(page, /Tool result/);
    await result.getByText('http_request', { exact: true }).waitFor();
    await expect(result.getByLabel('Result').textContent()).resolves.toMatch(/"status": 200/);

    // The model's error as an item, and the failure in the outcome.
    await item(page, /Error/)
      .getByText(/the model is broken/)
      .waitFor();
    await page.getByRole('region', { name: 'Outcome' }).getByText('model_error').waitFor();
    // A failed run keeps the usage it consumed: the request that called the tool and the one that broke.
    await page
      .getByRole('region', { name: 'Outcome' })
      .getByText(/^2 model request\(s\)/)
      .waitFor();
    await screenshot(page, 'runs-reasoning-tool-error');
    await page.close();
  });

  it('switches a login session to the workspace the address names, then shows the run', async () => {
    const other = await createWorkspace(t.app.deps, { name: 'Research' });
    const otherId = other.workspace.id;
    for (const workspaceId of [t.workspaceId, otherId])
      await createUser(t.app.deps, { email: 'ada@example.com', password: 'correct horse', workspaceId, role: 'admin', name: 'Ada' });
    await insertModel(t, 'dev', { workspaceId: otherId });
    const { token } = await createApiKey(t.app.deps, { workspaceId: otherId, permissions: 'read,write', name: 'research key' });
    const agent = await t.rest('POST', '/api/v1/agents', { token, body: { name: 'Researcher', config: { model: 'dev' } } });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const run = await t.rest('POST', '/api/v1/runs', { token, body: { agent_id: agent.body.id, input: text('from research') } });
    expect(run.status, JSON.stringify(run.body)).toBe(201);

    const page = await app.signedInAs('ada@example.com', 'correct horse');
    // Acting in the first workspace: the address has to switch.
    await page.getByLabel('Workspace').selectOption(t.workspaceId);
    await page.goto(`/workspaces/${otherId}/runs/${run.body.id}`);
    await onRunPage(page, { runId: run.body.id });
    await expect(page.getByLabel('Workspace').inputValue()).resolves.toBe(otherId);
    await page.getByText('echo: from research', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.close();
  });
});
