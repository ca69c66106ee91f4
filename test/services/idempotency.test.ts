// The idempotency mechanism against the real database: replay, conflicting repeat, concurrent
// repeats (exactly one effect), failure rollback, key syntax. Endpoints that require the header
// test it again through their own surfaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { validateIdempotencyKey, withIdempotency } from '../../src/services/idempotency.js';
import { recordAudit } from '../../src/features/audit/audit.js';
import { isAppError } from '../../src/lib/errors.js';
import { callContext } from '../../src/services/call-context.js';
import { recordStatements } from '../helpers/query-plans.js';

/** A caller of the test workspace (the workspace a key is scoped to comes from the caller). */
const caller = () =>
  callContext(
    t.app.deps,
    {
      principalId: 'test',
      principalKind: 'api_key',
      workspaceId: t.workspaceId,
      organizationId: '',
      permissions: new Set(),
      loginSessionId: null,
    },
    null,
  );

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

/** An effect with a visible trace: one audit row per execution. */
function effectCall(key: string, request: unknown, scope = 'test.effect') {
  return withIdempotency(caller(), {
    scope,
    key,
    request,
    effect: async (call) => {
      await recordAudit(call, { action: 'effect', resourceKind: 'test', resourceId: key });
      await new Promise((resolve) => setTimeout(resolve, 50)); // widen the race window
      return { effect_for: key, at: Date.now() };
    },
  });
}

const effects = (key: string) =>
  t.app.deps.db.auditEvent.count({ where: { workspaceId: t.workspaceId, resourceId: key, action: 'effect' } });

describe('withIdempotency', () => {
  it('replays the first result for a repeat of the same request', async () => {
    const first = await effectCall('k-replay', { a: 1, b: [1, 2] });
    const again = await effectCall('k-replay', { b: [1, 2], a: 1 }); // same request, other key order
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.value).toEqual(first.value);
    expect(await effects('k-replay')).toBe(1);
  });

  it('refuses the same key with a different request (409 idempotency_key_reused)', async () => {
    await effectCall('k-conflict', { a: 1 });
    const error = await effectCall('k-conflict', { a: 2 }).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe('idempotency_key_reused');
    expect(await effects('k-conflict')).toBe(1);
  });

  it('runs exactly one effect for concurrent repeats, and every caller gets its result', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => effectCall('k-race', { same: true })));
    expect(await effects('k-race')).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    for (const result of results) expect(result.value).toEqual(results[0]!.value);
  });

  it('scopes keys to their operation and workspace', async () => {
    await effectCall('k-scope', { x: 1 }, 'op.one');
    const other = await effectCall('k-scope', { x: 2 }, 'op.two');
    expect(other.replayed).toBe(false);
  });

  it('records nothing when the effect fails, so a retry runs it', async () => {
    const failing = withIdempotency(caller(), {
      scope: 'test.fail',
      key: 'k-fail',
      request: {},
      effect: async () => {
        throw new Error('boom');
      },
    });
    await expect(failing).rejects.toThrow('boom');
    const retry = await effectCall('k-fail', {}, 'test.fail');
    expect(retry.replayed).toBe(false);
  });

  it('an effect may record its result in a statement of its own: no separate write, the same replay', async () => {
    const { statements, result: first } = await recordStatements(() =>
      withIdempotency<{ audited: string }>(caller(), {
        scope: 'test.recorded',
        key: 'k-recorded',
        request: { n: 1 },
        effect: async (call, recordResult) => {
          const value = { audited: 'k-recorded' };
          await call.db.$executeRaw`WITH recorded AS (${recordResult(value)}) SELECT 1`;
          return value;
        },
      }),
    );
    expect(
      statements
        .filter((statement) => /idempotency_records/.test(statement.text))
        .map((statement) => statement.text.trim().split(/\s+/)[0]),
    ).toEqual([
      'INSERT', // the key's claim
      'WITH', // the effect's statement, carrying the result
    ]);
    const again = await withIdempotency(caller(), {
      scope: 'test.recorded',
      key: 'k-recorded',
      request: { n: 1 },
      effect: async () => ({ audited: 'again' }),
    });
    expect(again).toEqual({ value: first.value, replayed: true });
  });

  it('an effect that returns another result than it recorded fails, and records nothing', async () => {
    const attempt = withIdempotency<{ n: number }>(caller(), {
      scope: 'test.recorded',
      key: 'k-mismatch',
      request: {},
      effect: async (call, recordResult) => {
        await call.db.$executeRaw`WITH recorded AS (${recordResult({ n: 1 })}) SELECT 1`;
        return { n: 2 };
      },
    });
    await expect(attempt).rejects.toThrow(/another result than the one it recorded/);
    expect(await t.app.deps.db.idempotencyRecord.count({ where: { scope: 'test.recorded', key: 'k-mismatch' } })).toBe(0);
  });
});

describe('Idempotency-Key syntax', () => {
  it('accepts 1 to 512 printable ASCII characters without spaces', () => {
    expect(validateIdempotencyKey('x', true)).toBe('x');
    expect(validateIdempotencyKey('!~', true)).toBe('!~');
    expect(validateIdempotencyKey('a'.repeat(512), true)).toHaveLength(512);
    expect(validateIdempotencyKey(undefined, false)).toBeNull();
  });

  it('refuses missing (when required), empty, too long, spaces, control and non-ASCII characters', () => {
    for (const key of [undefined, '', 'a'.repeat(513), 'a b', 'a\tb', 'caf\u00e9']) {
      let code: string | undefined;
      try {
        validateIdempotencyKey(key, true);
      } catch (error) {
        code = isAppError(error) ? error.code : 'other';
      }
      expect(code, JSON.stringify(key)).toBe('invalid_argument');
    }
  });
});
