// The console in a real browser: serving (the page, its bundle, its headers), sign-in with an API key
// and with a login session, the workspace switcher, and sign-out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable, screenshot, signInWithApiKey, signInWithPassword, type ConsoleBrowser } from '../helpers/browser.js';
import { createUser, createWorkspace } from '../../src/features/access/admin.js';

let app: ConsoleTestApp;
let t: TestApp;
let browser: ConsoleBrowser;
let second: { id: string; name: string };

describe.skipIf(!browserAvailable)('the operator console', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp();
    ({ t, browser } = app);
    const { data } = await t.graphql(`{ workspace { etag } }`);
    await t.graphql(`mutation ($etag: String!) { updateWorkspace(ifMatch: $etag, input: { name: "Acme" }) { workspace { id } } }`, {
      etag: data.workspace.etag,
    });
    const other = await createWorkspace(t.app.deps, { name: 'Research' });
    second = { id: other.workspace.id, name: 'Research' };
    await createUser(t.app.deps, {
      email: 'ada@example.com',
      password: 'correct horse',
      workspaceId: t.workspaceId,
      role: 'admin',
      name: 'Ada',
    });
    await createUser(t.app.deps, {
      email: 'ada@example.com',
      password: 'correct horse',
      workspaceId: second.id,
      role: 'reader',
      name: 'Ada',
    });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('signs in with an API key and shows the workspace', async () => {
    const page = await browser.open('/');
    await expect(page.getByRole('heading', { name: 'Sign in to the workspace agent console' }).isVisible()).resolves.toBe(true);
    await screenshot(page, 'sign-in');
    await signInWithApiKey(page, t.apiKey);
    await page.getByRole('heading', { name: 'Acme' }).waitFor();
    expect(await page.getByText(t.workspaceId).count()).toBeGreaterThan(0);
    await screenshot(page, 'overview');
    // A reload keeps the tab signed in (sessionStorage).
    await page.reload();
    await page.getByRole('heading', { name: 'Acme' }).waitFor();
    await page.getByText('No run is waiting for an answer.').waitFor();
    // A new workspace has no agent: starting a run says what to do first, with the way there.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs', exact: true }).click();
    await page.goto('/runs/new');
    await page.getByRole('link', { name: 'create an agent' }).click();
    await page.waitForURL((url) => url.pathname === '/agents/new');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the workspace agent console' }).waitFor();
    await page.close();
  });

  it('refuses a wrong API key and a wrong password with a message', async () => {
    const page = await browser.open('/');
    await page.getByRole('tab', { name: 'API key' }).click();
    await page.getByLabel('API key').fill('wsk_not_a_real_key_000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Could not sign in/);
    await page.getByRole('tab', { name: 'Email and password' }).click();
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Could not sign in/);
    await page.close();
  });

  it('signs in with a login session and switches between its workspaces', async () => {
    const page = await browser.open('/');
    await signInWithPassword(page, 'ada@example.com', 'correct horse');
    await page.getByRole('heading', { name: 'Acme' }).waitFor();
    const switcher = page.getByLabel('Workspace');
    await switcher.selectOption(second.id);
    await page.getByRole('heading', { name: 'Research' }).waitFor();
    expect(await page.getByText(second.id).count()).toBeGreaterThan(0);
    await screenshot(page, 'workspace-switcher');
    const token = await page.evaluate(() => JSON.parse(sessionStorage.getItem('wsa.console.auth')!).credential.token as string);
    expect(
      (await t.graphql('{ viewer { principalId } }', {}, { token, headers: { 'x-workspace-id': second.id } })).data?.viewer,
    ).toBeTruthy();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the workspace agent console' }).waitFor();
    // Signing out ended the session on the service, and the browser keeps no credential.
    const after = await t.graphql('{ viewer { principalId } }', {}, { token, headers: { 'x-workspace-id': second.id } });
    expect(after.errors?.[0]?.extensions?.code).toBe('unauthenticated');
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(stored).not.toContain(token);
    await page.close();
  });
});
