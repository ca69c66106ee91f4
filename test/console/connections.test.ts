// The connections pages in a real browser against the reference MCP server on loopback: create a
// connection with a bearer token (never shown back), test it (the server's tools listed), change it,
// revoke its credential behind a confirmation (the next test fails with the server's 401), and a
// refusal shown as the service's error; authorizing a connection with OAuth (the browser goes to the
// loopback authorization server, which approves at once, and comes back through the service's callback).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startEverythingServer, type McpTestServer } from '../helpers/mcp-servers.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/oauth-mcp-server.js';

const TOKEN = 'mcp-console-token-0123456789';
let app: ConsoleTestApp;
let t: TestApp;
let mcp: McpTestServer;
let oauth: OAuthMcpServer;
let providerId: string;

describe.skipIf(!browserAvailable)('the connections pages', () => {
  beforeAll(async () => {
    mcp = await startEverythingServer(TOKEN);
    oauth = await startOAuthMcpServer();
    app = await startConsoleTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
    ({ t } = app);
    const provider = await t.rest('POST', '/api/v1/connector-providers', {
      body: { type: 'mcp', name: 'MCP servers', config: { url: mcp.url } },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    providerId = provider.body.id;
    // One connection made through the API, for the list and its filters.
    const other = await t.rest('POST', '/api/v1/connections', {
      body: { provider_id: provider.body.id, name: 'Dormant', config: { url: mcp.url }, enabled: false },
    });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
  });
  afterAll(async () => {
    await app?.stop();
    await mcp?.close();
    await oauth?.close();
  });

  it('creates, tests, edits and revokes a connection, never showing its credential', async () => {
    const page = await app.signedIn('/');
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { name: 'Connections', level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Connections' }).getByRole('link', { name: 'Dormant' }).waitFor();

    const form = page.getByRole('form', { name: 'New connection' });
    await form.getByLabel('Name').fill('Everything');
    await form.getByLabel('Description').fill('the reference server');
    await form.getByLabel('Server URL').fill(mcp.url);
    await form.getByLabel('Bearer token').fill(TOKEN);
    await form.getByLabel('Labels').fill('team=core');
    await form.getByRole('button', { name: 'Create connection' }).click();

    await page.getByRole('heading', { name: 'Everything', level: 1 }).waitFor();
    await page.getByText('stored (never shown)').waitFor();
    expect(await page.content()).not.toContain(TOKEN);

    await page.getByRole('button', { name: 'Test connection' }).click();
    const result = page.getByRole('status').filter({ hasText: /Test (succeeded|failed)/ });
    await expect(result.textContent()).resolves.toMatch(/Test succeeded: the server lists \d+ tools/);
    await screenshot(page, 'connections-detail');

    // An edit: a new description, disabled.
    const edit = page.getByRole('form', { name: 'Edit connection' });
    await edit.getByLabel('Description').fill('the reference server, paused');
    await edit.getByLabel('Enabled').uncheck();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByText('the reference server, paused').first().waitFor();
    // A disabled connection refuses the test with the service's error.
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Could not test' }).textContent()).resolves.toMatch(/disabled/);
    await edit.getByLabel('Enabled').check();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Version').waitFor();
    await page.locator('dd', { hasText: /^3$/ }).waitFor();

    // Revoke, behind a confirmation; cancel first.
    await page.getByRole('button', { name: 'Revoke credential' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the credential?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByText('stored (never shown)').count()).toBe(1);
    await page.getByRole('button', { name: 'Revoke credential' }).click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('status').filter({ hasText: 'The credential was revoked.' }).waitFor();
    await page.locator('dd', { hasText: /^none$/ }).waitFor();
    // Without its token the server answers 401: the test says so.
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(
      page
        .getByRole('status')
        .filter({ hasText: /Test (succeeded|failed)/ })
        .textContent(),
    ).resolves.toMatch(/Test failed/);

    const id = new URL(page.url()).pathname.split('/').pop()!;
    const view = await t.rest('GET', `/api/v1/connections/${id}`);
    expect(view.body).toMatchObject({ name: 'Everything', enabled: true, credential_configured: false, labels: { team: 'core' } });
    await page.close();
  });

  it('filters the list and shows a refusal as the service’s error', async () => {
    const page = await app.signedIn('/');
    await page.getByRole('link', { name: 'Connections' }).click();
    const table = page.getByRole('table', { name: 'Connections' });
    await table.getByRole('link', { name: 'Dormant' }).waitFor();
    await page.getByLabel('State').selectOption('false');
    await page.waitForURL(/enabled=false/);
    await table.getByRole('link', { name: 'Dormant' }).waitFor();
    await expect.poll(() => table.getByRole('row').count(), { timeout: 20_000 }).toBe(2);
    await page.getByLabel('State').selectOption('');
    await page.getByLabel('Search').fill('Dorm');
    await expect.poll(() => table.getByRole('row').count(), { timeout: 20_000 }).toBe(2);
    await screenshot(page, 'connections-list');

    // A URL the endpoint policy refuses (plain http to another host).
    const form = page.getByRole('form', { name: 'New connection' });
    await form.getByLabel('Name').fill('Refused');
    await form.getByLabel('Server URL').fill('http://example.com/mcp');
    await form.getByRole('button', { name: 'Create connection' }).click();
    await expect(form.getByRole('alert').textContent()).resolves.toMatch(/Could not create the connection: .*\(invalid_argument\)/);
    await page.close();
  });

  it('authorizes a connection with OAuth and comes back to its page', async () => {
    const created = await t.rest('POST', '/api/v1/connections', {
      body: { provider_id: providerId, name: 'Hosted', config: { url: oauth.url } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const page = await app.signedIn(`/connections/${created.body.id}`);
    await page.getByRole('heading', { name: 'OAuth' }).waitFor();
    await page.getByRole('button', { name: 'Authorize with OAuth' }).click();
    await page.waitForURL(/oauth=authorized/);
    await page.getByRole('status').filter({ hasText: 'The connection was authorized.' }).waitFor();
    await page.getByRole('button', { name: 'Authorize again' }).waitFor();
    expect((await t.rest('GET', `/api/v1/connections/${created.body.id}`)).body.oauth).toMatchObject({ status: 'authorized' });
    await page.close();
  });
});
