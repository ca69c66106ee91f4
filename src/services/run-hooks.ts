// Run-outcome hooks: what features do when a run's attempt is sealed (completed, failed, cancelled
// or waiting). The worker seals runs and calls the hooks without knowing the features behind them;
// each feature exports its hook from its own module and the composition root (src/deps.ts)
// registers them. A hook's failure is logged and never stops the hooks after it, nor the worker.
import type { Run } from '../generated/prisma/client.js';
import type { CallContext } from './call-context.js';
import type { Logger } from '../lib/logger.js';

/** A run as its seal left it, with what the seal found beside it. */
export interface SealedRun {
  /** The call context the run acts with (its principal in its workspace). */
  call: CallContext;
  run: Run;
  /** Whether the run's thread has inbox entries waiting for a run of their own. */
  threadHasPending: boolean;
}

export interface SealHook {
  /** Names the hook in logs; registering a name again replaces that hook in its place. */
  name: string;
  /** Awaited before the next hook runs: a hook that must not hold the others up returns at once. */
  onSeal(sealed: SealedRun): void | Promise<void>;
}

const sealHooks: SealHook[] = [];

/**
 * Adds a hook after those registered before it: hooks run in registration order. Registering a
 * name again (a second app in one process, as in tests) replaces the hook and keeps its place.
 */
export function registerSealHook(hook: SealHook): void {
  const at = sealHooks.findIndex((registered) => registered.name === hook.name);
  if (at >= 0) sealHooks[at] = hook;
  else sealHooks.push(hook);
}

/** The registered hooks, in the order they run. */
export function registeredSealHooks(): readonly SealHook[] {
  return [...sealHooks];
}

/** Forgets every hook (tests only). */
export function clearSealHooks(): void {
  sealHooks.length = 0;
}

/** Runs every hook for a sealed run, one after the other; each failure is logged, never thrown. */
export async function runSealHooks(sealed: SealedRun, logger: Logger, hooks: readonly SealHook[] = sealHooks): Promise<void> {
  for (const hook of [...hooks]) {
    try {
      await hook.onSeal(sealed);
    } catch (error) {
      logger.error({ err: error, runId: sealed.run.id, hook: hook.name }, 'a seal hook failed');
    }
  }
}
