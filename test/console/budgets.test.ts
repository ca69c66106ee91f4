// The console's budgets page in a real browser: create a budget (a field the service refuses is named
// in the form's alert), see its progress bar move after runs against a loopback model that reports
// 11 + 7 tokens a request, edit it (If-Match: a stale edit is explained and reloaded), and delete it
// behind a confirmation. The run page shows the run's cost and the model that answered, the agent and
// model pages their spending.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { settleRun } from '../helpers/runs.js';

let app: ConsoleTestApp;
let t: TestApp;

describe.skipIf(!browserAvailable)('the console: budgets', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp({}, { loopbackModel: 'loop' });
    ({ t } = app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('creates a budget, shows what its period spent, edits and deletes it', async () => {
    const page = await app.signedIn('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Budgets' }).click();
    await page.getByRole('heading', { name: 'Budgets', level: 1 }).waitFor();
    await page.getByText('No budgets match.').waitFor();

    // Neither limit: the service refuses and the form names the field.
    const form = page.getByRole('form', { name: 'New budget' });
    await form.getByLabel('Name').fill('Daily tokens');
    await form.getByLabel('Period (UTC)').selectOption('day');
    await form.getByRole('button', { name: 'Create budget' }).click();
    await expect(form.getByRole('alert').textContent()).resolves.toMatch(/Could not create the budget.*limit/);

    await form.getByLabel('Token limit').fill('36');
    await form.getByLabel('Notify at').fill('0.5');
    await form.getByRole('button', { name: 'Create budget' }).click();
    const table = page.getByRole('table', { name: 'Budgets' });
    const bar = table.getByRole('progressbar', { name: 'Daily tokens: tokens spent' });
    await bar.waitFor();
    expect(await bar.getAttribute('value')).toBe('0');
    await table.getByText('0 of 36 tokens').waitFor();

    // One run of 18 tokens: half the budget.
    model().turns.push({ text: 'Hello there.' });
    const agent = await app.createAgent('Counted', { model: 'loop' });
    const run = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'Hi' }] } } });
    expect((await settleRun(t, run.body.id)).status).toBe('completed');
    await page.reload();
    await table.getByText('18 of 36 tokens').waitFor();
    expect(await bar.getAttribute('value')).toBe('18');
    // Half the limit was announced (budget.threshold_reached at 0.5): the list says so.
    await table.getByText('Notified at 50 %').waitFor();
    await screenshot(page, 'budgets-spent');

    // Edit: block at 18 tokens. A change made meanwhile elsewhere makes the page's ETag stale first.
    await page.getByRole('button', { name: 'Edit Daily tokens' }).click();
    const edit = page.getByRole('form', { name: 'Edit Daily tokens' });
    const [budget] = (await t.rest('GET', '/api/v1/budgets')).body.items;
    await t.rest('PATCH', `/api/v1/budgets/${budget.id}`, { headers: { 'if-match': '*' }, body: { notify_at: [0.25] } });
    await edit.getByLabel('Token limit').fill('18');
    await edit.getByLabel('When spent').selectOption('block');
    await edit.getByRole('button', { name: 'Save budget' }).click();
    await expect(edit.getByRole('alert').textContent()).resolves.toMatch(/changed|precondition_failed/i);
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Edit Daily tokens' }).click();
    await edit.getByLabel('Token limit').fill('18');
    await edit.getByLabel('When spent').selectOption('block');
    await edit.getByRole('button', { name: 'Save budget' }).click();
    await table.getByText('18 of 18 tokens').waitFor();
    const saved = (await t.rest('GET', `/api/v1/budgets/${budget.id}`)).body;
    expect(saved).toMatchObject({ action: 'block', limit: { tokens: 18 }, notify_at: [0.25], version: 3 });
    // Spent: new runs are refused.
    expect(
      (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'Hi' }] } } })).status,
    ).toBe(429);

    // The run page shows the run's cost; the agent and model pages their spending.
    await page.goto(`${t.url}/runs/${run.body.id}`);
    await page.getByRole('heading', { name: 'Outcome' }).waitFor();
    await page.getByText(/^Cost 0\.000000/).waitFor();
    // …and the model that answered, with its own figures.
    const perModel = page.getByRole('list', { name: 'Usage per model' });
    await perModel.getByText('loop: 1 request(s), 11 input tokens, 7 output tokens, cost 0.000000 (not priced)').waitFor();
    await page.goto(`${t.url}/agents/${agent.id}`);
    await page.getByRole('heading', { name: 'Spending, last 30 days' }).waitFor();
    await page.getByText(/1 model request\(s\), 11 input tokens, 7 output tokens/).waitFor();
    await page.goto(`${t.url}/models/loop`);
    await page.getByText(/1 model request\(s\), 11 input tokens, 7 output tokens/).waitFor();

    // Delete behind a confirmation.
    await page.goto(`${t.url}/budgets`);
    await page.getByRole('button', { name: 'Delete Daily tokens' }).click();
    await page.getByRole('dialog', { name: 'Delete Daily tokens?' }).getByRole('button', { name: 'Delete budget' }).click();
    await page.getByText('No budgets match.').waitFor();
    expect((await t.rest('GET', `/api/v1/budgets/${budget.id}`)).status).toBe(404);
  });
});

function model() {
  return app.model!;
}
