import { defineConfig } from 'vitest/config';

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * Two tiers of the same suite. The default tier (`npm test`, `npx vitest run`) runs everything but the
 * tests tagged `slow`: scale and soak tests and the extra process-level tests (the default tier keeps
 * one real process test of each kind: signals, exit codes, root, CLI stdout). The slow tier
 * (`npm run test:slow`, vitest.slow.config.ts) runs only those; CI runs both tiers.
 */
export function suiteConfig(tier: 'default' | 'slow') {
  return defineConfig({
    resolve: {
      // Node loads graphql's CommonJS build for our dependencies (yoga, Pothos); Vite would give our
      // own files the .mjs build. Two copies of graphql cannot share a schema, so pin the one Node uses.
      // The client package (client/, an npm workspace) is used from its TypeScript sources here (its
      // package export is the built dist/), as type-checking and tsx use them through the `wsa-source`
      // export condition; an alias, so that no other package's resolution changes.
      alias: {
        graphql: require.resolve('graphql'),
        '@workspace-agent-service/client': fileURLToPath(new URL('./client/src/index.ts', import.meta.url)),
      },
    },
    test: {
      include: ['test/**/*.test.ts'],
      globalSetup: ['test/helpers/global-setup.ts'],
      pool: 'forks',
      // Test files share their worker process's modules instead of loading the whole app again for
      // each file (that was most of a run's time). So a test file must leave module-level state as
      // it found it: no environment changes, mocks or global stubs without restoring them.
      isolate: false,
      maxWorkers: 2,
      testTimeout: 60_000,
      hookTimeout: 120_000,
      reporters: ['default'],
      tags: [{ name: 'slow', description: 'scale, soak and extra process-level tests: npm run test:slow (CI runs them)' }],
      // A command-line option in vitest's types, read from the configuration too (vitest 4.1).
      ...({ tagsFilter: [tier === 'slow' ? 'slow' : '!slow'] } as object),
      // Not experimental.preParse (which would spare the slow tier loading files without slow tests):
      // it reads describe.skipIf(...) as always skipped and silently dropped the database-tool tests.
    },
  });
}

export default suiteConfig('default');
