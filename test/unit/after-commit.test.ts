// `call.afterCommit`: at once outside a transaction, after the commit inside one, never on a rollback.
import { describe, expect, it, vi } from 'vitest';
import { callContext, inTransaction } from '../../src/services/call-context.js';
import type { Deps } from '../../src/services/deps.js';

/** A database whose transactions record when they commit, or throw what their work threw (a rollback). */
function fakeDeps(log: string[]) {
  const db = {
    async $transaction(work: (tx: unknown) => Promise<unknown>) {
      const result = await work({});
      log.push('commit');
      return result;
    },
  };
  return { db, logger: { error: vi.fn(), child: vi.fn() }, config: {}, secrets: {}, events: {} } as unknown as Deps;
}

describe('afterCommit', () => {
  it('runs the effect at once outside a transaction', () => {
    const log: string[] = [];
    callContext(fakeDeps(log), null, null).afterCommit(() => log.push('effect'));
    expect(log).toEqual(['effect']);
  });

  it('runs effects after the commit, in order, also from a joined inner transaction', async () => {
    const log: string[] = [];
    const call = callContext(fakeDeps(log), null, null);
    const result = await inTransaction(call, async (bound) => {
      bound.afterCommit(() => log.push('first'));
      await inTransaction(bound, async (joined) => joined.afterCommit(() => log.push('second')));
      log.push('work done');
      return 42;
    });
    expect(result).toBe(42);
    expect(log).toEqual(['work done', 'commit', 'first', 'second']);
  });

  it('drops the effects of a transaction that rolls back', async () => {
    const log: string[] = [];
    const call = callContext(fakeDeps(log), null, null);
    await expect(
      inTransaction(call, async (bound) => {
        bound.afterCommit(() => log.push('effect'));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(log).toEqual([]);
  });

  it('logs an effect that throws and still answers with the committed result', async () => {
    const log: string[] = [];
    const deps = fakeDeps(log);
    const call = callContext(deps, null, null);
    const result = await inTransaction(call, async (bound) => {
      bound.afterCommit(() => {
        throw new Error('boom');
      });
      bound.afterCommit(() => log.push('next'));
      return 'ok';
    });
    expect(result).toBe('ok');
    expect(log).toEqual(['commit', 'next']);
    expect(deps.logger.error).toHaveBeenCalledOnce();
  });
});
