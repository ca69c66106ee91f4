// The console's sections arrive as separate chunks, loaded the first time one of their pages is shown.
// In the real browser: while a section's chunk is held back, the page area says it is loading (a
// status) with focus already on it, and the title follows the page's heading once the chunk arrives;
// a chunk that cannot be fetched (a newer console deployed, the network) leaves an alert and a reload
// button instead of a blank console, and the reload brings the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from 'playwright-core';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable } from '../helpers/browser.js';

let app: ConsoleTestApp;

describe.skipIf(!browserAvailable)('loading a section of the console', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('shows a loading status while the chunk is on its way, then the page with its title and focus', async () => {
    const page = await app.signedIn('/');
    // The overview (its heading is the workspace's name) is in the entry chunk.
    await page.getByRole('heading', { level: 1 }).waitFor();
    // The webhooks section's chunk is held until the test has seen the status.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let requested!: () => void;
    const chunkRequested = new Promise<void>((resolve) => (requested = resolve));
    await page.route(/\/static\/webhooks-[\w-]+\.js$/, async (route: Route) => {
      requested();
      await released;
      await route.continue();
    });
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await chunkRequested;
    const status = page.getByRole('main').getByRole('status').filter({ hasText: 'Loading the page…' });
    await status.waitFor();
    // Focus is on the page area already (the navigation moved it there), not on the link.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    release();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await status.waitFor({ state: 'detached' });
    await expect.poll(() => page.title()).toBe('Webhooks · Agent console');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.close();
  });

  it('says so when a chunk cannot be fetched, keeps the navigation, and a reload brings the page', async () => {
    const page = await app.signedIn('/');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.route(/\/static\/devices-[\w-]+\.js$/, (route: Route) => route.abort());
    await page.getByRole('link', { name: 'Devices' }).click();
    await page.getByRole('heading', { name: 'This page could not be shown', level: 1 }).waitFor();
    await page.getByRole('main').getByRole('alert').waitFor();
    await expect.poll(() => page.title()).toBe('This page could not be shown · Agent console');
    // The rest of the console still works: another section opens.
    await page.getByRole('link', { name: 'Memories' }).click();
    await page.getByRole('heading', { name: 'Memories', level: 1 }).waitFor();
    // The chunk is reachable again (a reload of a redeployed console): the reload shows the page.
    await page.unroute(/\/static\/devices-[\w-]+\.js$/);
    await page.getByRole('link', { name: 'Devices' }).click();
    await page.getByRole('button', { name: 'Reload the console' }).click();
    await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor();
    await page.close();
  });
});
