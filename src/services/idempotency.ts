// Idempotency-Key: the first request's result is stored with a digest of the request, in the same
// transaction as its effect. A repeat with the same digest replays the stored result; a repeat
// with another request is refused (409 idempotency_key_reused). Concurrent repeats are
// serialised by the unique index: the second INSERT waits for the first transaction, then sees
// its committed record, so exactly one effect happens (or, if the first rolled back, the second
// proceeds as the first).
import type { Prisma } from '../db.js';
import { Prisma as PrismaSql } from '../generated/prisma/client.js';
import { canonicallyEqual, digestOf } from '../lib/canonical-json.js';
import { AppError, invalidArgument } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { inTransaction, type CallContext } from './call-context.js';

const KEY_SHAPE = /^[!-~]{1,512}$/;

export function validateIdempotencyKey(key: string | null | undefined, required: boolean): string | null {
  if (key === undefined || key === null) {
    if (required)
      throw invalidArgument(
        'this operation needs an Idempotency-Key header (1 to 512 printable ASCII characters, no spaces)',
        'Idempotency-Key',
      );
    return null;
  }
  if (!KEY_SHAPE.test(key)) {
    throw invalidArgument('Idempotency-Key must be 1 to 512 printable ASCII characters without spaces', 'Idempotency-Key');
  }
  return key;
}

export interface IdempotentRequest<T> {
  /** The operation and its target, e.g. `runs.resume:run_…`; a key is scoped to it. */
  scope: string;
  key: string;
  /** The request as the client sent it (body, relevant headers); only its digest is stored. */
  request: unknown;
  /**
   * The change, in the same transaction as the record of its result. An effect whose last write is
   * one statement may carry the record there (`recordResult(value)`: an UPDATE to run as a CTE body
   * of that statement); the record then takes no round trip of its own. It must return that value.
   */
  effect: (call: CallContext, recordResult: (value: T) => Prisma.Sql) => Promise<T>;
}

export interface IdempotentResult<T> {
  value: T;
  replayed: boolean;
}

export async function withIdempotency<T extends Prisma.InputJsonValue>(
  caller: CallContext,
  call: IdempotentRequest<T>,
): Promise<IdempotentResult<T>> {
  const workspaceId = caller.actor.workspaceId;
  const digest = digestOf(call.request);
  const expiresAt = new Date(Date.now() + caller.config.idempotencyTtlSeconds * 1000);
  return inTransaction(
    caller,
    async (bound) => {
      const tx = bound.db;
      // One statement claims the key: a new record, or — when the key's record is past its
      // lifetime, so no longer binds the key — that record replaced by the new one. A record that
      // still binds the key is left alone and nothing is returned.
      const id = newId('idempotency');
      const inserted = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO idempotency_records (id, workspace_id, scope, key, request_digest, state, expires_at)
        VALUES (${id}, ${workspaceId}, ${call.scope}, ${call.key}, ${digest}, 'pending', ${expiresAt})
        ON CONFLICT (workspace_id, scope, key) DO UPDATE SET id = EXCLUDED.id, request_digest = EXCLUDED.request_digest,
          state = 'pending', response = NULL, response_status = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
        WHERE idempotency_records.expires_at <= now()
        RETURNING id`;
      if (inserted.length === 0) {
        const existing = await tx.idempotencyRecord.findUniqueOrThrow({
          where: { workspaceId_scope_key: { workspaceId: workspaceId, scope: call.scope, key: call.key } },
        });
        if (existing.requestDigest !== digest) {
          throw new AppError('idempotency_key_reused', 'this Idempotency-Key was already used with a different request', {
            field: 'Idempotency-Key',
          });
        }
        return { value: existing.response as T, replayed: true };
      }
      let recorded: { value: T } | null = null;
      const recordResult = (value: T) => {
        recorded = { value };
        return completion(id, value);
      };
      const value = await call.effect(bound, recordResult);
      if (recorded === null)
        await tx.idempotencyRecord.update({ where: { id }, data: { state: 'completed', response: value, responseStatus: 200 } });
      else if (!canonicallyEqual((recorded as { value: T }).value, value))
        throw new Error(`the effect of ${call.scope} returned another result than the one it recorded`);
      return { value, replayed: false };
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
}

/** The record's completion with the effect's result, as a statement's CTE body. */
function completion(id: string, value: Prisma.InputJsonValue): Prisma.Sql {
  return PrismaSql.sql`UPDATE idempotency_records SET state = 'completed', response = ${JSON.stringify(value)}::jsonb, response_status = 200
    WHERE id = ${id}`;
}
