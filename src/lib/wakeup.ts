// How a follower (a subscription's stream) sleeps until something happens: listeners and the
// client's leaving call `wake`, the stream awaits `wait()`. A wake with nobody waiting is not kept,
// so a follower first checks what its listeners recorded and only then waits; several wakes before
// it runs again end one wait.
export class Wakeup {
  #resolve: (() => void) | null = null;

  /** Resolves at the next `wake`. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => (this.#resolve = resolve));
  }

  /** Ends the wait under way, if there is one. Bound, so it can be handed to listeners as it is. */
  readonly wake = (): void => {
    const resolve = this.#resolve;
    this.#resolve = null;
    resolve?.();
  };
}
