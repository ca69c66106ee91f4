// The environments pages in a real browser with the `local` type (a directory on this machine), so
// every move is real: create a template, disable and enable it, make an environment from it (ready
// after provisioning), stop it and start it again, destroy it behind a confirmation, filter by status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';

let app: ConsoleTestApp;
let t: TestApp;

describe.skipIf(!browserAvailable)('the environments pages', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp({ allowLocalEnvironments: true });
    ({ t } = app);
    const provider = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'local', name: 'This machine', config: {} } });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('creates and edits a template, and takes an environment through its states', async () => {
    const page = await app.signedIn('/');
    await page.getByRole('link', { name: 'Environments' }).click();
    await page.getByRole('heading', { name: 'Environments', level: 1 }).waitFor();

    // A template whose configuration the type's schema refuses: the service's error, naming the member.
    const newTemplate = page.getByRole('form', { name: 'New template' });
    await newTemplate.getByLabel('Template name').fill('Scratch');
    await newTemplate.getByLabel('Configuration (JSON)').fill('{"working_directory": 5}');
    await newTemplate.getByRole('button', { name: 'Create template' }).click();
    await expect(newTemplate.getByRole('alert').textContent()).resolves.toMatch(/Could not create the template: .*working_directory/);
    await newTemplate.getByLabel('Configuration (JSON)').fill('{"working_directory": "work", "env": {"GREETING": "hi"}}');
    await newTemplate.getByLabel('Description').fill('a directory on this machine');
    await newTemplate.getByRole('button', { name: 'Create template' }).click();

    // The template page: disable, enable, edit.
    await page.getByRole('heading', { name: 'Scratch', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Disable template' }).click();
    await page.getByRole('status').filter({ hasText: 'Template disabled.' }).waitFor();
    await page.getByRole('button', { name: 'Enable template' }).click();
    await page.getByRole('status').filter({ hasText: 'Template enabled.' }).waitFor();
    const edit = page.getByRole('form', { name: 'Edit template' });
    await edit.getByLabel('Description').fill('scratch space');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByText('scratch space').first().waitFor();
    await screenshot(page, 'environments-template');

    // An environment from it.
    await page.getByRole('link', { name: 'Create an environment from it' }).click();
    const newEnvironment = page.getByRole('form', { name: 'New environment' });
    await newEnvironment.getByLabel('Environment name').fill('Sandbox one');
    await newEnvironment.getByRole('button', { name: 'Create environment' }).click();
    await page.getByRole('heading', { name: 'Sandbox one', level: 1 }).waitFor();
    const status = page.getByRole('status').filter({ hasText: 'Status:' });
    await status.filter({ hasText: 'ready' }).waitFor();
    await page
      .getByText(/\/work$/)
      .first()
      .waitFor();
    await screenshot(page, 'environments-ready');

    // Stop (confirmed), start, destroy (cancelled, then confirmed).
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('dialog', { name: 'Stop this environment?' }).getByRole('button', { name: 'Stop environment' }).click();
    await status.filter({ hasText: 'stopped' }).waitFor();
    await page.getByRole('button', { name: 'Start' }).click();
    await status.filter({ hasText: 'ready' }).waitFor();
    await page.getByRole('button', { name: 'Destroy' }).click();
    const destroy = page.getByRole('dialog', { name: 'Destroy this environment?' });
    await destroy.getByRole('button', { name: 'Cancel' }).click();
    await destroy.waitFor({ state: 'hidden' });
    expect(await status.textContent()).toMatch(/ready/);
    await page.getByRole('button', { name: 'Destroy' }).click();
    await destroy.getByRole('button', { name: 'Destroy environment' }).click();
    await status.filter({ hasText: 'destroyed' }).waitFor();
    expect(await page.getByRole('button', { name: 'Destroy' }).count()).toBe(0);

    const id = new URL(page.url()).pathname.split('/').pop()!;
    const view = await t.rest('GET', `/api/v1/environments/${id}`);
    expect(view.body).toMatchObject({ name: 'Sandbox one', status: 'destroyed' });
    const audit = await t.rest('GET', `/api/v1/audit-events?resource_id=${id}`);
    expect(audit.body.items.map((row: { action: string }) => row.action).sort()).toEqual(['create', 'delete', 'start', 'stop']);
    await page.close();
  });

  it('lists environments with a status filter', async () => {
    const template = (await t.rest('GET', '/api/v1/environment-templates?q=Scratch')).body.items[0];
    const ready = await t.rest('POST', '/api/v1/environments', { body: { template_id: template.id, name: 'Still ready' } });
    expect(ready.body.status).toBe('ready');
    const page = await app.signedIn('/environments');
    const table = page.getByRole('table', { name: 'Environments' });
    await table.getByRole('link', { name: 'Still ready' }).waitFor();
    await table.getByRole('link', { name: 'Sandbox one' }).waitFor();
    await page.getByLabel('Status').selectOption('destroyed');
    await page.waitForURL(/status=destroyed/);
    await table.getByRole('link', { name: 'Sandbox one' }).waitFor();
    await expect.poll(() => table.getByRole('link', { name: 'Still ready' }).count(), { timeout: 20_000 }).toBe(0);
    await page.getByLabel('Status').selectOption('ready');
    await table.getByRole('link', { name: 'Still ready' }).waitFor();
    await expect.poll(() => table.getByRole('link', { name: 'Sandbox one' }).count(), { timeout: 20_000 }).toBe(0);
    await screenshot(page, 'environments-list');
    await page.close();
  });

  it('shows why provisioning failed', async () => {
    const provider = (await t.rest('GET', '/api/v1/environment-providers')).body.items[0];
    // The schema takes the path; the local driver refuses it when it provisions.
    const template = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'Outside', provider_id: provider.id, config: { working_directory: '/etc' } },
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const page = await app.signedIn(`/environments?template=${template.body.id}`);
    const form = page.getByRole('form', { name: 'New environment' });
    await expect.poll(() => form.getByLabel('Template').inputValue(), { timeout: 20_000 }).toBe(template.body.id);
    await form.getByRole('button', { name: 'Create environment' }).click();
    await page.getByRole('heading', { name: 'Outside', level: 1 }).waitFor();
    await page.getByRole('status').filter({ hasText: 'failed' }).waitFor();
    await page.getByText('Provisioning failed:').waitFor();
    await page.close();
  });
});
