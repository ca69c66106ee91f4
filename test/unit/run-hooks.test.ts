// The seal hooks run in registration order, and a failing hook is logged without stopping the rest.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Run } from '../../src/generated/prisma/client.js';
import type { CallContext } from '../../src/services/call-context.js';
import type { Logger } from '../../src/lib/logger.js';
import { clearSealHooks, registeredSealHooks, registerSealHook, runSealHooks, type SealedRun } from '../../src/services/run-hooks.js';

const sealed = { call: {} as CallContext, run: { id: 'run_1' } as Run, threadHasPending: false } satisfies SealedRun;
const logger = () => ({ error: vi.fn() }) as unknown as Logger & { error: ReturnType<typeof vi.fn> };

describe('seal hooks', () => {
  afterEach(() => clearSealHooks());

  it('run one after the other, in registration order, each awaited', async () => {
    const calls: string[] = [];
    registerSealHook({
      name: 'first',
      async onSeal() {
        await new Promise((resolve) => setTimeout(resolve, 10));
        calls.push('first');
      },
    });
    registerSealHook({ name: 'second', onSeal: () => void calls.push('second') });
    registerSealHook({ name: 'third', onSeal: async () => void calls.push('third') });
    await runSealHooks(sealed, logger());
    expect(calls).toEqual(['first', 'second', 'third']);
  });

  it('keep a hook registered again in its place, replaced', async () => {
    const calls: string[] = [];
    registerSealHook({ name: 'a', onSeal: () => void calls.push('a1') });
    registerSealHook({ name: 'b', onSeal: () => void calls.push('b') });
    registerSealHook({ name: 'a', onSeal: () => void calls.push('a2') });
    expect(registeredSealHooks().map((hook) => hook.name)).toEqual(['a', 'b']);
    await runSealHooks(sealed, logger());
    expect(calls).toEqual(['a2', 'b']);
  });

  it('log a failing hook (thrown or rejected) and go on with the others, never throwing', async () => {
    const calls: string[] = [];
    const log = logger();
    registerSealHook({
      name: 'throws',
      onSeal() {
        throw new Error('boom');
      },
    });
    registerSealHook({ name: 'after throw', onSeal: () => void calls.push('after throw') });
    registerSealHook({ name: 'rejects', onSeal: () => Promise.reject(new Error('no')) });
    registerSealHook({ name: 'last', onSeal: () => void calls.push('last') });
    await expect(runSealHooks(sealed, log)).resolves.toBeUndefined();
    expect(calls).toEqual(['after throw', 'last']);
    expect(log.error).toHaveBeenCalledTimes(2);
    expect(log.error.mock.calls.map(([fields]) => (fields as { hook: string; runId: string }).hook)).toEqual(['throws', 'rejects']);
    expect(log.error.mock.calls[0]![0]).toMatchObject({ runId: 'run_1' });
  });
});
