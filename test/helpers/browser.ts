// A real browser for the console tests: Debian's Chromium (`.ci/run` installs it) driven by
// playwright-core, headless, with a fresh profile per launch. Each test file gets its own browser and
// pages; screenshots go to test-artifacts/console/ (kept by CI as the tests' artifacts).
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * Whether the browser tests can run. Without Chromium they are skipped on a developer's machine (the
 * "Tests" in docs/development.md says how to install it), but never in CI: there a missing browser fails the run.
 */
export const browserAvailable = existsSync(CHROMIUM_PATH) || process.env.CI === 'true';

export const ARTIFACTS_DIR = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));

// The flags this machine needs: no sandbox as root, and no background traffic to Google's hosts
// (the network is closed; those connections would fail by the dozen).
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface ConsoleBrowser {
  context: BrowserContext;
  /** A new tab on the service, at `path`. */
  open(path?: string): Promise<Page>;
  close(): Promise<void>;
}

export async function launchConsoleBrowser(baseUrl: string): Promise<ConsoleBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'wsa-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
    baseURL: baseUrl,
    viewport: { width: 1280, height: 860 },
    // Notifications are allowed for the service's origin (web-push opt-in asks for them).
    permissions: ['notifications'],
  });
  // A slow machine under load: waits are for signals in the page, bounded generously.
  context.setDefaultTimeout(20_000);
  return {
    context,
    async open(path = '/') {
      const page = await context.newPage();
      await page.goto(path);
      return page;
    },
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot as test-artifacts/console/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Signs in on the sign-in page with an API key. */
export async function signInWithApiKey(page: Page, apiKey: string): Promise<void> {
  await page.getByRole('tab', { name: 'API key' }).click();
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** Signs in on the sign-in page with an email and password (a login session). */
export async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  await page.getByRole('tab', { name: 'Email and password' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}
