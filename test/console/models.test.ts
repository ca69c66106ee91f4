// The models pages in a real browser: an openai_compatible provider on a loopback server created from the
// console (its key never shown back), tested (succeeds; with a wrong key the probe fails), a model added
// on it, disabled and enabled again, the list filters, and the one-click offline development model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';

const KEY = 'sk-console-models-secret-0123';
let app: ConsoleTestApp;
let t: TestApp;
let server: ModelServer;

describe.skipIf(!browserAvailable)('the models pages', () => {
  beforeAll(async () => {
    server = await startOpenAICompatibleServer(KEY);
    app = await startConsoleTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
    ({ t } = app);
  });
  afterAll(async () => {
    await app?.stop();
    await server?.close();
  });

  it('adds the offline development model in one click on a fresh workspace', async () => {
    const page = await app.signedIn('/');
    await page.getByRole('link', { name: 'Models' }).click();
    await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
    await page.getByText('No model provider yet').waitFor();
    await screenshot(page, 'models-empty');
    await page.getByRole('button', { name: 'Add the offline development model' }).click();
    await page.getByRole('status').filter({ hasText: 'The offline development model was added' }).waitFor();
    await page.getByRole('table', { name: 'Model providers' }).getByRole('link', { name: 'Offline development model' }).waitFor();
    await page.getByRole('table', { name: 'Models', exact: true }).getByText('dev', { exact: true }).waitFor();
    const model = await t.rest('GET', '/api/v1/models/dev');
    expect(model.status).toBe(200);
    expect(model.body.provider_model).toBe('echo');
    // A second click reuses the provider and shows the service refusing a second `dev`.
    await page.getByRole('button', { name: 'Add the offline development model' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not add the development model' }).waitFor();
    const providers = await t.rest('GET', '/api/v1/model-providers');
    expect(providers.body.items.filter((provider: { type: string }) => provider.type === 'development')).toHaveLength(1);
    await page.close();
  });

  it('creates and tests an openai_compatible provider, adds a model on it, disables and enables it, filters', async () => {
    const page = await app.signedIn('/models');
    await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'New model provider' });
    await form.getByLabel('Type').selectOption('openai_compatible');
    // The chosen type's description: its configuration schema names base_url.
    await expect(form.getByLabel('Configuration schema').textContent()).resolves.toContain('base_url');
    await form.getByLabel('Name').fill('Loopback');
    await form.getByLabel('Configuration (JSON)').fill(JSON.stringify({ base_url: `${server.url}/v1` }));
    await form.getByLabel('api_key').fill(KEY);
    await form.getByRole('button', { name: 'Create provider' }).click();

    await page.getByRole('heading', { name: 'Loopback', level: 1 }).waitFor();
    await page.getByText('stored (never shown)').first().waitFor();
    expect(await page.content()).not.toContain(KEY);

    await page.getByRole('button', { name: 'Test provider' }).click();
    await page.getByRole('status').filter({ hasText: 'Test succeeded' }).waitFor();
    await screenshot(page, 'models-provider');

    // A wrong key: the probe fails with the server's refusal.
    const edit = page.getByRole('form', { name: 'Edit provider' });
    await edit.getByLabel('Credential', { exact: true }).selectOption('replace');
    await edit.getByLabel('api_key').fill('sk-wrong');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('button', { name: 'Test provider' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Test failed' }).textContent()).resolves.toMatch(/401/);
    expect(await page.content()).not.toContain('sk-wrong');
    // The right key again.
    await edit.getByLabel('Credential', { exact: true }).selectOption('replace');
    await edit.getByLabel('api_key').fill(KEY);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('dd', { hasText: /^3$/ }).waitFor();

    // Disabled, the provider refuses the test with the service's error; enabled again.
    await page.getByRole('button', { name: 'Disable provider' }).click();
    await page.getByRole('button', { name: 'Enable provider' }).waitFor();
    await page.getByRole('button', { name: 'Test provider' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Could not test' }).textContent()).resolves.toMatch(/disabled/);
    await page.getByRole('button', { name: 'Enable provider' }).click();
    await page.getByRole('button', { name: 'Disable provider' }).waitFor();

    // A model on it.
    await page.getByRole('link', { name: 'All models' }).click();
    const add = page.getByRole('form', { name: 'New model', exact: true });
    await add.getByLabel('Key').fill('loop');
    await add.getByLabel('Model provider').selectOption({ label: 'Loopback (openai_compatible)' });
    await add.getByLabel('Provider model').fill('loop-model');
    await add.getByLabel('Name').fill('Loop model');
    await add.getByLabel('Settings (JSON)').fill('{"temperature": 0.2}');
    await add.getByRole('button', { name: 'Add model' }).click();
    await page.getByRole('status').filter({ hasText: 'Model loop was added.' }).waitFor();
    const table = page.getByRole('table', { name: 'Models', exact: true });
    await table.getByText('loop-model').waitFor();
    const created = await t.rest('GET', '/api/v1/models/loop');
    expect(created.body).toMatchObject({ provider_model: 'loop-model', api: 'chat', settings: { temperature: 0.2 } });

    // A bad key is refused with the service's error.
    await add.getByLabel('Key').fill('Not A Key');
    await add.getByLabel('Provider model').fill('x');
    await add.getByRole('button', { name: 'Add model' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not add the model' }).waitFor();

    await page.getByRole('button', { name: 'Disable loop' }).click();
    await page.getByRole('status').filter({ hasText: 'Model loop is disabled.' }).waitFor();
    expect((await t.rest('GET', '/api/v1/models/loop')).body.enabled).toBe(false);

    // Filters: state, provider, text.
    const filters = page.getByRole('search', { name: 'Filter models' });
    await filters.getByLabel('State').selectOption('false');
    await table.getByText('loop-model').waitFor();
    await expect.poll(() => table.getByText('echo').count()).toBe(0);
    await filters.getByLabel('State').selectOption('true');
    await table.getByText('echo').waitFor();
    await expect.poll(() => table.getByText('loop-model').count()).toBe(0);
    await filters.getByLabel('State').selectOption('');
    await filters.getByLabel('Provider').selectOption({ label: 'Loopback' });
    await table.getByText('loop-model').waitFor();
    await expect.poll(() => table.getByText('echo').count()).toBe(0);
    await filters.getByLabel('Provider').selectOption('');
    await filters.getByLabel('Search').fill('Loop model');
    await expect.poll(() => table.getByText('echo').count()).toBe(0);
    await table.getByText('loop-model').waitFor();
    await filters.getByLabel('Search').fill('');

    await page.getByRole('button', { name: 'Enable loop' }).click();
    await page.getByRole('status').filter({ hasText: 'Model loop is enabled.' }).waitFor();
    expect((await t.rest('GET', '/api/v1/models/loop')).body.enabled).toBe(true);
    await screenshot(page, 'models-list');
    await page.close();
  });

  it('shows the service refusing a provider with a bad configuration', async () => {
    const page = await app.signedIn('/models');
    const form = page.getByRole('form', { name: 'New model provider' });
    await form.getByLabel('Type').selectOption('openai_compatible');
    await form.getByLabel('Name').fill('Broken');
    await form.getByLabel('Configuration (JSON)').fill('{"nope": 1}');
    await form.getByRole('button', { name: 'Create provider' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Could not create the provider' }).textContent()).resolves.toMatch(/config/);
    await form.getByLabel('Configuration (JSON)').fill('{not json');
    await form.getByRole('button', { name: 'Create provider' }).click();
    await page.getByRole('alert').filter({ hasText: 'is not JSON' }).waitFor();
    await page.close();
  });
});
