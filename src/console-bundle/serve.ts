// Serves the operator console (console/dist, built from console/src by scripts/build-console.mjs) at
// `/`: the hashed bundle files with long caching, the service worker (web push) from the root so its
// scope is the whole console, and the page itself for every other path the API does not own, so that
// links into the console (`/runs/run_…`) load it. Every console response carries a strict
// Content-Security-Policy: scripts, styles and connections only from this origin.
import compression from 'compression';
import express, { type Request, type Response, type Router } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRepositoryRoot } from '../lib/repository-root.js';

export const CONSOLE_DIST = fromRepositoryRoot('console', 'dist');

/** Paths that belong to the API and the service, never to the console. */
const SERVICE_PREFIXES = ['/api', '/graphql', '/docs', '/healthz', '/readyz', '/metrics'];

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(res: Response) {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

function ownedByService(path: string): boolean {
  return SERVICE_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

export function consoleRouter(dist = CONSOLE_DIST): Router {
  const router = express.Router();
  // The bundle is text and mostly shrinks to a third compressed; only the console's own responses are
  // compressed here (the API's streams are left alone).
  const compress = compression();
  const indexFile = join(dist, 'index.html');
  // Read once: the page is small and never changes while the process lives.
  let page: string | null = null;
  const indexPage = () => (page ??= existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : null);

  router.use('/static', compress, (_req, res, next) => {
    secure(res);
    next();
  });
  // Bundle files carry a content hash in their names: cache them for good.
  router.use('/static', express.static(join(dist, 'static'), { immutable: true, maxAge: '365d', index: false }));
  router.use('/static', (_req, res) => {
    res.status(404).type('text/plain').send('not found\n');
  });
  router.get('/sw.js', (_req, res, next) => {
    secure(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Service-Worker-Allowed', '/');
    res.sendFile(join(dist, 'sw.js'), { headers: { 'Content-Type': 'text/javascript; charset=utf-8' } }, (error) => error && next());
  });
  router.get('/favicon.svg', (_req, res, next) => {
    // An SVG can carry script: the same policy as the page keeps it inert when opened on its own.
    secure(res);
    res.sendFile(join(dist, 'favicon.svg'), { maxAge: '1d' }, (error) => error && next());
  });
  const sendPage = (req: Request, res: Response, next: () => void) => {
    if (ownedByService(req.path)) return next();
    // A path with a file extension is a missing file, not a page of the console.
    if (/\.[a-z0-9]{1,8}$/i.test(req.path)) return next();
    const html = indexPage();
    secure(res);
    res.setHeader('Cache-Control', 'no-cache');
    if (!html) {
      res
        .status(503)
        .type('text/plain')
        .send('The operator console is not built. Run `npm run console:build` (npm start does it), then reload.\n');
      return;
    }
    res.type('html').send(html);
  };
  router.get('/{*path}', compress, sendPage);
  return router;
}
