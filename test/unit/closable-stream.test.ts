import { describe, expect, it } from 'vitest';
import { closableStream, onClose } from '../../src/lib/closable-stream.js';

describe('closableStream', () => {
  it('ends a body that is waiting for an event when the consumer returns, running its finally', async () => {
    const steps: string[] = [];
    const stream = closableStream<number>(async function* (closed) {
      let wake!: () => void;
      const stop = onClose(closed, () => wake());
      try {
        yield 1;
        // Nothing ever wakes this wait but the consumer leaving.
        await new Promise<void>((resolve) => (wake = resolve));
        if (closed.aborted) return;
        yield 2;
      } finally {
        stop();
        steps.push('finally');
      }
    });
    expect(await stream.next()).toEqual({ value: 1, done: false });
    const pending = stream.next();
    expect(await stream.return(undefined)).toEqual({ value: undefined, done: true });
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(steps).toEqual(['finally']);
  });

  it('wakes on the event before the consumer leaves', async () => {
    let wake!: () => void;
    const stream = closableStream<string>(async function* (closed) {
      const stop = onClose(closed, () => wake());
      await new Promise<void>((resolve) => (wake = resolve));
      stop();
      yield closed.aborted ? 'closed' : 'event';
    });
    const next = stream.next();
    await Promise.resolve();
    wake();
    expect(await next).toEqual({ value: 'event', done: false });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });
});

describe('onClose', () => {
  it('calls back once when the signal aborts, at once when it already has, never after stopping', () => {
    const calls: string[] = [];
    const first = new AbortController();
    onClose(first.signal, () => calls.push('first'));
    first.abort();
    first.abort();
    const done = new AbortController();
    done.abort();
    onClose(done.signal, () => calls.push('already'));
    const stopped = new AbortController();
    onClose(stopped.signal, () => calls.push('stopped'))();
    stopped.abort();
    expect(calls).toEqual(['first', 'already']);
  });
});
