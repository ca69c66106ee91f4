// GraphiQL's page module (@graphql-yoga/render-graphiql: the editor and its workers inlined as one
// string) held ~29 MB of every process's heap from start-up, though GraphiQL is off in production
// and seldom opened in development. It is imported on the first request for the page: a process
// that builds the service's GraphQL server has not resolved it, and rendering the page does.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the GraphiQL page module', () => {
  it('is loaded when the page is first rendered, not with the GraphQL server', { timeout: 60_000 }, () => {
    const script = join(mkdtempSync(join(tmpdir(), 'wsa-graphiql-')), 'probe.mjs');
    const source = (path: string) => pathToFileURL(join(ROOT, path)).href;
    writeFileSync(
      script,
      [
        `import { registerHooks } from 'node:module';`,
        `let loaded = false;`,
        `registerHooks({ resolve(specifier, context, next) { if (specifier.includes('render-graphiql')) loaded = true; return next(specifier, context); } });`,
        `const { createYogaServer } = await import('${source('src/graphql/yoga.ts')}');`,
        `const { graphiqlOptions, renderLocalGraphiQL } = await import('${source('src/graphql/graphiql.ts')}');`,
        `console.log('after the server module', loaded, typeof createYogaServer);`,
        `const html = await renderLocalGraphiQL(graphiqlOptions());`,
        `console.log('after the page', loaded, html.includes('YogaGraphiQL.renderYogaGraphiQL'));`,
      ].join('\n'),
    );
    const output = execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8' });
    expect(output).toContain('after the server module false function');
    expect(output).toContain('after the page true true');
  });
});
