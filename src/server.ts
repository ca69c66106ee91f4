// Reads the configuration and starts the service. Nothing else lives here.
import { loadConfig } from './config.js';
import { buildApp } from './app.js';
import { createLogger } from './lib/logger.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const app = await buildApp(config, { logger });
const url = await app.start();
logger.info({ url, database: app.database.mode, dataDir: config.dataDir }, 'workspace agent service listening');
if (app.bootstrap) {
  // Printed once, on the first start of an empty database.
  process.stdout.write(
    `\nBootstrap API key for workspace ${app.bootstrap.workspaceId} (all permissions):\n\n  ${app.bootstrap.apiKey}\n\n` +
      `Also written to ${app.bootstrap.keyFile} (mode 0600). Try:\n  curl -H "Authorization: Bearer ${app.bootstrap.apiKey}" ${url}/api/v1/workspace\n\n`,
  );
}

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    app.stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
