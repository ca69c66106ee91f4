// The published REST contract: the OpenAPI 3.1 documents of both surfaces (built from the REST table
// and the GraphQL schema, rest-shim/openapi.ts) and an API reference page at /docs that renders them.
// Everything is served by the service: the page's script is Scalar's standalone bundle read from
// node_modules, its fonts are the browser's own (the default fonts would come from Scalar's CDN), and
// it talks to no Scalar service, so the page works offline. Open to anonymous callers: the contract
// is public, the data behind it is not.
import express, { type Router } from 'express';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GraphQLSchema } from 'graphql';
import { openApiDocuments } from '../../rest-shim/openapi.js';

export const OPENAPI_PATHS = { v1: '/api/v1/openapi.json', support: '/api/openapi.json' } as const;
export const DOCS_PATH = '/docs';

const here = dirname(fileURLToPath(import.meta.url));
/** Scalar's standalone bundle (the package exports its stylesheet, next to which `browser/` lives). */
const STANDALONE = join(dirname(createRequire(import.meta.url).resolve('@scalar/api-reference/style.css')), 'browser', 'standalone.js');

export function apiReferenceRouter(schema: GraphQLSchema): Router {
  const router = express.Router();
  const page = readFileSync(join(here, 'page.html'), 'utf8');
  const init = readFileSync(join(here, 'init.js'), 'utf8');
  // Built and serialized on the first request, not at start-up (the test suite starts many services
  // that never ask); the schema, and so the documents, are fixed for the life of the process.
  let bodies: Record<'v1' | 'support', string> | null = null;
  const documents = () => {
    if (!bodies) {
      const built = openApiDocuments(schema);
      bodies = { v1: JSON.stringify(built.v1), support: JSON.stringify(built.support) };
    }
    return bodies;
  };

  for (const surface of ['v1', 'support'] as const) {
    router.get(OPENAPI_PATHS[surface], (_req, res) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.type('application/json').send(documents()[surface]);
    });
  }
  router.get(DOCS_PATH, (_req, res) => {
    res.type('html').send(page);
  });
  router.get(`${DOCS_PATH}/init.js`, (_req, res) => {
    res.type('text/javascript').send(init);
  });
  router.get(`${DOCS_PATH}/standalone.js`, (_req, res, next) => {
    res.sendFile(STANDALONE, { headers: { 'Content-Type': 'text/javascript; charset=utf-8' }, maxAge: '1h' }, (error) => {
      if (error) next(error);
    });
  });
  return router;
}
