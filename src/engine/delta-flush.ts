// One setImmediate publishes the pending text deltas of every run in the process, instead of one per
// run. Each run still publishes what its model's reads appended during the event-loop turn (see
// items.ts), at the same moment as before — the check phase after the reads — but all runs in one
// callback: the frames their subscribers get are then sent within the same tick, where the
// websocket server corks each socket (src/graphql/ws.ts), so a connection that follows several runs
// receives the deltas of all of them in one write instead of one system call per run. With
// hundreds of live runs over a few connections, the sockets' writes were most of the service's
// per-token kernel time.

/** A run's item stream with deltas waiting to be published. */
export interface DeltaSource {
  flushDeltas(): void;
}

const waiting = new Set<DeltaSource>();
let timer: NodeJS.Immediate | null = null;

/** Publishes the source's deltas in this turn's shared callback (once, however often it is asked). */
export function scheduleDeltaFlush(source: DeltaSource): void {
  waiting.add(source);
  timer ??= setImmediate(flushAll);
}

/** The source published its deltas itself (before a snapshot, or a write): nothing left to do for it. */
export function cancelDeltaFlush(source: DeltaSource): void {
  waiting.delete(source);
}

function flushAll() {
  timer = null;
  const sources = [...waiting];
  waiting.clear();
  // A run that fails to publish must not keep the other runs' deltas back; its error still escapes
  // as it did from its own callback, after the others are out.
  let failure: { error: unknown } | null = null;
  for (const source of sources) {
    try {
      source.flushDeltas();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}
