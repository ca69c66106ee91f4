// The long-lived parts every service receives, assembled one way for the service (app.ts) and for a
// worker process of its own (worker.ts): its database, configuration, logger, secrets and event bus,
// and the hooks features register on the run engine.
import type { Config } from './config.js';
import type { Database } from './db.js';
import { createEvents, listen } from './lib/events.js';
import type { Logger } from './lib/logger.js';
import { loadSecretBox } from './secrets.js';
import type { Deps } from './services/deps.js';
import { TRACE_REPLAY_CHANNEL, type EventTopics } from './services/event-topics.js';
import { registerSealHook } from './services/run-hooks.js';
import { analysisOnSeal } from './features/findings/analysis-agent.js';
import { inboxPromotionOnSeal } from './features/runs/inbox-promotion.js';
import { pushOnSeal } from './features/support-api/push.js';
import { RunTracer } from './traces/run-tracer.js';

/**
 * What features do when a run's attempt is sealed, in the order they do it: push first (it returns
 * at once, delivering in the background), then the finding analysis takes its run's outcome, and
 * last the thread's next inbox entry becomes a run — after everything about the sealed run is
 * recorded. Registering again replaces each hook in its place, so calling this twice is harmless.
 */
export function registerRunHooks(): void {
  registerSealHook(pushOnSeal);
  registerSealHook(analysisOnSeal);
  registerSealHook(inboxPromotionOnSeal);
}

export function assembleDeps(config: Config, logger: Logger, database: Database): Deps {
  registerRunHooks();
  const events = createEvents<EventTopics>({ redisUrl: config.redisUrl, logger });
  // Spans as they start and end, by trace id, for followers of a running run's trace (runTraceSpans);
  // a follower that arrives mid-attempt asks every instance for the spans its attempts hold so far.
  const tracer = new RunTracer(config, database.prisma, logger, (live) => events.publish('traceSpan', live.span.trace_id, live));
  listen(events, 'traceReplay', TRACE_REPLAY_CHANNEL, (asked) => tracer.replayLive((asked as { traceId: string }).traceId));
  return {
    db: database.prisma,
    config,
    logger,
    secrets: loadSecretBox(config, logger),
    events,
    tracer,
  };
}
