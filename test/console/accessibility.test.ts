// Accessibility of every page in the navigation, checked in the real browser with axe-core (WCAG 2.1 A
// and AA rules: names and labels, roles, landmarks, contrast, headings), in the light and the dark
// colour scheme, and the keyboard path into a page (the skip link).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable, screenshot, signInWithApiKey, type ConsoleBrowser } from '../helpers/browser.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's WCAG 2.1 A/AA violations on the page as it is now. */
async function violations(page: Page): Promise<Violation[]> {
  // Evaluated over the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target })),
    }));
  });
}

let app: ConsoleTestApp;
let t: TestApp;
let browser: ConsoleBrowser;

describe.skipIf(!browserAvailable)('the console is accessible', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp();
    ({ t, browser } = app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('has no WCAG A/AA violations on the sign-in page and on every page of the navigation, light and dark', async () => {
    const page = await browser.open('/');
    const found: Record<string, Violation[]> = {};
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const signIn = await violations(page);
      if (signIn.length) found[`sign-in (${scheme})`] = signIn;
    }
    await signInWithApiKey(page, t.apiKey);
    const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').all();
    const pages: { name: string; href: string }[] = [];
    for (const link of links) pages.push({ name: (await link.textContent())!.trim(), href: (await link.getAttribute('href'))! });
    expect(pages.length).toBeGreaterThan(0);
    for (const { name, href } of pages) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
      await page.waitForURL((url) => url.pathname === href);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      // Let the page's first answers arrive (its loading notices leave).
      await page.waitForFunction(() => !document.querySelector('[role="status"][aria-live="polite"]'), undefined, { timeout: 20_000 });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const list = await violations(page);
        if (list.length) found[`${name} ${href} (${scheme})`] = list;
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await screenshot(page, `page-${href.replace(/\W+/g, '-').replace(/^-|-$/g, '') || 'overview'}`);
    }
    expect(found).toEqual({});
  });

  it('has no WCAG A/AA violations on a model’s page and on a provider’s form with extra header rows, light and dark', async () => {
    // Pages outside the navigation with forms of their own; the development type needs no network.
    const provider = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'Axe provider' } });
    expect(provider.status).toBe(201);
    const model = await t.rest('POST', '/api/v1/models', {
      body: { key: 'axe-model', provider_id: provider.body.id, provider_model: 'echo' },
    });
    expect(model.status).toBe(201);
    const page = await app.signedIn('/models/axe-model');
    await page.getByRole('form', { name: 'Edit model' }).waitFor();
    const found: Record<string, Violation[]> = {};
    const check = async (name: string) => {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const list = await violations(page);
        if (list.length) found[`${name} (${scheme})`] = list;
      }
      await page.emulateMedia({ colorScheme: 'light' });
    };
    await check('model page');
    await page.goto(`/models/providers/${provider.body.id}`);
    const edit = page.getByRole('form', { name: 'Edit provider' });
    await edit.getByLabel('Extra headers', { exact: true }).selectOption('replace');
    await edit.getByRole('button', { name: 'Add a header' }).click();
    await edit.getByRole('group', { name: 'Header 2', exact: true }).waitFor();
    await check('provider page with header rows');
    expect(found).toEqual({});
    await page.close();
  });

  it('is usable from the keyboard: the skip link moves focus to the page', async () => {
    const page = await app.signedIn('/');
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.locator('body').focus();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await expect(skip.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
  });

  it('moves focus to the new page after a navigation, and titles the document after its heading', async () => {
    const page = await browser.open('/');
    await signInWithApiKey(page, t.apiKey);
    await page.waitForFunction(() => document.title.endsWith('· Agent console'));
    const navigation = page.getByRole('navigation', { name: 'Main' });
    const link = navigation.getByRole('link', { name: 'Runs', exact: true });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
    await page.waitForFunction(() => document.title === 'Runs · Agent console');
  });
});
