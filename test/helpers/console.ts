// What every console test starts with: a test app, a browser on its console, pages signed in with the
// workspace's API key, and (for sections that run agents) a loopback model server behind a model key
// and agents made through the public API. One place, so each test file is about its own section.
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { Config } from '../../src/config.js';
import { startTestApp, type TestApp } from './app.js';
import { launchConsoleBrowser, signInWithApiKey, signInWithPassword, type ConsoleBrowser } from './browser.js';
import { createUser } from '../../src/features/access/admin.js';
import { insertModel } from './fixtures.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer } from './model-servers.js';

export interface ConsoleTestApp {
  t: TestApp;
  browser: ConsoleBrowser;
  /** The scripted model server, when `loopbackModel` was asked for. */
  model: ModelServer | undefined;
  /** A new tab signed in with the workspace's API key, at `path`. */
  signedIn(path?: string): Promise<Page>;
  /** A new tab signed in as a user with a password (one of `users`, or made by the test), at `path`. */
  signedInAs(email: string, password: string, path?: string): Promise<Page>;
  /** An agent made through the REST API (201 expected); its id and ETag. */
  createAgent(name: string, config: Record<string, unknown>, body?: Record<string, unknown>): Promise<{ id: string; etag: string }>;
  /** Closes the browser, the model server and the app (each only if it was started). */
  stop(): Promise<void>;
}

export interface ConsoleTestUser {
  email: string;
  password: string;
  name: string;
  role?: 'admin' | 'writer' | 'reader';
}

export async function startConsoleTestApp(
  overrides: Partial<Config> = {},
  options: {
    /** A loopback OpenAI-compatible model server behind this model key (plain HTTP on 127.0.0.1 is allowed for it). */
    loopbackModel?: string;
    /** Models on the offline development provider, by key. */
    devModels?: string[];
    /** Users of the workspace who sign in with a password (role `writer` unless given). */
    users?: ConsoleTestUser[];
  } = {},
): Promise<ConsoleTestApp> {
  const model = options.loopbackModel ? await startOpenAICompatibleServer() : undefined;
  const plainHttp = overrides.allowPlainHttpEndpoints;
  const t = await startTestApp(
    model && plainHttp !== true
      ? { ...overrides, allowPlainHttpEndpoints: [...new Set([...(Array.isArray(plainHttp) ? plainHttp : []), '127.0.0.1'])] }
      : overrides,
  );
  for (const key of options.devModels ?? []) await insertModel(t, key);
  if (model) await addLoopbackModel(t, model, options.loopbackModel!);
  for (const { role = 'writer', ...user } of options.users ?? [])
    await createUser(t.app.deps, { ...user, workspaceId: t.workspaceId, role });
  const browser = await launchConsoleBrowser(t.url);
  return {
    t,
    browser,
    model,
    async signedIn(path = '/') {
      const page = await browser.open('/');
      await signInWithApiKey(page, t.apiKey);
      if (path !== '/') await page.goto(path);
      return page;
    },
    async signedInAs(email, password, path = '/') {
      const page = await browser.open('/');
      await signInWithPassword(page, email, password);
      if (path !== '/') await page.goto(path);
      return page;
    },
    async createAgent(name, config, body = {}) {
      const created = await t.rest('POST', '/api/v1/agents', { body: { name, config, ...body } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return { id: created.body.id, etag: created.headers.get('etag')! };
    },
    async stop() {
      await browser.close();
      await model?.close();
      await t.stop();
    },
  };
}
