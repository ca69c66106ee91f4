// How the service serves the console, seen by a plain HTTP client (no browser needed): the page on
// every path the API does not own, the bundle with long caching (the entry and every section's lazily
// loaded chunk), the service worker at the root, the
// security headers, a 404 for missing files, a 503 that says how to build when the build is missing,
// and nothing at all with CONSOLE_ENABLED=false.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { get } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { consoleRouter } from '../../src/console-bundle/serve.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

describe('serving the console', () => {
  it('is served at / and on its own paths, with a strict Content-Security-Policy, leaving the API alone', async () => {
    const page = await fetch(`${t.url}/runs/run_unknown`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    const script = /src="(\/static\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    // Nothing from another origin: the console works offline.
    expect(html).not.toMatch(/https?:\/\//);
    const bundle = await fetch(`${t.url}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('cache-control')).toMatch(/immutable/);
    const bytes = (await bundle.arrayBuffer()).byteLength;
    // Compressed for a client that accepts it: the bytes on the wire, read raw (fetch would unpack them).
    const wire = await new Promise<{ encoding?: string; size: number }>((resolve, reject) => {
      get(`${t.url}${script}`, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
        let size = 0;
        response.on('data', (chunk: Buffer) => (size += chunk.length));
        response.on('end', () => resolve({ encoding: response.headers['content-encoding'], size }));
      }).on('error', reject);
    });
    expect(wire.encoding).toBe('gzip');
    expect(wire.size).toBeLessThan(bytes / 2);
    expect((await fetch(`${t.url}/static/missing.js`)).status).toBe(404);
    expect((await fetch(`${t.url}/favicon.svg`)).headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const worker = await fetch(`${t.url}/sw.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get('service-worker-allowed')).toBe('/');
    // The API keeps its own answers.
    const api = await fetch(`${t.url}/api/v1/nothing-here`);
    expect(api.status).toBe(404);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${t.url}/docs`)).headers.get('content-type')).toMatch(/text\/html/);
  });

  it('serves every lazily loaded section chunk like the entry: hashed, immutable, compressed, under the same policy', async () => {
    const html = await (await fetch(`${t.url}/`)).text();
    const entry = /src="\/static\/([^"]+\.js)"/.exec(html)![1]!;
    // Every chunk the entry can load, and the chunks those import, as the browser would reach them.
    const names = (code: string) => new Set([...code.matchAll(/(?:\.\/|static\/)([\w-]+-[\w-]{8}\.js)\b/g)].map((match) => match[1]!));
    const sources = new Map<string, string>();
    const queue = [entry];
    while (queue.length) {
      const name = queue.shift()!;
      if (sources.has(name)) continue;
      const response = await fetch(`${t.url}/static/${name}`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type'), name).toMatch(/javascript/);
      expect(response.headers.get('cache-control'), name).toMatch(/immutable/);
      expect(response.headers.get('content-security-policy'), name).toMatch(/script-src 'self'/);
      const code = await response.text();
      sources.set(name, code);
      for (const found of names(code)) queue.push(found);
    }
    // One chunk per section at least, besides the entry; a section's pages are not in the entry.
    const webhooks = [...sources.keys()].find((name) => name.startsWith('webhooks-'));
    expect(webhooks, [...sources.keys()].join(', ')).toBeTruthy();
    expect(sources.get(webhooks!)).toContain('Send test event');
    expect(sources.get(entry)).not.toContain('Send test event');
    expect(sources.size).toBeGreaterThan(10);
    // A chunk is compressed on the wire too.
    const encoding = await new Promise<string | undefined>((resolve, reject) => {
      get(`${t.url}/static/${webhooks}`, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.headers['content-encoding']));
      }).on('error', reject);
    });
    expect(encoding).toBe('gzip');
  });

  it('answers 503 with the way to build it when the build is missing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'wsa-console-missing-'));
    const app = express().use(consoleRouter(empty));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/agents`);
      expect(response.status).toBe(503);
      expect(await response.text()).toMatch(/npm run console:build/);
    } finally {
      server.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('serves no console with CONSOLE_ENABLED=false, the API unaffected', async () => {
    const off = await startTestApp({ consoleEnabled: false });
    try {
      expect((await fetch(`${off.url}/`)).status).toBe(404);
      expect((await fetch(`${off.url}/sw.js`)).status).toBe(404);
      expect((await fetch(`${off.url}/healthz`)).status).toBe(200);
      expect((await off.rest('GET', '/api/v1/workspace')).status).toBe(200);
    } finally {
      await off.stop();
    }
  });
});
