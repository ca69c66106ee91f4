// The deadline and the caller's abort of one command in a remote instance (a container, a sandbox):
// either one asks the driver to kill the command, and after a grace period gives up waiting for its
// output, so the caller's wait always ends. The driver supplies both actions; this keeps the rules
// (which came first, one grace timer, clean-up) in one place.

export interface KillWatch {
  /** Whether the deadline passed first. */
  readonly timedOut: boolean;
  /** Whether the caller's signal aborted first. */
  readonly aborted: boolean;
  /** Stops watching (call once the command has ended, whatever happened). */
  dispose(): void;
}

export function watchForKill(options: {
  timeoutMs: number;
  signal?: AbortSignal;
  graceMs: number;
  /** Kills the command and what it started (called again is harmless). */
  kill: () => void;
  /** Stops waiting for the command's output: the grace period after a kill ran out. */
  giveUp: () => void;
}): KillWatch {
  const state = { timedOut: false, aborted: false };
  let graceTimer: NodeJS.Timeout | undefined;
  const kill = () => {
    options.kill();
    graceTimer ??= setTimeout(options.giveUp, options.graceMs);
  };
  const timer = setTimeout(() => {
    state.timedOut = true;
    kill();
  }, options.timeoutMs);
  const onAbort = () => {
    state.aborted = true;
    kill();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    get timedOut() {
      return state.timedOut;
    },
    get aborted() {
      return state.aborted;
    },
    dispose() {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}
