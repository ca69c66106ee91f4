// `npm run worker`: run workers as their own process, against the same database as the service.
import { loadConfig } from './config.js';
import { openDatabase } from './db.js';
import { createLogger } from './lib/logger.js';
import { closeEvents, createEvents } from './lib/events.js';
import type { EventTopics } from './services/event-topics.js';
import { loadSecretBox } from './secrets.js';
import { WorkerPool } from './engine/worker.js';
import type { Deps } from './services/deps.js';
import { PgListener } from './lib/pg-listener.js';
import { stopOnSignals } from './lib/shutdown.js';
import { bumpConfigGeneration, CONFIG_CHANNEL } from './services/config-cache.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const database = await openDatabase(config, logger, { adoptRunningEmbedded: false });
const deps: Deps = {
  db: database.prisma,
  config,
  logger,
  secrets: loadSecretBox(config, logger),
  events: createEvents<EventTopics>({ redisUrl: config.redisUrl }),
};
// The process's one LISTEN connection: the workers wake on it, and the configuration they remember
// (models, providers) is forgotten when any process changes it.
const listener = new PgListener(database.url, logger).on(CONFIG_CHANNEL, bumpConfigGeneration, bumpConfigGeneration);
await listener.start();
const pool = new WorkerPool(deps, {
  concurrency: Math.max(1, config.runWorkers),
  listener,
  leaseMs: config.runLeaseMs,
  graceMs: config.shutdownGraceMs,
});
await pool.start();
logger.info({ worker: pool.id, concurrency: config.runWorkers }, 'run worker started');

// SIGTERM/SIGINT: the workers finish or hand back their runs, then the database closes.
stopOnSignals(logger, config.shutdownGraceMs, async () => {
  await pool.stop();
  await listener.stop();
  await closeEvents(deps.events);
  await database.close();
});
