import { describe, expect, it } from 'vitest';
import { closableStream, untilWoken } from '../../src/lib/closable-stream.js';

describe('closableStream', () => {
  it('ends a body that is waiting for an event when the consumer returns, running its finally', async () => {
    const steps: string[] = [];
    const stream = closableStream<number>(async function* (closed) {
      try {
        yield 1;
        // Nothing ever wakes this wait but the consumer leaving.
        await untilWoken(closed, () => undefined);
        if (closed.aborted) return;
        yield 2;
      } finally {
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
      await untilWoken(closed, (resolve) => (wake = resolve));
      yield closed.aborted ? 'closed' : 'event';
    });
    const next = stream.next();
    await Promise.resolve();
    wake();
    expect(await next).toEqual({ value: 'event', done: false });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });
});
