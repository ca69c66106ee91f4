// The models pages in a real browser: an openai_compatible provider on a loopback server created from the
// console (its key never shown back), tested (succeeds; with a wrong key the probe fails), a model added
// on it, disabled and enabled again, the list filters, and the one-click offline development model; a
// model's settings edited on its page (a change made meanwhile is refused and reloaded), and a
// provider's extra headers stored, replaced and removed (proven by what the loopback server receives).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';

const KEY = 'sk-console-models-secret-0123';
let app: ConsoleTestApp;
let t: TestApp;
let server: ModelServer;

const MODEL_READ = `query ($key: String!) { model(key: $key) { key name description providerModel api settings labels enabled version etag } }`;
const PROVIDER_READ = `query ($id: ID!) { provider(id: $id, kind: "model") { extraHeadersConfigured credentialConfigured version } }`;

/** The model as the API answers it now (read through GraphQL, not from the page). */
async function readModel(key: string) {
  const answer = await t.graphql(MODEL_READ, { key });
  expect(answer.errors).toBeUndefined();
  return answer.data.model;
}

async function readProvider(id: string) {
  const answer = await t.graphql(PROVIDER_READ, { id });
  expect(answer.errors).toBeUndefined();
  return answer.data.provider;
}

/**
 * Runs the provider's probe through the API and answers the headers of the request the loopback server
 * got for it: what the service really sends with the stored extra headers.
 */
async function probeHeaders(id: string) {
  const before = server.requests.length;
  const probe = await t.graphql(`mutation ($id: ID!) { testProvider(id: $id, kind: "model") { status message } }`, { id });
  expect(probe.data.testProvider).toMatchObject({ status: 'succeeded' });
  const request = server.requests.slice(before).find((entry) => entry.method === 'GET' && entry.path === '/v1/models');
  expect(request).toBeTruthy();
  return request!.headers;
}

/** Fills header row `index` (1-based) of the form's header rows. */
async function fillHeader(page: Page, index: number, name: string, value: string) {
  const row = page.getByRole('group', { name: `Header ${index}`, exact: true });
  await row.getByLabel('Header name').fill(name);
  await row.getByLabel('Header value').fill(value);
}

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
  it('edits a model on its page; a bad JSON is caught; a change made meanwhile is refused and reloaded', async () => {
    const provider = await t.rest('POST', '/api/v1/model-providers', {
      body: { type: 'openai_compatible', name: 'Tuning', config: { base_url: `${server.url}/v1` }, credential: { api_key: KEY } },
    });
    expect(provider.status).toBe(201);
    const created = await t.rest('POST', '/api/v1/models', {
      body: { key: 'tuned', provider_id: provider.body.id, provider_model: 'tuned-model', name: 'Tuned', settings: { temperature: 0.2 } },
    });
    expect(created.status).toBe(201);

    const page = await app.signedIn('/models');
    await page.getByRole('table', { name: 'Models', exact: true }).getByRole('link', { name: 'tuned' }).click();
    await page.getByRole('heading', { name: 'Tuned', level: 1 }).waitFor();
    await page.waitForURL((url) => url.pathname === '/models/tuned');
    const edit = page.getByRole('form', { name: 'Edit model' });
    const settings = edit.getByLabel('Settings (JSON)');
    expect(JSON.parse(await settings.inputValue())).toEqual({ temperature: 0.2 });
    // The field's hint names what the chosen API reads.
    await edit.getByText(/the chat API reads .*max_output_tokens/).waitFor();

    // Not JSON, then JSON that is not an object: the page says so and sends nothing.
    await settings.fill('{"temperature": ');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(edit.getByRole('alert').textContent()).resolves.toMatch(/Settings is not JSON/);
    await settings.fill('[0.5]');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(edit.getByRole('alert').textContent()).resolves.toMatch(/Settings must be a JSON object/);
    await screenshot(page, 'models-model-bad-json');
    expect((await readModel('tuned')).version).toBe(1);

    // A bad setting the service refuses: its message and the member it names.
    await settings.fill('{"input_media": ["smell"]}');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(edit.getByRole('alert').filter({ hasText: 'Could not save' }).textContent()).resolves.toMatch(/settings\.input_media/);

    await settings.fill(JSON.stringify({ temperature: 0.7, max_output_tokens: 512, stop: ['END'] }));
    await edit.getByLabel('Provider model').fill('tuned-model-2');
    await edit.getByLabel('Name').fill('Tuned twice');
    await edit.getByLabel('Description').fill('Warmer, shorter answers');
    await edit.getByLabel('Labels').fill('tier=gold');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('heading', { name: 'Tuned twice', level: 1 }).waitFor();
    expect(await readModel('tuned')).toMatchObject({
      name: 'Tuned twice',
      description: 'Warmer, shorter answers',
      providerModel: 'tuned-model-2',
      api: 'chat',
      settings: { temperature: 0.7, max_output_tokens: 512, stop: ['END'] },
      labels: { tier: 'gold' },
      version: 2,
    });
    // The form starts again from what was saved.
    expect(JSON.parse(await edit.getByLabel('Settings (JSON)').inputValue())).toEqual({
      temperature: 0.7,
      max_output_tokens: 512,
      stop: ['END'],
    });
    await screenshot(page, 'models-model');

    // Someone else changes the model after the page read it: the save is refused, not applied.
    const current = await readModel('tuned');
    const meanwhile = await t.rest('PATCH', '/api/v1/models/tuned', {
      headers: { 'If-Match': current.etag },
      body: { settings: { temperature: 0.1 } },
    });
    expect(meanwhile.status).toBe(200);
    await edit.getByLabel('Settings (JSON)').fill('{"temperature": 0.9}');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    const stale = edit.getByRole('alert').filter({ hasText: 'Someone else changed this model' });
    await stale.waitFor();
    expect((await readModel('tuned')).settings).toEqual({ temperature: 0.1 });
    await stale.getByRole('button', { name: 'Reload the model' }).click();
    await expect.poll(async () => JSON.parse(await edit.getByLabel('Settings (JSON)').inputValue())).toEqual({ temperature: 0.1 });
    await edit.getByLabel('Settings (JSON)').fill('{"temperature": 0.9}');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await readModel('tuned')).toMatchObject({ settings: { temperature: 0.9 }, version: 4 });

    // Disabled and enabled again from its page.
    await page.getByRole('button', { name: 'Disable model' }).click();
    await page.getByRole('button', { name: 'Enable model' }).waitFor();
    expect((await readModel('tuned')).enabled).toBe(false);
    await page.getByRole('button', { name: 'Enable model' }).click();
    await page.getByRole('button', { name: 'Disable model' }).waitFor();
    expect((await readModel('tuned')).enabled).toBe(true);

    // A key the workspace has no model for: the service's not_found, shown as it is.
    await page.goto('/models/no-such-model');
    await expect(page.getByRole('alert').filter({ hasText: 'Could not read the model' }).textContent()).resolves.toMatch(/not_found/);
    await page.close();
  });

  it('stores, replaces and removes a provider’s extra headers, never showing their values', async () => {
    const created = await t.rest('POST', '/api/v1/model-providers', {
      body: { type: 'openai_compatible', name: 'Headers', config: { base_url: `${server.url}/v1` }, credential: { api_key: KEY } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(await probeHeaders(id)).not.toHaveProperty('x-team');

    const page = await app.signedIn(`/models/providers/${id}`);
    await page.getByRole('heading', { name: 'Headers', level: 1 }).waitFor();
    const edit = page.getByRole('form', { name: 'Edit provider' });
    await edit.getByLabel('Extra headers', { exact: true }).selectOption('replace');
    // Three rows, the last one removed again.
    await fillHeader(page, 1, 'X-Team', 'blue-secret-value');
    await edit.getByRole('button', { name: 'Add a header' }).click();
    await fillHeader(page, 2, 'X-Trace', 'trace-one');
    await edit.getByRole('button', { name: 'Add a header' }).click();
    await fillHeader(page, 3, 'X-Drop', 'dropped');
    await edit.getByRole('button', { name: 'Remove header 3' }).click();
    await expect.poll(() => edit.getByRole('group', { name: /^Header \d$/ }).count()).toBe(2);
    await screenshot(page, 'models-provider-headers');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page
      .getByRole('term')
      .filter({ hasText: 'Extra headers' })
      .locator('xpath=following-sibling::dd[1]')
      .getByText('stored (never shown)')
      .waitFor();
    expect(await page.content()).not.toContain('blue-secret-value');
    expect(await readProvider(id)).toMatchObject({ extraHeadersConfigured: true, credentialConfigured: true, version: 2 });
    // The API never returns them; the model service receives exactly the rows saved.
    const rest = await t.rest('GET', `/api/v1/model-providers/${id}`);
    expect(JSON.stringify(rest.body)).not.toContain('blue-secret-value');
    expect(rest.body.extra_headers_configured).toBe(true);
    const sent = await probeHeaders(id);
    expect(sent).toMatchObject({ 'x-team': 'blue-secret-value', 'x-trace': 'trace-one' });
    expect(sent).not.toHaveProperty('x-drop');

    // Problems the page catches, and a name the service refuses (it names the header).
    await edit.getByLabel('Extra headers', { exact: true }).selectOption('replace');
    await fillHeader(page, 1, '', 'no-name');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(edit.getByRole('alert').textContent()).resolves.toMatch(/Extra header 1 has a value but no name/);
    await fillHeader(page, 1, 'X-Team', 'a');
    await edit.getByRole('button', { name: 'Add a header' }).click();
    await fillHeader(page, 2, 'x-team', 'b');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(edit.getByRole('alert').textContent()).resolves.toMatch(/“x-team” is given twice/);
    await fillHeader(page, 2, 'Host', 'example.com');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(edit.getByRole('alert').filter({ hasText: 'Could not save' }).textContent()).resolves.toMatch(/extra_headers\.Host/);
    expect((await readProvider(id)).version).toBe(2);

    // Replaced: the whole set is the new rows.
    await edit.getByRole('button', { name: 'Remove header 2' }).click();
    await fillHeader(page, 1, 'X-Team', 'green-secret-value');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('dd', { hasText: /^3$/ }).waitFor();
    const replaced = await probeHeaders(id);
    expect(replaced['x-team']).toBe('green-secret-value');
    expect(replaced).not.toHaveProperty('x-trace');

    // Kept: another change leaves them as they are.
    await edit.getByLabel('Description').fill('with headers');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('dd', { hasText: /^4$/ }).waitFor();
    expect((await probeHeaders(id))['x-team']).toBe('green-secret-value');

    // Removed.
    await edit.getByLabel('Extra headers', { exact: true }).selectOption('remove');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('dd', { hasText: /^5$/ }).waitFor();
    expect(await readProvider(id)).toMatchObject({ extraHeadersConfigured: false, credentialConfigured: true });
    expect(await probeHeaders(id)).not.toHaveProperty('x-team');

    // A change made meanwhile elsewhere: refused with a reload, and the reloaded form saves.
    const now = await t.rest('GET', `/api/v1/model-providers/${id}`);
    expect(
      (
        await t.rest('PATCH', `/api/v1/model-providers/${id}`, {
          headers: { 'If-Match': now.headers.get('etag')! },
          body: { name: 'Headers 2' },
        })
      ).status,
    ).toBe(200);
    await edit.getByLabel('Extra headers', { exact: true }).selectOption('replace');
    await fillHeader(page, 1, 'X-Late', 'late');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    const stale = edit.getByRole('alert').filter({ hasText: 'Someone else changed this provider' });
    await stale.getByRole('button', { name: 'Reload the provider' }).click();
    await page.getByRole('heading', { name: 'Headers 2', level: 1 }).waitFor();
    expect(await readProvider(id)).toMatchObject({ extraHeadersConfigured: false, version: 6 });
    await page.close();
  });

  it('creates a provider with extra headers from the new provider form', async () => {
    const page = await app.signedIn('/models');
    const form = page.getByRole('form', { name: 'New model provider' });
    await form.getByLabel('Type').selectOption('openai_compatible');
    await form.getByLabel('Name', { exact: true }).fill('Born with headers');
    await form.getByLabel('Configuration (JSON)').fill(JSON.stringify({ base_url: `${server.url}/v1` }));
    await form.getByLabel('api_key').fill(KEY);
    await form.getByRole('button', { name: 'Add a header' }).click();
    await fillHeader(page, 1, 'X-Origin', 'console');
    await form.getByRole('button', { name: 'Create provider' }).click();
    await page.getByRole('heading', { name: 'Born with headers', level: 1 }).waitFor();
    const id = /\/models\/providers\/([^/?]+)/.exec(page.url())![1]!;
    expect((await readProvider(id)).extraHeadersConfigured).toBe(true);
    expect((await probeHeaders(id))['x-origin']).toBe('console');
    await page.close();
  });
});
