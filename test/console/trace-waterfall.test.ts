// A run's trace as a waterfall on the run page, in a real browser against a real service and a
// loopback model: a run whose first attempt fails transiently (the provider answers 500; no
// in-request retries) and whose second asks for a tool that needs approval. The page is opened while
// the second attempt's model request is held mid-stream: the spans stored so far (the failed
// attempt) and the ones still open (the attempt and its request, sent again for a follower that
// arrives late) are drawn, and the rest arrive live through the subscription when the model is let
// go — no reload, no polling. The spans read in order, nested, with the retry and the pause marked;
// clicking one shows its attributes (kept in the address); keyboard moves between rows; the table
// view lists the same spans. The approved successor links back to the span it follows from. And a
// finding's evidence opens the run page on the span it cites.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { streamGate, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';

let app: ConsoleTestApp;
let t: TestApp;
let loopback: ModelServer;

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

async function startRun(agentId: string, message = 'go'): Promise<{ id: string }> {
  const response = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text(message) } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

const waterfall = (page: Page) => page.getByRole('list', { name: 'Spans in start order, nested by parent' });
const rowOf = (page: Page, spanId: string) => waterfall(page).locator(`li[data-span-id="${spanId}"]`);
/** The rows' titles, top to bottom (each row's button, without its screen-reader timing). */
const titles = (page: Page) =>
  waterfall(page)
    .locator('.wf-name')
    .evaluateAll((buttons) => buttons.map((b) => b.firstChild?.textContent));

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.1 A/AA violations inside the trace section, as it is now (rule id and targets). */
async function traceViolations(page: Page): Promise<{ id: string; targets: string[] }[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: any[] }> } }).axe;
    const result = await axe.run('.run-trace', { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id as string, targets: v.nodes.map((n: { target: string[] }) => n.target.join(' ')) }));
  });
}

interface Span {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  attempt: number;
  attributes: Record<string, unknown>;
  links: { span_id: string }[];
}
const traceOf = async (runId: string): Promise<Span[]> => (await t.rest('GET', `/api/v1/runs/${runId}/trace`)).body.spans;

describe.skipIf(!browserAvailable)("a run's trace waterfall in the console", () => {
  beforeAll(async () => {
    // A refusal is not waited out within the request: it ends the attempt, and the run is retried.
    app = await startConsoleTestApp(
      { providerRetry: { budgetMs: 0, maxWaitMs: 0, baseMs: 1, maxRetries: 0 } },
      { loopbackModel: 'loop', devModels: ['dev'] },
    );
    t = app.t;
    loopback = app.model!;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('draws a retried, paused run live, in order, and shows a span’s attributes; the successor links back', async () => {
    const agentId = (
      await app.createAgent('Traced', {
        model: 'loop',
        plugins: [{ plugin_key: 'http_request', config: { permission: 'ask', methods: ['GET'] } }],
      })
    ).id;
    const held = streamGate(1);
    loopback.turns.push({ refuse: { status: 500, body: { error: { message: 'upstream hiccup', type: 'server_error' } } } });
    loopback.turns.push({
      tool: { id: 'call_up', name: 'http_request', arguments: { method: 'GET', url: `${t.url}/healthz` } },
      gate: held.gate,
    });
    loopback.turns.push({ text: 'The service is up.' });
    const run = await startRun(agentId, 'Is the service up?');
    // The first attempt failed and was retried; the second one's model request is held mid-stream.
    await held.reached;

    const page = await app.signedIn(`/runs/${run.id}`);
    const trace = page.getByRole('region', { name: 'Trace' });
    await trace.getByText('Following the trace live.').waitFor();
    // What was stored (attempt 1) and what is still open (attempt 2 and its model request).
    await waterfall(page)
      .getByRole('button', { name: /^Attempt 2/ })
      .waitFor();
    await expect.poll(() => titles(page)).toEqual(['Attempt 1', 'Model request 1', 'Attempt 2', 'Model request 1']);
    await expect(waterfall(page).locator('.wf-open').count()).resolves.toBe(2);
    await screenshot(page, 'trace-live');

    // Let the model go: the tool call, the pause and the ends arrive through the subscription.
    held.open();
    await waterfall(page)
      .getByRole('button', { name: /^Tool http_request/ })
      .waitFor();
    await page.getByRole('region', { name: 'Waiting for you' }).waitFor();
    await waterfall(page).locator('.wf-open').first().waitFor({ state: 'detached' });
    await expect.poll(() => titles(page)).toEqual(['Attempt 1', 'Model request 1', 'Attempt 2', 'Model request 1', 'Tool http_request']);

    // The rows are the stored trace's spans, nested as it nests them.
    const spans = await traceOf(run.id);
    const [first, second] = spans.filter((s) => s.name.startsWith('invoke_agent'));
    expect([first!.attempt, second!.attempt]).toEqual([1, 2]);
    const tool = spans.find((s) => s.name === 'execute_tool http_request')!;
    expect(tool.parent_span_id).toBe(second!.span_id);
    const firstRow = rowOf(page, first!.span_id);
    await expect(firstRow.textContent()).resolves.toMatch(/outcome retry.*error: .*retry \(transient_error\) at/);
    await expect(firstRow.getAttribute('class')).resolves.toContain('wf-error');
    const modelRows = waterfall(page).locator('li.wf-model');
    await expect(modelRows.nth(1).textContent()).resolves.toMatch(/model loop · tokens 11 in \/ 7 out · first token [\d.]+ (ms|s)/);
    const toolRow = rowOf(page, tool.span_id);
    await expect(toolRow.textContent()).resolves.toMatch(/permission ask · outcome waiting.*pause \(approval\) at/);
    await expect(rowOf(page, second!.span_id).textContent()).resolves.toMatch(/outcome waiting · waiting for approval/);
    // Nested: the tool call is indented one level beneath its attempt.
    const indent = (spanId: string) =>
      rowOf(page, spanId)
        .locator('.wf-label')
        .evaluate((el) => parseFloat(getComputedStyle(el).paddingLeft));
    expect(await indent(tool.span_id)).toBeGreaterThan(await indent(second!.span_id));

    // Clicking a span shows its attributes and keeps the choice in the address.
    await toolRow.getByRole('button').click();
    await page.waitForURL((url) => url.searchParams.get('span') === tool.span_id);
    const details = page.getByRole('region', { name: /Tool http_request/ });
    const attributes = details.getByRole('table', { name: 'Span attributes' });
    await expect(attributes.getByRole('row').filter({ hasText: 'gen_ai.tool.name' }).textContent()).resolves.toContain('http_request');
    await expect(attributes.getByRole('row').filter({ hasText: 'wsa.tool.permission' }).textContent()).resolves.toContain('ask');
    await details.getByText('wsa.pause').first().waitFor();
    await screenshot(page, 'trace-span-details');
    expect(await traceViolations(page)).toEqual([]);

    // The keyboard: Up moves to the row above, Home to the first.
    await toolRow.getByRole('button').focus();
    await page.keyboard.press('ArrowUp');
    await expect(page.evaluate(() => document.activeElement?.firstChild?.textContent)).resolves.toBe('Model request 1');
    await page.keyboard.press('Home');
    await expect(page.evaluate(() => document.activeElement?.firstChild?.textContent)).resolves.toBe('Attempt 1');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.searchParams.get('span') === first!.span_id);

    // The table view: the same spans, in the same order, for screen readers.
    await trace.getByRole('button', { name: 'Table' }).click();
    const table = trace.getByRole('table', { name: 'Spans' });
    await expect(table.getByRole('row').count()).resolves.toBe(6);
    await expect(table.getByRole('row').nth(5).textContent()).resolves.toMatch(/Tool http_request.*tool call.*permission ask/);
    expect(await traceViolations(page)).toEqual([]);
    await trace.getByRole('button', { name: 'Waterfall' }).click();

    // Approve: the successor's attempt follows from this run's last attempt (a linked trace).
    const pending = page.getByRole('region', { name: 'Waiting for you' });
    await pending.getByRole('radio', { name: 'Approve' }).check();
    await pending.getByRole('button', { name: 'Resume run' }).click();
    await page.waitForURL((url) => /^\/runs\/run_/.test(url.pathname) && !url.pathname.endsWith(run.id));
    const successorId = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByRole('heading', { name: `Run ${successorId}` }).waitFor();
    await settleRun(t, successorId);
    const successorTool = (await traceOf(successorId)).find((s) => s.name === 'execute_tool http_request')!;
    await rowOf(page, successorTool.span_id).waitFor();
    await expect(rowOf(page, successorTool.span_id).textContent()).resolves.toMatch(/outcome ok · approved by user/);
    const back = trace.getByRole('link', { name: run.id });
    await expect(back.getAttribute('href')).resolves.toBe(`/runs/${run.id}?span=${second!.span_id}`);
    await screenshot(page, 'trace-successor');
    await back.click();
    await page.waitForURL((url) => url.pathname === `/runs/${run.id}` && url.searchParams.get('span') === second!.span_id);
    await page.getByRole('region', { name: /^Attempt 2/ }).waitFor();
    await expect(rowOf(page, second!.span_id).getByRole('button').getAttribute('aria-pressed')).resolves.toBe('true');
    await trace.getByRole('link', { name: successorId }).waitFor();
    await page.close();
  });

  it("nests a subagent's run beneath the call that delegated to it, linked to the child run", async () => {
    const helperId = (await app.createAgent('Adder', { model: 'dev', model_settings: { script: [[{ text: 'The sum is 5.' }]] } })).id;
    const parentId = (
      await app.createAgent('Delegator', {
        model: 'dev',
        subagents: { adder: { agent_id: helperId, description: 'adds numbers' } },
        model_settings: {
          script: [[{ tool_call: { id: 'd1', name: 'delegate_to_adder', arguments: { task: 'Add 2 and 3.' } } }], [{ text: 'It is 5.' }]],
        },
      })
    ).id;
    const run = await startRun(parentId);
    expect(await settleRun(t, run.id)).toMatchObject({ status: 'completed' });
    const spans = await traceOf(run.id);
    const delegate = spans.find((s) => s.name === 'execute_tool delegate_to_adder')!;
    const childRoot = spans.find((s) => s.parent_span_id === delegate.span_id)!;
    const childRunId = (await t.rest('GET', `/api/v1/runs/${run.id}/trace`)).body.spans.find(
      (s: { span_id: string }) => s.span_id === childRoot.span_id,
    ).run_id as string;

    const page = await app.signedIn(`/runs/${run.id}`);
    await rowOf(page, childRoot.span_id).waitFor();
    // Parent attempt › its request, the delegating call › the child's attempt › its request, then the parent's answer.
    expect(await titles(page)).toEqual([
      'Attempt 1',
      'Model request 1',
      'Tool delegate_to_adder',
      'Attempt 1',
      'Model request 1',
      'Model request 2',
    ]);
    const indent = (spanId: string) =>
      rowOf(page, spanId)
        .locator('.wf-label')
        .evaluate((el) => parseFloat(getComputedStyle(el).paddingLeft));
    expect(await indent(childRoot.span_id)).toBeGreaterThan(await indent(delegate.span_id));
    const childLink = rowOf(page, childRoot.span_id).getByRole('link', { name: `run ${childRunId}` });
    await screenshot(page, 'trace-subagent');
    await childLink.click();
    await page.getByRole('heading', { name: `Run ${childRunId}` }).waitFor();
    // The child's page shows the same trace: its parent's spans link back to the parent run.
    await rowOf(page, delegate.span_id)
      .getByRole('link', { name: `run ${run.id}` })
      .waitFor();
    await page.close();
  });

  it('opens the span a finding cites from the finding’s evidence', async () => {
    // A run that fails for real (a tool that does not exist, no tool retries): the detectors find it.
    const agentId = (
      await app.createAgent('Troubled', {
        model: 'dev',
        retries: { tools: 0 },
        model_settings: { script: [[{ tool_call: { id: 'u1', name: 'no_such_tool', arguments: {} } }], [{ text: 'never' }]] },
      })
    ).id;
    const run = await startRun(agentId);
    expect(await settleRun(t, run.id)).toMatchObject({ status: 'failed', failure: { code: 'tool_error' } });
    const analysis = await t.rest('POST', '/api/v1/finding-analyses', {
      headers: { 'idempotency-key': 'trace-finding' },
      body: { agent_id: agentId },
    });
    expect(analysis.status, JSON.stringify(analysis.body)).toBe(201);
    if (analysis.body.run_id) await settleRun(t, analysis.body.run_id, ['completed', 'failed', 'cancelled']);
    const findings = (await t.rest('GET', `/api/v1/findings?agent_id=${agentId}`)).body.items as {
      id: string;
      source_key: string;
      evidence: { run_id: string; span_ids: string[] }[];
    }[];
    const finding = findings.find((f) => f.source_key === 'tool_error:no_such_tool')!;
    expect(finding, JSON.stringify(findings)).toBeTruthy();
    const spanId = finding.evidence[0]!.span_ids[0]!;
    const cited = (await traceOf(run.id)).find((s) => s.span_id === spanId)!;
    expect(cited.name).toBe('execute_tool no_such_tool');

    const page = await app.signedIn(`/findings/${finding.id}`);
    const evidence = page.getByRole('table', { name: 'Evidence' });
    await evidence.getByRole('link', { name: spanId, exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/runs/${run.id}` && url.searchParams.get('span') === spanId);
    // The span is chosen, in view and focused, its details open.
    const button = rowOf(page, spanId).getByRole('button');
    await expect.poll(() => button.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.spanId)).toBe(spanId);
    await expect(button.isVisible()).resolves.toBe(true);
    const details = page.getByRole('region', { name: /Tool no_such_tool/ });
    await expect(details.getByRole('row').filter({ hasText: 'wsa.tool.outcome' }).textContent()).resolves.toContain('error');
    await details
      .getByText(/error: .*no_such_tool/)
      .first()
      .waitFor();
    await screenshot(page, 'trace-finding-span');
    await page.close();
  });
});
