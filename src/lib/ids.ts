// Kind-prefixed, time-sortable identifiers: `<prefix>_<ULID>`. ULIDs sort by creation time and
// are monotonic within a millisecond in one process, so ids double as keyset positions.
import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

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
