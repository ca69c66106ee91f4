// Kind-prefixed, time-sortable identifiers: `<prefix>_<ULID>`. ULIDs sort by creation time and
// are monotonic within a millisecond in one process, so ids double as keyset positions.
import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory, TIME_MAX } from 'ulid';

export const ID_PREFIX = {
  organization: 'org',
  workspace: 'wsp',
  user: 'usr',
  membership: 'mbr',
  apiKey: 'key',
  loginSession: 'lgs',
  auditEvent: 'aud',
  idempotency: 'idm',
  provider: 'prv',
  agent: 'agt',
  agentRevision: 'rev',
  skill: 'skl',
  skillRevision: 'skr',
  connection: 'con',
  environmentTemplate: 'ent',
  environment: 'env',
  asset: 'ast',
  webhookSubscription: 'whs',
  webhookEvent: 'evt',
  webhookDelivery: 'whd',
  memory: 'mem',
  memoryRecord: 'rec',
  session: 'ses',
  thread: 'thr',
  inboxEntry: 'inb',
  run: 'run',
  runItem: 'itm',
  runAttempt: 'att',
  threadCompaction: 'cmp',
  findingAnalysis: 'fan',
  finding: 'fnd',
  pushSubscription: 'psb',
  device: 'dev',
  pairing: 'pai',
  budget: 'bud',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

// ulid's default source asks the kernel for one byte per character (16 calls per id); this one
// draws from a pooled buffer of cryptographic randomness refilled 4 KiB at a time.
const pool = new Uint8Array(4096);
let poolOffset = pool.length;
function pooledRandom(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]! / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${nextUlid()}`;
}

const ID_SHAPE = /^[a-z]{3}_[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `id` has the shape of an id of `kind` (used to answer 404 early on garbage ids). */
export function looksLikeId(kind: IdKind, id: string): boolean {
  return ID_SHAPE.test(id) && id.startsWith(`${ID_PREFIX[kind]}_`);
}

/**
 * The smallest (`floor`) or largest (`ceiling`) id of `kind` a process could have generated at epoch
 * millisecond `ms`: the ULID's time part followed by the lowest or highest random part. Lists filtered
 * by creation time bound their id keyset with it (see createdWhere in src/services/list-query.ts).
 */
export function idBoundAt(kind: IdKind, ms: number, side: 'floor' | 'ceiling'): string {
  const time = encodeTime(Math.min(Math.max(0, Math.floor(ms)), TIME_MAX), 10);
  return `${ID_PREFIX[kind]}_${time}${(side === 'floor' ? '0' : 'Z').repeat(16)}`;
}
