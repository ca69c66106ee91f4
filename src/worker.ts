// `npm run worker`: run workers as their own process, against the same database as the service.
// First: traces of the compiled build name the .ts files (lib/source-mapped-stacks.ts).
import './lib/source-mapped-stacks.js';
import { loadConfig } from './config.js';
import { assembleDeps } from './deps.js';
import { openDatabase } from './db.js';
import { createLogger } from './lib/logger.js';
import { closeEvents } from './lib/events.js';
import { WorkerPool } from './engine/worker.js';
import { Housekeeping } from './engine/housekeeping.js';
import { WebhookDeliverer } from './engine/webhook-deliverer.js';
import { PgListener } from './lib/pg-listener.js';
import { stopOnSignals } from './lib/shutdown.js';
import { bumpConfigGeneration, CONFIG_CHANNEL } from './services/config-cache.js';
import { closeMcpPool } from './engine/tools/mcp-pool.js';
import { registerDeviceBridge } from './providers/device-bridge.js';
import { createDeviceBridge } from './features/support-api/device-bridge.js';
import { Metrics } from './lib/metrics.js';
import { MetricsServer } from './lib/metrics-server.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const database = await openDatabase(config, logger, { adoptRunningEmbedded: false });
const deps = assembleDeps(config, logger, database);
// Paired devices are reached through the instance holding their websocket (relayed with REDIS_URL).
registerDeviceBridge(deps, createDeviceBridge(deps));
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
// A worker process keeps house too: the retention sweeps, about hourly each.
const housekeeping = new Housekeeping(deps, { tickMs: config.runLeaseMs / 2 });
housekeeping.start();
// Worker processes deliver webhooks too (WEBHOOK_DELIVERY_CONCURRENCY=0 turns that off).
const webhooks =
  config.webhookDeliveryConcurrency > 0 ? new WebhookDeliverer(deps, { listener, concurrency: config.webhookDeliveryConcurrency }) : null;
await webhooks?.start();
// A worker process serves no HTTP: its metrics (the runs and deliveries it carries out, its pool and
// slots) are served only with METRICS_PORT, on that port alone, as the service's are.
const metrics = config.metricsPort === null ? null : new Metrics({ poolWaits: database.poolWaits, workers: () => pool.slots() });
const metricsServer = metrics ? new MetricsServer(metrics, { port: config.metricsPort!, host: config.metricsHost }) : null;
if (metricsServer) logger.info({ url: await metricsServer.start() }, 'worker metrics served');
logger.info({ worker: pool.id, concurrency: config.runWorkers }, 'run worker started');

// SIGTERM/SIGINT: the workers finish or hand back their runs, then the database closes.
stopOnSignals(logger, config.shutdownGraceMs, async () => {
  await metricsServer?.stop();
  metrics?.stop();
  housekeeping.stop();
  await pool.stop();
  await webhooks?.stop();
  await closeMcpPool(deps);
  await deps.tracer.shutdown().catch((error) => logger.warn({ err: error }, 'flushing traces failed'));
  await listener.stop();
  await closeEvents(deps.events);
  await database.close();
});
