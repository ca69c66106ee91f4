// The findings pages in a real browser against the real service: a run that fails for real (a tool
// that does not exist, no tool retries), an analysis started from the page that finds it, the
// analysis's findings, one finding's evidence reviewed and assessed from its page (saved with
// If-Match), the list filtered by open and closed, and a stale review refused with the service's error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { settleRun } from '../helpers/runs.js';

let app: ConsoleTestApp;
let t: TestApp;
let agentId: string;
let failedRun: { id: string; trace_id: string };

describe.skipIf(!browserAvailable)('the findings pages', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp({}, { devModels: ['dev'] });
    t = app.t;
    // An agent whose scripted model calls a tool that does not exist, with no tool retries: its run fails
    // with tool_error, which the execution detectors find (a tool error, and retries run out).
    agentId = (
      await app.createAgent('troubled', {
        model: 'dev',
        retries: { tools: 0 },
        model_settings: { script: [[{ tool_call: { id: 'u1', name: 'no_such_tool', arguments: {} } }], [{ text: 'never' }]] },
      })
    ).id;
    const run = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: { content: [{ type: 'text', text: 'go' }] } } });
    expect(run.status, JSON.stringify(run.body)).toBeLessThan(300);
    failedRun = await settleRun(t, run.body.id);
    expect(failedRun).toMatchObject({ status: 'failed', failure: { code: 'tool_error' } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('starts an analysis, reviews and closes a finding, and the list filter shows it closed', async () => {
    const page = await app.signedIn('/findings');
    await page.getByRole('heading', { name: 'Findings', level: 1 }).waitFor();
    await page.getByText('No findings yet').waitFor();

    // Start an analysis of the agent from the analyses page.
    await page.getByRole('link', { name: 'Analyses' }).click();
    await page.getByRole('heading', { name: 'Finding analyses' }).waitFor();
    const start = page.getByRole('region', { name: 'Start an analysis' });
    await start.getByRole('option', { name: 'troubled' }).waitFor({ state: 'attached' });
    await start.getByLabel('Agent').selectOption({ label: 'troubled' });
    await expect(start.getByLabel(/^execution/).isChecked()).resolves.toBe(true);
    await start.getByRole('button', { name: 'Start analysis' }).click();
    await page.getByRole('heading', { name: /^Analysis fan_/ }).waitFor();
    const analysisId = /\/findings\/analyses\/([^/?#]+)/.exec(page.url())![1]!;

    // The findings it produced: the tool error and the exhausted retries of the failed run.
    const produced = page.getByRole('table', { name: 'Findings it produced' });
    await produced.getByRole('row').filter({ hasText: 'retries_exhausted' }).waitFor();
    await produced.getByRole('row').filter({ hasText: 'tool_error' }).waitFor();
    await expect(produced.getByRole('row').count()).resolves.toBe(3);
    const traces = page.getByRole('table', { name: 'Selected traces' });
    await traces.getByRole('link', { name: failedRun.id }).waitFor();
    // The workspace has a usable model, so the analysis started the trace analyst's run too: the page
    // follows it and shows how it ended without a reload.
    const { data } = await t.graphql(`query ($id: ID!) { findingAnalysis(id: $id) { runId } }`, { id: analysisId });
    const analystRun = await settleRun(t, data.findingAnalysis.runId);
    const summary = page.getByRole('region', { name: 'Summary' });
    await summary.getByRole('link', { name: analystRun.id }).waitFor();
    await summary.getByText(analystRun.status.replace(/_/g, ' '), { exact: true }).waitFor();
    await screenshot(page, 'findings-analysis');

    // The analyses list shows it with its two findings.
    await page.getByRole('link', { name: 'All analyses' }).click();
    const analyses = page.getByRole('table', { name: 'Analyses' });
    const row = analyses.getByRole('row').filter({ hasText: analysisId });
    await row.waitFor();
    await expect(row.getByRole('cell').nth(3).textContent()).resolves.toBe('2');
    await expect(row.getByRole('link', { name: 'troubled' }).isVisible()).resolves.toBe(true);
    await page.goBack();

    // The finding of the exhausted retries: its evidence names the failed run, its trace and spans.
    await produced.getByRole('row').filter({ hasText: 'retries_exhausted' }).getByRole('link').click();
    await page.getByRole('heading', { name: 'Review' }).waitFor();
    const findingId = /\/findings\/([^/?#]+)/.exec(page.url())![1]!;
    const { body: before } = await t.rest('GET', `/api/v1/findings/${findingId}`);
    expect(before).toMatchObject({ source_key: 'retries_exhausted:tool_error', assessment: 'unreviewed', closed: false, version: 1 });
    await page.getByRole('heading', { name: before.title, level: 1 }).waitFor();
    const evidence = page.getByRole('table', { name: 'Evidence' });
    const entry = evidence.getByRole('row').filter({ hasText: failedRun.trace_id });
    await entry.getByRole('link', { name: failedRun.id }).waitFor();
    for (const spanId of before.evidence[0].span_ids as string[]) await entry.getByText(spanId).waitFor();
    await page.getByText(before.explanation).waitFor();

    // Review: won't fix, with a note, closed.
    const review = page.getByRole('region', { name: 'Review' });
    await review.getByLabel('Assessment', { exact: true }).selectOption('wont_fix');
    await review.getByLabel('Assessment note').fill('The tool was removed on purpose; the agent will be retired.');
    await review.getByLabel('Closed').check();
    await review.getByRole('button', { name: 'Save review' }).click();
    await review.getByRole('status').filter({ hasText: 'Review saved (version 2)' }).waitFor();
    const { body: after } = await t.rest('GET', `/api/v1/findings/${findingId}`);
    const { body: all } = await t.rest('GET', `/api/v1/findings?agent_id=${agentId}`);
    const other = all.items.find((item: { id: string }) => item.id !== findingId);
    expect(other).toMatchObject({ source_key: 'tool_error:no_such_tool', closed: false });
    expect(after).toMatchObject({
      assessment: 'wont_fix',
      assessment_note: 'The tool was removed on purpose; the agent will be retired.',
      closed: true,
      version: 2,
    });
    // A second save from the same form carries the new version (no reload needed).
    await review.getByLabel('Assessment', { exact: true }).selectOption('confirmed');
    await review.getByRole('button', { name: 'Save review' }).click();
    await review.getByRole('status').filter({ hasText: 'Review saved (version 3)' }).waitFor();
    await review.getByLabel('Assessment', { exact: true }).selectOption('wont_fix');
    await review.getByRole('button', { name: 'Save review' }).click();
    await review.getByRole('status').filter({ hasText: 'Review saved (version 4)' }).waitFor();
    // The page's header shows it closed (the badge), once the page has asked again.
    await page.getByText('closed', { exact: true }).waitFor();
    await screenshot(page, 'findings-finding');

    // The list: closed shows it (and not the open one), open the other way round.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Findings' }).click();
    const list = page.getByRole('table', { name: 'Findings, newest first' });
    await list.getByRole('link', { name: before.title }).waitFor();
    await page.getByLabel('State').selectOption('closed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/state=closed/);
    // The old rows stay until the answer: wait for the open finding to leave.
    await list.getByRole('link', { name: other.title }).waitFor({ state: 'detached' });
    await expect(list.getByRole('row').count()).resolves.toBe(2);
    const closedRow = list.getByRole('row').filter({ hasText: before.title });
    await expect(closedRow.textContent()).resolves.toMatch(/Won’t fix.*closed/);
    await screenshot(page, 'findings-list-closed');
    await page.getByLabel('State').selectOption('open');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/state=open/);
    await list.getByRole('link', { name: before.title }).waitFor({ state: 'detached' });
    await expect(list.getByRole('link', { name: other.title }).isVisible()).resolves.toBe(true);
    await expect(list.getByRole('row').count()).resolves.toBe(2);
    // Severity and agent filters, together with the state.
    await page.getByLabel('Severity').selectOption('high');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No finding matches the filter.').waitFor();
    await page.getByLabel('Severity').selectOption('');
    await page.getByLabel('Agent').selectOption({ label: 'troubled' });
    await page.getByLabel('Category').fill('tool_error');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(new RegExp(`agent=${agentId}`));
    await list.getByRole('link', { name: other.title }).waitFor();
    await expect(list.getByRole('row').count()).resolves.toBe(2);
    await page.close();
  });

  it('refuses a stale review and an unknown finding with the service’s error', async () => {
    const { body } = await t.rest('GET', `/api/v1/findings?agent_id=${agentId}&closed=false`);
    const finding = body.items[0];
    const page = await app.signedIn(`/findings/${finding.id}`);
    const review = page.getByRole('region', { name: 'Review' });
    await review.waitFor();
    // Someone else reviews it meanwhile.
    const current = await t.rest('GET', `/api/v1/findings/${finding.id}`);
    const patched = await t.rest('PATCH', `/api/v1/findings/${finding.id}`, {
      headers: { 'if-match': current.headers.get('etag')! },
      body: { assessment: 'confirmed' },
    });
    expect(patched.status).toBe(200);
    await review.getByLabel('Closed').check();
    await review.getByRole('button', { name: 'Save review' }).click();
    await expect(review.getByRole('alert').textContent()).resolves.toMatch(/Could not save the review.*precondition_failed/);

    await page.goto('/findings/fnd_does_not_exist');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/not_found/);
    await page.close();
  });

  it('an analysis keeps listing the findings it produced after a later one finds them again', async () => {
    const first = (await t.rest('GET', '/api/v1/finding-analyses?limit=100')).body.items.at(-1) as { id: string };
    const again = await t.rest('POST', '/api/v1/finding-analyses', {
      headers: { 'idempotency-key': 'console-again' },
      body: { agent_id: agentId },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const secondId = again.body.id as string;
    if (again.body.run_id) await settleRun(t, again.body.run_id, ['completed', 'failed', 'cancelled']);

    // The first analysis: its two findings, now last found by the second.
    const page = await app.signedIn(`/findings/analyses/${first.id}`);
    const produced = page.getByRole('table', { name: 'Findings it produced' });
    for (const key of ['retries_exhausted', 'tool_error']) {
      const row = produced.getByRole('row').filter({ hasText: key });
      await row.getByRole('link', { name: 'a later analysis' }).waitFor();
      expect(await row.getByRole('link', { name: 'a later analysis' }).getAttribute('href')).toBe(`/findings/analyses/${secondId}`);
    }
    await page.getByLabel('Show').selectOption('updated');
    await page.getByText('None of this kind.').waitFor();
    await page.getByLabel('Show').selectOption('created');
    await produced.getByRole('row').filter({ hasText: 'tool_error' }).waitFor();

    // The second analysis created nothing: it found both again.
    await page.goto(`/findings/analyses/${secondId}`);
    await page.getByRole('heading', { name: `Analysis ${secondId}` }).waitFor();
    await produced.getByRole('row').filter({ hasText: 'retries_exhausted' }).getByText('this analysis').waitFor();
    await page.getByLabel('Show').selectOption('created');
    await page.getByText('None of this kind.').waitFor();
    await page.getByLabel('Show').selectOption('updated');
    await produced.getByRole('row').filter({ hasText: 'tool_error' }).waitFor();
    await expect(produced.getByRole('row').count()).resolves.toBe(3);
    await screenshot(page, 'findings-analysis-found-again');
    await page.close();
  });
});
