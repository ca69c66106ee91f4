// The kill rules shared by the remote environment drivers, on vitest's fake clock (no real waiting).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchForKill } from '../../src/providers/environments/kill-watch.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('watchForKill', () => {
  it('kills at the deadline, then gives up waiting after the grace period', () => {
    const kill = vi.fn();
    const giveUp = vi.fn();
    const watch = watchForKill({ timeoutMs: 1000, graceMs: 500, kill, giveUp });
    vi.advanceTimersByTime(999);
    expect([kill.mock.calls.length, watch.timedOut]).toEqual([0, false]);
    vi.advanceTimersByTime(1);
    expect([kill.mock.calls.length, watch.timedOut, watch.aborted, giveUp.mock.calls.length]).toEqual([1, true, false, 0]);
    vi.advanceTimersByTime(500);
    expect(giveUp).toHaveBeenCalledTimes(1);
    watch.dispose();
  });

  it('kills when the caller aborts (also when it had already aborted), with one grace timer', () => {
    const controller = new AbortController();
    const kill = vi.fn();
    const giveUp = vi.fn();
    const watch = watchForKill({ timeoutMs: 1000, graceMs: 500, signal: controller.signal, kill, giveUp });
    controller.abort();
    expect([kill.mock.calls.length, watch.aborted, watch.timedOut]).toEqual([1, true, false]);
    vi.advanceTimersByTime(1000); // the deadline still passes: a second kill, the same grace timer
    expect([kill.mock.calls.length, giveUp.mock.calls.length]).toEqual([2, 1]);

    const early = watchForKill({ timeoutMs: 1000, graceMs: 500, signal: AbortSignal.abort(), kill: vi.fn(), giveUp: vi.fn() });
    expect(early.aborted).toBe(true);
    early.dispose();
  });

  it('does nothing once disposed', () => {
    const controller = new AbortController();
    const kill = vi.fn();
    const watch = watchForKill({ timeoutMs: 1000, graceMs: 500, signal: controller.signal, kill, giveUp: vi.fn() });
    watch.dispose();
    controller.abort();
    vi.advanceTimersByTime(5000);
    expect([kill.mock.calls.length, watch.timedOut, watch.aborted]).toEqual([0, false, false]);
  });
});
