// The dashboards in a real browser. On a fresh workspace every chart of the overview shows its empty
// state. A run held mid-stream by the loopback model appears in the live runs panel and leaves it when
// it completes, without a reload (the runsChanged subscription; the page never polls). With runs
// seeded through the public API (completed ones, one failed by the model's refusal, webhook deliveries
// to a loopback receiver), every chart draws its canvas and its table for screen readers holds the
// figures the API answers; choosing another time range sends the query again with that range. An
// agent's and a model's pages draw their own charts, and an agent without runs shows their empty states.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { streamGate, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';

let app: ConsoleTestApp;
let t: TestApp;
let loopback: ModelServer;
let receiver: Server;
let received = 0;
/** Resolves when the receiver has had `count` deliveries. */
let deliveriesReached: { count: number; resolve: () => void } | null = null;
const deliveries = (count: number) =>
  received >= count ? Promise.resolve() : new Promise<void>((resolve) => (deliveriesReached = { count, resolve }));

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

async function startRun(agentId: string) {
  const created = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('Hi') } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

/** The operations' variables the page sends to /graphql, by operation name, as they are sent. */
function recordQueries(page: Page) {
  const sent: { operationName: string; variables: Record<string, unknown> }[] = [];
  page.on('request', (request) => {
    if (!request.url().endsWith('/graphql') || request.method() !== 'POST') return;
    const body = request.postDataJSON() as { query?: string; operationName?: string; variables?: Record<string, unknown> };
    const name = body.operationName ?? /(?:query|subscription)\s+(\w+)/.exec(body.query ?? '')?.[1] ?? '';
    sent.push({ operationName: name, variables: body.variables ?? {} });
  });
  return sent;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.1 A/AA violations on the page as it is now (their rule ids and targets). */
async function violations(page: Page): Promise<{ id: string; targets: string[] }[]> {
  // Evaluated over the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: any[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((violation) => ({ id: violation.id, targets: violation.nodes.map((node: any) => node.target.join(' ')) }));
  });
}

/** The rows of a chart's table (visually hidden or not), each as its cells' texts. */
async function tableRows(page: Page, name: string | RegExp) {
  const table = page.getByRole('table', { name });
  await table.waitFor({ state: 'attached' });
  return table
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').trim())));
}

describe.skipIf(!browserAvailable)('the dashboards', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp({}, { loopbackModel: 'loop' });
    ({ t } = app);
    loopback = app.model!;
    receiver = createServer((_req, res) => {
      received++;
      res.writeHead(204).end();
      if (deliveriesReached && received >= deliveriesReached.count) deliveriesReached.resolve();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await app?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('shows every chart empty on a fresh workspace', async () => {
    const page = await app.signedIn('/');
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await page.getByText('No run is live right now.').waitFor();
    for (const empty of [
      'No runs of the workspace in this range.',
      'No sealed runs of the workspace in this range.',
      'No failed runs of the workspace in this range.',
      'No webhook deliveries in this range.',
    ])
      await page.getByText(empty).waitFor();
    await expect(page.getByText('No model requests in this range.').count()).resolves.toBe(2);
    // The waiting runs' table is still the overview's.
    await page.getByRole('heading', { name: 'Waiting for someone' }).waitFor();
    expect(await page.locator('canvas').count()).toBe(0);
    await screenshot(page, 'dashboard-empty');
    await page.close();
  });

  it('follows a live run through the subscription: it appears running and leaves when it completes', async () => {
    const agent = await app.createAgent('Live one', { model: 'loop' });
    const page = await app.signedIn('/');
    const live = page.getByRole('region', { name: 'Live runs right now' });
    await live.getByText('No run is live right now.').waitFor();
    // The subscription is open before the run starts: the page has sent it.
    const held = streamGate(1);
    loopback.turns.push({ text: 'Streaming while watched.', gate: held.gate });
    const runId = await startRun(agent.id);
    await held.reached;
    const row = live.getByRole('table', { name: 'Live runs' }).getByRole('row').filter({ hasText: runId });
    await row.getByText('running').waitFor();
    await row.getByRole('link', { name: 'Live one' }).waitFor();
    await expect(live.locator('[data-status="running"] strong').textContent()).resolves.toBe('1');
    await screenshot(page, 'dashboard-live');
    held.open();
    await live.getByText('No run is live right now.').waitFor();
    expect((await settleRun(t, runId)).status).toBe('completed');
    await page.close();
  });

  it('draws every chart from seeded runs, with tables of the same figures, and the range changes the query', async () => {
    const hook = await t.rest('POST', '/api/v1/webhook-subscriptions', {
      body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, event_kinds: ['run.completed'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const model = await t.rest('GET', '/api/v1/models/loop');
    const priced = await t.rest('PATCH', '/api/v1/models/loop', {
      body: { pricing: { input_per_mtok: 3, output_per_mtok: 15 } },
      headers: { 'If-Match': model.headers.get('etag')! },
    });
    expect(priced.status, JSON.stringify(priced.body)).toBe(200);
    const busy = await app.createAgent('Busy agent', { model: 'loop' });
    const quiet = await app.createAgent('Quiet agent', { model: 'loop' });
    for (let index = 0; index < 3; index++) {
      loopback.turns.push({ text: 'Done.' });
      expect((await settleRun(t, await startRun(busy.id))).status).toBe('completed');
    }
    loopback.turns.push({ refuse: { status: 400, body: { error: { message: 'bad request' } } } });
    const failed = await settleRun(t, await startRun(busy.id));
    expect(failed.status).toBe('failed');
    loopback.turns.push({ text: 'Done.' });
    expect((await settleRun(t, await startRun(quiet.id))).status).toBe('completed');
    // The four completed runs' deliveries reached the receiver (delivered by the service's own workers).
    await deliveries(4);

    const page = await app.signedIn('/');
    const sent = recordQueries(page);
    // Again with the recorder listening from the start.
    await page.reload();
    const dashboard = page.getByRole('region', { name: 'Activity' });
    await dashboard.getByRole('table', { name: /Runs over time by status/ }).waitFor({ state: 'attached' });
    // The figures the API answers for the same range.
    const asked = sent.filter((entry) => entry.operationName === 'ConsoleDashboard');
    const stats = (
      await t.graphql(`query($from: DateTime!, $to: DateTime!) { runStats(from: $from, to: $to) { runs } }`, asked.at(-1)?.variables ?? {})
    ).data?.runStats;
    // Six runs: the live one of the previous test, four of the busy agent, one of the quiet one.
    expect(stats?.runs).toBe(6);
    await expect(dashboard.locator('.stats-summary dd').first().textContent()).resolves.toBe('6');
    const byStatus = await tableRows(page, /Runs over time by status \(per hour\)/);
    const totals = byStatus.reduce((sum, row) => sum + row.slice(1).reduce((cells, cell) => cells + Number(cell), 0), 0);
    expect(totals).toBe(6);
    expect(await tableRows(page, /Top failure codes/)).toEqual([[failed.failure.code, '1']]);
    expect(await tableRows(page, 'Busiest agents')).toEqual([
      ['Busy agent', '4', '1'],
      // Equal counts in the order of the agents' ids (creation).
      ['Live one', '1', '0'],
      ['Quiet agent', '1', '0'],
    ]);
    const byAgent = await tableRows(page, 'Tokens and cost by agent');
    expect(byAgent[0]!.slice(0, 3)).toEqual(['Busy agent', '54', '3']);
    const byModel = await tableRows(page, 'Tokens and cost by model');
    expect(byModel).toHaveLength(1);
    expect(byModel[0]!.slice(0, 3)).toEqual(['loop', '90', '5']);
    const durations = await tableRows(page, 'Run duration, p50 and p95');
    expect(durations.length).toBeGreaterThan(0);
    const webhooks = await tableRows(page, /Webhook deliveries/);
    expect(webhooks.reduce((sum, row) => sum + Number(row[1]), 0)).toBeGreaterThanOrEqual(4);
    // Every time chart draws its canvas (uPlot), hidden from screen readers.
    for (const title of ['Runs over time by status', 'Run duration, p50 and p95', 'Webhook deliveries'])
      await dashboard.locator(`[data-chart^="${title}"] canvas`).waitFor();
    await screenshot(page, 'dashboard');
    // The charts, their tables and the range choice meet WCAG 2.1 A/AA, in light and dark.
    expect(await violations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await violations(page)).toEqual([]);
    await screenshot(page, 'dashboard-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Another range: the query goes again with it, and the address keeps it.
    const before = sent.filter((entry) => entry.operationName === 'ConsoleDashboard').length;
    await dashboard.getByRole('radio', { name: '7 days' }).check();
    await dashboard.getByRole('table', { name: /Runs over time by status \(per hour\)/ }).waitFor({ state: 'attached' });
    await expect.poll(() => sent.filter((entry) => entry.operationName === 'ConsoleDashboard').length).toBeGreaterThan(before);
    const week = sent.filter((entry) => entry.operationName === 'ConsoleDashboard').at(-1)!.variables as { from: string; to: string };
    expect(Date.parse(week.to) - Date.parse(week.from)).toBe(7 * 86_400_000);
    expect(new URL(page.url()).searchParams.get('range')).toBe('7d');
    await dashboard.getByRole('radio', { name: '30 days' }).check();
    await dashboard.getByRole('table', { name: /Runs over time by status \(per day\)/ }).waitFor({ state: 'attached' });
    const month = sent.filter((entry) => entry.operationName === 'ConsoleDashboard').at(-1)!.variables as { from: string; to: string };
    expect(Date.parse(month.to) - Date.parse(month.from)).toBe(30 * 86_400_000);
    await dashboard.getByRole('radio', { name: '1 hour' }).check();
    await dashboard.getByRole('table', { name: /Runs over time by status \(per minute\)/ }).waitFor({ state: 'attached' });
    await screenshot(page, 'dashboard-hour');
    await page.close();

    // The agent's page: its own runs (four, one failed), tokens and cost.
    const agentPage = await app.signedIn(`/agents/${busy.id}`);
    const charts = agentPage.getByRole('region', { name: 'Activity' });
    await charts.getByRole('table', { name: /Runs over time by status/ }).waitFor({ state: 'attached' });
    await expect(charts.locator('.stats-summary dd').first().textContent()).resolves.toBe('4');
    expect(await tableRows(agentPage, /Top failure codes/)).toEqual([[failed.failure.code, '1']]);
    const tokens = await tableRows(agentPage, /Tokens over time/);
    expect(tokens.reduce((sum, row) => sum + Number(row[1]) + Number(row[2]), 0)).toBe(54);
    await charts.locator('[data-chart^="Cost over time"] canvas').waitFor();
    await screenshot(agentPage, 'dashboard-agent');
    await agentPage.close();

    // The model's page: the runs that used it (the failed one made no request that reported usage).
    const modelPage = await app.signedIn('/models/loop');
    const modelCharts = modelPage.getByRole('region', { name: 'Activity' });
    await modelCharts.getByRole('table', { name: /Runs over time by status/ }).waitFor({ state: 'attached' });
    await expect(modelCharts.locator('.stats-summary dd').first().textContent()).resolves.toBe('5');
    await modelCharts.getByText('No failed runs of this model in this range.').waitFor();
    await screenshot(modelPage, 'dashboard-model');
    await modelPage.close();

    // An agent without runs: its charts' empty states.
    const idle = await app.createAgent('Idle agent', { model: 'loop' });
    const idlePage = await app.signedIn(`/agents/${idle.id}`);
    await idlePage.getByText('No runs of this agent in this range.').waitFor();
    await idlePage.getByText('No model requests of this agent in this range.').waitFor();
    await idlePage.close();
  });
});
