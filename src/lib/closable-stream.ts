// A subscription stream that stops at once when its consumer stops.
//
// An async generator honours `return()` only when it reaches a `yield`: one that is awaiting its next
// event when a client unsubscribes (a runStatus subscription to a run queued behind a busy thread, say)
// would keep its listeners until that event came, possibly never. `closableStream` hands the body a
// signal that aborts when the consumer calls `return()` or `throw()`, so the body can stop waiting,
// return, and run its `finally` (where it removes its listeners) right away.

/**
 * Runs `body` as an async generator whose `closed` signal aborts when the consumer stops (`return`
 * or `throw`); the body must end its wait when the signal aborts (see `onClose`).
 */
export function closableStream<T>(body: (closed: AbortSignal) => AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
  const controller = new AbortController();
  const inner = body(controller.signal);
  const stream: AsyncGenerator<T, void, undefined> = {
    next: () => inner.next(),
    return: (value) => {
      controller.abort();
      return inner.return(value);
    },
    throw: (error) => {
      controller.abort();
      return inner.throw(error);
    },
    [Symbol.asyncIterator]: () => stream,
  };
  return stream;
}

/**
 * Calls `wake` when `closed` aborts (at once if it already has); returns the function that stops
 * listening. A body listens once for its whole life rather than around every wait: adding and
 * removing an abort listener per event is measurable when one event wakes a thousand subscribers.
 */
export function onClose(closed: AbortSignal, wake: () => void): () => void {
  if (closed.aborted) {
    wake();
    return () => undefined;
  }
  closed.addEventListener('abort', wake, { once: true });
  return () => closed.removeEventListener('abort', wake);
}
