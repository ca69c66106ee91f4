// The one thing every service function that acts for a caller receives first: where to read and
// write (the database, or the transaction it runs in), who is calling, which request this is, a
// logger bound to that request, and the long-lived parts of the app. Built once per request (the
// GraphQL context) or once per run (the engine); bound to a transaction by `inTransaction`.
import type { Db, Prisma } from '../db.js';
import type { Config } from '../config.js';
import type { SecretBox } from '../lib/crypto.js';
import type { Events } from './event-topics.js';
import type { Logger } from '../lib/logger.js';
import type { Actor, Deps } from './deps.js';

export type Tx = Prisma.TransactionClient;

/**
 * `A` is the caller: an `Actor` for everything that needs one, `null` for the few operations that
 * run before anyone is known (login, a device pairing request) and for the operator's commands.
 */
export interface CallContext<A extends Actor | null = Actor> {
  /** The database, or the transaction this call runs in (then every read and write joins it). */
  readonly db: Db | Tx;
  readonly actor: A;
  /** The request being served (X-Request-ID, or generated); null for work nobody requested. */
  readonly requestId: string | null;
  /** The app's logger with the request id bound to every line. */
  readonly logger: Logger;
  readonly config: Config;
  readonly secrets: SecretBox;
  readonly events: Events;
  /** The long-lived parts, for what outlives the call (caches, the event bus, a later run). */
  readonly deps: Deps;
  /** Whether `db` is a transaction (then `inTransaction` joins it instead of opening another). */
  readonly inTransaction: boolean;
  /**
   * Runs `effect` once what the call wrote is committed: at once outside a transaction (each
   * statement commits by itself), after the commit of the transaction `inTransaction` opened inside
   * one, never when it rolls back. For in-process announcements of rows other code will read.
   */
  readonly afterCommit: (effect: () => void) => void;
}

/** Outside a transaction every statement has committed when it returns. */
const runNow = (effect: () => void) => effect();

export function callContext<A extends Actor | null>(deps: Deps, actor: A, requestId: string | null): CallContext<A> {
  return {
    db: deps.db,
    actor,
    requestId,
    logger: requestId ? deps.logger.child({ requestId }) : deps.logger,
    config: deps.config,
    secrets: deps.secrets,
    events: deps.events,
    deps,
    inTransaction: false,
    afterCommit: runNow,
  };
}

/**
 * A principal the work is done for who is not the one calling now (a run's starter, a queued inbox
 * entry's sender): their identity in the workspace, with the rights a run needs (read, write).
 */
export function principalActor(workspaceId: string, principalId: string): Actor {
  return {
    principalId,
    principalKind: principalId.startsWith('usr_') ? 'user' : 'api_key',
    workspaceId,
    organizationId: '',
    permissions: new Set(['read', 'write']),
    loginSessionId: null,
  };
}

/**
 * The same call acting for someone else, for the request that asked for it: the work a queued
 * inbox entry stands for is its sender's, in the request that delivered it. Keeps the database
 * (and transaction) and the long-lived parts; the logger carries the other request id.
 */
export function actingFor<A extends Actor | null>(
  call: CallContext<A>,
  who: { workspaceId: string; principalId: string },
  requestId: string | null,
): CallContext {
  const logger = requestId ? call.deps.logger.child({ requestId }) : call.deps.logger;
  return { ...call, actor: principalActor(who.workspaceId, who.principalId), requestId, logger };
}

/** The same call with another caller (once the request is authenticated). */
export function withActor<A extends Actor | null>(call: CallContext<Actor | null>, actor: A): CallContext<A> {
  return { ...call, actor };
}

export interface TransactionOptions {
  isolationLevel?: Prisma.TransactionIsolationLevel;
  timeout?: number;
  maxWait?: number;
}

/**
 * Runs `work` with the call bound to a transaction: a new one, or the call's own when it already
 * runs in one (the work then commits or rolls back with it).
 */
export async function inTransaction<A extends Actor | null, T>(
  call: CallContext<A>,
  work: (call: CallContext<A>) => Promise<T>,
  options?: TransactionOptions,
): Promise<T> {
  if (call.inTransaction) return work(call);
  // What the work asked to run after the commit (afterCommit): dropped with a rollback.
  const committed: (() => void)[] = [];
  const afterCommit = (effect: () => void) => void committed.push(effect);
  const result = await (call.db as Db).$transaction((tx) => work({ ...call, db: tx, inTransaction: true, afterCommit }), options);
  for (const effect of committed) {
    try {
      effect();
    } catch (error) {
      // The transaction committed: its caller gets its result whatever an announcement did.
      call.logger.error({ err: error }, 'an effect after a commit failed');
    }
  }
  return result;
}
