// Reads the configuration and starts the service. Nothing else lives here.
// First: traces of the compiled build name the .ts files (lib/source-mapped-stacks.ts).
import './lib/source-mapped-stacks.js';
import { ConfigError, loadConfig } from './config.js';
import { buildApp } from './app.js';
import { createLogger } from './lib/logger.js';
import { stopOnSignals } from './lib/shutdown.js';
import { EmbeddedPostgresError } from './storage/embedded.js';

/** Failures the operator must fix (configuration, the embedded database's situation): one line, no stack trace. */
function exitOnOperatorError(error: unknown): never {
  if (error instanceof ConfigError || error instanceof EmbeddedPostgresError) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    return exitOnOperatorError(error);
  }
})();
const logger = createLogger(config.logLevel);
const app = await buildApp(config, { logger }).catch(exitOnOperatorError);
const url = await app.start();
logger.info({ url, env: config.env, database: app.database.mode, dataDir: config.dataDir }, 'workspace agent service listening');
if (config.consoleEnabled) logger.info({ console: `${url}/` }, 'operator console: sign in with an API key or a user');
if (config.graphiql) {
  logger.info({ graphiql: `${url}/graphql` }, 'GraphiQL: put an API key in its Authorization header (Headers tab)');
}
if (app.bootstrap) {
  // Printed once, on the first start of an empty database.
  process.stdout.write(
    `\nBootstrap API key for workspace ${app.bootstrap.workspaceId} (all permissions):\n\n  ${app.bootstrap.apiKey}\n\n` +
      `Also written to ${app.bootstrap.keyFile} (mode 0600). Try:\n  curl -H "Authorization: Bearer ${app.bootstrap.apiKey}" ${url}/api/v1/workspace\n` +
      (config.consoleEnabled ? `or open ${url}/ and sign in with the key.\n\n` : '\n'),
  );
}

// SIGTERM/SIGINT: the workers finish or hand back their runs, then everything else closes, the
// database last (src/lib/shutdown.ts says how).
stopOnSignals(logger, config.shutdownGraceMs, () => app.stop());
