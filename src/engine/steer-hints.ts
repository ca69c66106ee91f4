// Which threads may hold a pending `steer` entry for the attempts a worker pool runs. An attempt
// asks the database for steer entries at a model request only when its thread was hinted since it
// last asked: nearly every model request of every run finds none, and at 1,000 live runs that one
// read was a fifth of all the statements the database served.
//
// Hints come from the claim (it reads whether the thread holds a pending steer entry) and from the
// steer channel's NOTIFY, which a steer delivery (or an edit that makes an entry steer) sends at its
// commit. A hint is consumed before the read, so an entry committed while the read is under way
// hints again and joins at the next model request. After a lost listener connection (notifications
// may have been missed) every running attempt's thread is hinted.

/** How many hinted threads are remembered (threads of no attempt running here yet: a claim racing its NOTIFY). */
const REMEMBERED_THREADS = 10_000;

export class SteerHints {
  /** Hinted threads, oldest first (a Set keeps insertion order). */
  private readonly hinted = new Set<string>();

  /** The thread may hold a pending steer entry. */
  hint(threadId: string): void {
    this.hinted.delete(threadId);
    this.hinted.add(threadId);
    if (this.hinted.size > REMEMBERED_THREADS) this.hinted.delete(this.hinted.values().next().value!);
  }

  /** Whether the thread was hinted since it was last taken (then its attempt reads its steer entries). */
  take(threadId: string): boolean {
    return this.hinted.delete(threadId);
  }
}
