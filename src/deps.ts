// The long-lived parts every service receives, assembled one way for the service (app.ts) and for a
// worker process of its own (worker.ts): its database, configuration, logger, secrets and event bus.
import type { Config } from './config.js';
import type { Database } from './db.js';
import { createEvents } from './lib/events.js';
import type { Logger } from './lib/logger.js';
import { loadSecretBox } from './secrets.js';
import type { Deps } from './services/deps.js';
import type { EventTopics } from './services/event-topics.js';
import { RunTracer } from './traces/run-tracer.js';

export function assembleDeps(config: Config, logger: Logger, database: Database): Deps {
  return {
    db: database.prisma,
    config,
    logger,
    secrets: loadSecretBox(config, logger),
    events: createEvents<EventTopics>({ redisUrl: config.redisUrl, logger }),
    tracer: new RunTracer(config, database.prisma, logger),
  };
}
