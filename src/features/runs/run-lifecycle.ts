// The run state machine and the one owner of the `runs` table: every write to a run — its
// creation (from a plan, see run-plan.ts), a status change (`transition`), a worker's claim,
// heartbeat, seal, requeue and hand-back, a cancel request, a resume mark, labels and memory
// mounts — is a function here, so the rules of a run's life are read and changed in one place.
//
// MOVES says which status may follow which, and every status change is a compare-and-set, so that
// two actors (a worker and a cancel request, two workers after a takeover) can never both move the
// same run. `transition()` is that compare-and-set on (status, version). The worker's hot
// statements carry it inside larger statements: the claim (accepted → running, `FOR UPDATE SKIP
// LOCKED` on status 'accepted'), the seal (running → its outcome, checked with canMove, on status
// 'running' and the claiming attempt's id) and the hand-back of a stopping worker (on the same two
// conditions).
//
// The engine (workers, executor) sits above and calls these functions; nothing here knows it.
import { queryDirect, type Db, type Prisma } from '../../db.js';
import { Prisma as PrismaSql, type InboxEntry, type Run, type Thread } from '../../generated/prisma/client.js';
import { columnName, prefixedColumns, returningColumns, RUN_COLUMNS, takePrefixed } from '../../storage/columns.js';
import { AppError } from '../../lib/errors.js';
import { AUDIT_COLUMNS, auditValues } from '../audit/audit.js';
import type { CallContext } from '../../services/call-context.js';
import type { Actor } from '../../services/deps.js';
import { changeVersioned } from '../../services/versioned.js';
import type { NewRunPlan, PlannedRow } from './run-plan.js';
import { itemsCtes, type ItemsWrite } from './attempt-items.js';
import { ledgerCte, type UsageLedgerRow } from './usage-ledger.js';
import { agentRollupUpsert, isRolledUp, modelRollupUpsert, ROLLED_UP_COLUMNS, rollupMoveCtes } from './run-rollups.js';
import { auditWebhookEvent, enqueueExpression, enqueueWebhookEvent, runEventData } from '../webhooks/webhook-events.js';

type Tx = Prisma.TransactionClient;

/** The NOTIFY channel that announces an accepted run (its id is the payload) to every worker. */
export const RUN_ACCEPTED_CHANNEL = 'wsa_run_accepted';
/** The NOTIFY channel that asks the worker running a run (its id is the payload) to abort it. */
export const RUN_CANCEL_CHANNEL = 'wsa_run_cancel';
/**
 * The NOTIFY channel that tells the workers a thread (its id is the payload) got a pending `steer`
 * entry: its running attempt reads its steer entries at its next model request (engine/steer-hints.ts).
 */
export const RUN_STEER_CHANNEL = 'wsa_run_steer';

export const RUN_STATUSES = ['accepted', 'running', 'waiting', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const WAIT_REASONS = ['approval', 'client_tool', 'user_question'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/** Active statuses: a thread has at most one run in them (new input queues behind it). */
export const ACTIVE: readonly RunStatus[] = ['accepted', 'running'];

/** Terminal statuses: the run is sealed and never changes status again. */
export const SEALED: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled']);

const MOVES: Record<RunStatus, readonly RunStatus[]> = {
  // A worker claims it; or it is cancelled before it starts.
  accepted: ['running', 'cancelled'],
  // It finishes, pauses, fails, is cancelled — or its worker died or stopped and it is offered
  // again as a new attempt (back to accepted) or failed when attempts are exhausted.
  running: ['completed', 'waiting', 'failed', 'cancelled', 'accepted'],
  // A waiting run is answered by a successor run (it stays waiting, with resumed_by_id), or cancelled.
  waiting: ['cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

export function canMove(from: RunStatus, to: RunStatus): boolean {
  return MOVES[from].includes(to);
}

export class IllegalTransition extends AppError {
  constructor(from: string, to: string) {
    super('conflict', `a ${from} run cannot become ${to}`);
  }
}

function assertMove(from: RunStatus, to: RunStatus) {
  if (!canMove(from, to)) throw new IllegalTransition(from, to);
}

/** One tool call a waiting run waits for (an approval, a client tool call or a question): `runs.pending`. */
export interface PendingEntry {
  tool_call_id: string;
  tool_name: string;
  arguments: Record<string, unknown>;
  presentation: Record<string, unknown>;
}

/** What a waiting run waits for: its `pending` column. */
export interface RunPending {
  approvals: PendingEntry[];
  calls: PendingEntry[];
}

/**
 * A run's `pending` column as sealRun wrote it (only the seal of a waiting run writes it, with
 * this shape; null otherwise). The cast is that boundary.
 */
export function storedPending(value: Prisma.JsonValue | undefined): RunPending | null {
  return (value as RunPending | null | undefined) ?? null;
}

/** How an attempt ends, as the seal records it. */
export type SealOutcome =
  | { kind: 'completed'; output: unknown }
  | { kind: 'waiting'; reason: WaitReason; approvals: PendingEntry[]; calls: PendingEntry[] }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'cancelled' };

/** What a status change may set besides the status (the callers' needs; each a column of `runs`). */
export interface TransitionChanges {
  leaseOwner?: null;
  leaseExpiresAt?: null;
  cancelRequestedAt?: Date;
  failure?: { code: string; message: string };
}

/**
 * Moves a run from `from` to `to`, applying `changes`, only if it is still in `from` at `version`.
 * Returns the updated run, or null when someone else moved it first.
 *
 * One statement: the run as it was is read and locked first (the update joins it, so PostgreSQL
 * evaluates it before updating), then updated, and the dashboards' roll-ups follow the change in the
 * same statement (run-rollups.ts): what the run counted under `from` is taken back and what it counts
 * under `to` added, both from rows of this very change, so a concurrent change of the run can never
 * be counted in between.
 */
export async function transition(
  tx: Tx,
  run: { id: string; status: string; version: number },
  to: RunStatus,
  changes: TransitionChanges = {},
) {
  const from = run.status as RunStatus;
  assertMove(from, to);
  const sealed = SEALED.has(to) || to === 'waiting';
  const sets = [
    PrismaSql.sql`status = ${to}, version = ${run.version + 1}::int, updated_at = now()`,
    ...(sealed ? [PrismaSql.sql`sealed_at = now()`] : []),
    ...('leaseOwner' in changes ? [PrismaSql.sql`lease_owner = NULL`] : []),
    ...('leaseExpiresAt' in changes ? [PrismaSql.sql`lease_expires_at = NULL`] : []),
    ...(changes.cancelRequestedAt ? [PrismaSql.sql`cancel_requested_at = ${changes.cancelRequestedAt}::timestamptz`] : []),
    ...(changes.failure ? [PrismaSql.sql`failure = ${JSON.stringify(changes.failure)}::jsonb`] : []),
  ];
  // The run's hourly roll-ups move with it in the same statement (run-rollups.ts): what it counted under
  // `from` is taken back, what it counts under `to` is added (a move between two counted statuses is one
  // row of both, since a statement may change a roll-up row only once).
  const rollup = rollupMoveCtes(
    isRolledUp(from) ? PrismaSql.sql`SELECT o.* FROM old o JOIN moved m ON m.id = o.id` : null,
    isRolledUp(to) ? PrismaSql.sql`SELECT ${ROLLED_UP_COLUMNS} FROM moved` : null,
  );
  const [moved] = await queryDirect<Run>(
    tx,
    PrismaSql.sql`
    WITH old AS (
      SELECT ${ROLLED_UP_COLUMNS} FROM runs WHERE id = ${run.id} AND status = ${from} AND version = ${run.version}::int FOR UPDATE
    ), moved AS (
      UPDATE runs SET ${PrismaSql.join(sets)} FROM old WHERE runs.id = old.id RETURNING runs.*
    )${rollup ?? PrismaSql.empty}
    SELECT ${RUN_COLUMNS} FROM moved`,
  );
  return moved ?? null;
}

/** Whether a run may have another attempt: attempts its workers handed back on shutdown do not count. */
export function attemptsLeft(run: { attempts: number; maxAttempts: number; handedBack: number }): boolean {
  return run.attempts - run.handedBack < run.maxAttempts;
}

// ── creation ──

/**
 * A statement built in one pass (the run hot path creates one per run: nesting Prisma.sql fragments
 * would copy them at every level).
 */
class StatementBuilder {
  private readonly strings: string[] = [''];
  private readonly values: unknown[] = [];

  text(text: string): this {
    this.strings[this.strings.length - 1] += text;
    return this;
  }

  /** A parameter, cast so PostgreSQL never has to guess its type. */
  param(value: unknown, cast: string): this {
    this.values.push(value);
    this.strings.push(`::${cast}`);
    return this;
  }

  fragment(sql: PrismaSql.Sql): this {
    this.values.push(sql);
    this.strings.push('');
    return this;
  }

  build(): PrismaSql.Sql {
    return new PrismaSql.Sql(this.strings, this.values);
  }
}

const columnNames = new Map<string, string>();
const column = (field: string) => columnNames.get(field) ?? columnNames.set(field, columnName(field)).get(field)!;

/** `INSERT INTO table (col, …) VALUES (value, …)` of one planned row, values typed by their JavaScript type. */
function insertRow(statement: StatementBuilder, table: 'sessions' | 'threads' | 'inbox_entries' | 'runs', row: PlannedRow) {
  const fields = Object.keys(row).filter((field) => row[field] !== undefined);
  // Every created row is stamped with the statement's time.
  statement.text(`INSERT INTO ${table} (${fields.map(column).join(', ')}, created_at, updated_at) VALUES (`);
  for (const field of fields) {
    const value = row[field];
    if (value === null) statement.text('NULL');
    else if (typeof value === 'number') statement.param(value, 'int');
    else if (typeof value === 'boolean') statement.param(value, 'boolean');
    else if (typeof value === 'string') statement.param(value, 'text');
    else statement.param(JSON.stringify(value), 'jsonb');
    statement.text(', ');
  }
  statement.text('now(), now())');
}

/**
 * Writes a planned run in one statement — whichever path planned it (a new thread on the hot path,
 * an existing thread, a promoted inbox entry, a resume, a fork): its session and thread when new
 * (or the thread's pointers when it exists), its inbox entry (new, or the pending one it takes),
 * the run, the audit rows, the waiting run a resume answers (marked resumed by it), and the
 * NOTIFY that wakes workers (delivered at commit). Atomic without
 * a transaction; inside one it joins it. One round trip either way. The run is announced to this
 * process's workers too (`announceNewRun`), once it is committed. `alsoWrite` is one more write of
 * the caller's in the same statement (an idempotency record's result: idempotency.ts).
 */
export async function writeNewRun(call: NewRunWriter, plan: NewRunPlan, alsoWrite?: PrismaSql.Sql): Promise<Run> {
  const rows = await queryDirect<Run & { notified: unknown; webhookEvents?: number }>(
    call.db,
    newRunStatement(plan, { alsoWrite, returnDelivery: false }),
  );
  const { notified: _notified, webhookEvents: _events, ...run } = rows[0]!;
  announceNewRun(call, run as Run);
  return run as Run;
}

/** A delivery as written: the new run, its new inbox entry and its thread, as the statement left them. */
export interface WrittenDelivery {
  run: Run;
  entry: InboxEntry;
  thread: Thread;
}

/**
 * `writeNewRun` for a plan with a new inbox entry (a delivery, a fork), returning that entry and the
 * thread too, read from the statement's own writes: the answer of a delivery as it commits, with no
 * read after it.
 */
export async function writeNewDelivery(call: NewRunWriter, plan: NewRunPlan, alsoWrite?: PrismaSql.Sql): Promise<WrittenDelivery> {
  if (!('insert' in plan.entry)) throw new Error('writeNewDelivery needs a plan with a new inbox entry');
  const rows = await queryDirect<Record<string, unknown>>(call.db, newRunStatement(plan, { alsoWrite, returnDelivery: true }));
  const row = rows[0]!;
  const run = Object.fromEntries(
    Object.entries(row).filter(([key]) => !key.includes('.') && key !== 'notified' && key !== 'webhookEvents'),
  ) as unknown as Run;
  announceNewRun(call, run);
  return { run, entry: takePrefixed<InboxEntry>(row, 'entry'), thread: takePrefixed<Thread>(row, 'thread') };
}

/** The run's columns, qualified (a delivery's statement reads its entry and thread beside it). */
const NEW_RUN_COLUMNS = returningColumns(PrismaSql.RunScalarFieldEnum, 'new_run');
const NEW_ENTRY_COLUMNS = prefixedColumns(PrismaSql.InboxEntryScalarFieldEnum, 'new_entry', 'entry');

function newRunStatement(plan: NewRunPlan, extras: { alsoWrite?: PrismaSql.Sql; returnDelivery: boolean }): PrismaSql.Sql {
  const returning = extras.returnDelivery ? ' RETURNING *' : '';
  const statement = new StatementBuilder().text('WITH ');
  if (plan.session) {
    statement.text('new_session AS (');
    insertRow(statement, 'sessions', plan.session);
    statement.text('), ');
  }
  const threadCte = 'insert' in plan.thread ? 'new_thread' : 'thread_pointers';
  if ('insert' in plan.thread) {
    statement.text('new_thread AS (');
    insertRow(statement, 'threads', plan.thread.insert);
  } else {
    const { id, lastInboxPosition } = plan.thread.update;
    statement
      .text('thread_pointers AS (UPDATE threads SET current_run_id = ')
      .param(plan.run.id, 'text')
      .text(', last_run_id = ')
      .param(plan.run.id, 'text');
    if (lastInboxPosition !== undefined) statement.text(', last_inbox_position = ').param(lastInboxPosition, 'int');
    statement.text(' WHERE id = ').param(id, 'text');
  }
  statement.text(returning);
  if ('insert' in plan.entry) {
    statement.text('), new_entry AS (');
    insertRow(statement, 'inbox_entries', plan.entry.insert);
    statement.text(returning);
  } else {
    statement
      .text(`), assigned_entry AS (UPDATE inbox_entries SET status = 'assigned', assigned_run_id = `)
      .param(plan.run.id, 'text')
      .text(' WHERE id = ')
      .param(plan.entry.assign.id, 'text');
  }
  if (plan.resumes) {
    // The waiting run it answers stays waiting and names its successor.
    statement
      .text('), resumed_parent AS (UPDATE runs SET resumed_by_id = ')
      .param(plan.run.id, 'text')
      .text(', version = version + 1, updated_at = now() WHERE id = ')
      .param(plan.resumes, 'text');
  }
  if (extras.alsoWrite) statement.text('), also_written AS (').fragment(extras.alsoWrite);
  statement.text('), new_audit AS (INSERT INTO audit_events ').fragment(AUDIT_COLUMNS).text(' VALUES ');
  plan.audits.forEach((audit, index) => statement.text(index ? ', ' : '').fragment(auditValues(audit)));
  // The webhook events of what the audit rows report (a new session and thread), as recordAudit
  // writes them elsewhere: in this statement, read below so PostgreSQL evaluates them.
  const events = plan.audits.flatMap((audit) => {
    const event = auditWebhookEvent(audit);
    return event ? [enqueueExpression(audit.workspaceId, event.kind, event.data)] : [];
  });
  if (events.length) {
    statement.text('), audit_webhook_events AS (SELECT ');
    events.forEach((event, index) => statement.text(index ? ' + ' : '').fragment(event));
    statement.text(' AS queued');
  }
  statement.text('), new_run AS (');
  insertRow(statement, 'runs', plan.run);
  statement
    .text(' RETURNING *) SELECT ')
    .fragment(NEW_RUN_COLUMNS)
    .text(', pg_notify(')
    .param(RUN_ACCEPTED_CHANNEL, 'text')
    .text(', new_run.id) IS NULL AS "notified"')
    .text(events.length ? ', (SELECT queued FROM audit_webhook_events) AS "webhookEvents"' : '');
  if (extras.returnDelivery)
    statement
      .text(', ')
      .fragment(NEW_ENTRY_COLUMNS)
      .text(', ')
      .fragment(prefixedColumns(PrismaSql.ThreadScalarFieldEnum, threadCte, 'thread'))
      .text(` FROM new_run, new_entry, ${threadCte}`);
  else statement.text(' FROM new_run');
  return statement.build();
}

/** What writing a new run needs of its call: where to write, and how to announce the run after the commit. */
export type NewRunWriter = Pick<CallContext<Actor | null>, 'db' | 'events' | 'afterCommit'>;

/**
 * The one in-process announcement of a new run, after its commit (at once outside a transaction).
 * The NOTIFY written with the run already wakes every process's workers at commit; this event wakes
 * this process's own at once, without the NOTIFY's round trip through PostgreSQL. Before the commit
 * it would be too early: a claim would not see the run yet and would find nothing.
 */
function announceNewRun(call: NewRunWriter, run: Run) {
  call.afterCommit(() => {
    call.events.publish('runAccepted', { runId: run.id });
    // The workspace's live runs (the console's dashboard) show it from its acceptance.
    call.events.publish('workspaceRunChanged', run.workspaceId, run);
  });
}

/** PATCH of a run: labels only (versioned, audited, If-Match). */
export function changeRunLabels(
  call: CallContext,
  run: Run,
  ifMatch: string | null | undefined,
  labels: Record<string, string>,
): Promise<Run> {
  return changeVersioned({
    call,
    delegate: call.db.run,
    row: run,
    ifMatch,
    resourceKind: 'run',
    action: 'update',
    data: { labels },
    recordsUpdater: false,
  });
}

// ── cancellation ──

/**
 * A running run is marked (cancel_requested_at) and its worker told through NOTIFY to abort; an
 * accepted or waiting run is cancelled at once and frees its thread. Null when the run moved
 * meanwhile (the caller reads it again and retries).
 */
export async function cancelOrRequest(tx: Tx, current: Run): Promise<Run | null> {
  const now = new Date();
  if (current.status === 'running') {
    const marked = await tx.run.updateMany({
      where: { id: current.id, status: 'running', version: current.version },
      data: { cancelRequestedAt: now, version: current.version + 1, updatedAt: now },
    });
    if (marked.count !== 1) return null;
    await tx.$executeRaw`SELECT pg_notify(${RUN_CANCEL_CHANNEL}, ${current.id})`;
    return tx.run.findUniqueOrThrow({ where: { id: current.id } });
  }
  const cancelled = await transition(tx, current, 'cancelled', {
    cancelRequestedAt: now,
    failure: { code: 'cancelled', message: 'the run was cancelled' },
  });
  if (cancelled) {
    await tx.thread.updateMany({ where: { id: cancelled.threadId, currentRunId: cancelled.id }, data: { currentRunId: null } });
    await enqueueWebhookEvent(tx, cancelled.workspaceId, 'run.cancelled', runEventData(cancelled, 'cancelled', { failure: CANCELLED }));
  }
  return cancelled;
}

// ── workers ──

/** A stored span another run's trace links to: a resumed or forked run's link to its parent run's last run span. */
export interface SpanLink {
  trace_id: string;
  span_id: string;
}

/** The `run.started` payload, built from the claimed row (`c`): the shape of runEventData. */
const startedEventData = PrismaSql.sql`jsonb_build_object('run', jsonb_build_object('id', c.id, 'status', 'running',
  'session_id', c."sessionId", 'thread_id', c."threadId", 'agent_id', c."agentId", 'agent_revision_id', c."agentRevisionId",
  'parent_run_id', c."parentRunId", 'wait_reason', NULL, 'failure', NULL))`;

/**
 * A worker claims the named accepted run, or the oldest one (accepted → running), under a lease;
 * returns it with its thread's committed history and MCP headers, its parent's pending calls (what a
 * resume answers; null without a parent) and environment mounts, and — for a resume or a fork — the parent's last run span (its
 * trace links there), or null when there is none to claim. The first claim gives the run its trace
 * id (`traceId`: a new trace, unless the run was created inside one — a subagent's child run).
 */
export async function claimRun(db: Db, claim: ClaimRequest): Promise<ClaimedRun | null> {
  assertMove('accepted', 'running');
  if (claim.runId) {
    const named = await claimNamedRuns(db, [{ runId: claim.runId, attemptId: claim.attemptId, traceId: claim.traceId }], claim);
    if (named.claimed.length || !named.queuedWorkspaces.length) return named.claimed[0] ?? null;
    return claimQueued(db, named.queuedWorkspaces[0]!, claim);
  }
  const oldest = await claimStatement(
    db,
    claim,
    PrismaSql.sql`target AS (
      SELECT r.id, ${claim.attemptId}::text AS attempt_id, ${claim.traceId}::text AS trace_id FROM runs r
      WHERE r.status = 'accepted' AND NOT (${LIMITED_RUN})
      ORDER BY r.id FOR UPDATE SKIP LOCKED LIMIT 1
    )`,
    PrismaSql.sql`NULL::text[]`,
  );
  return oldest.claimed[0] ?? claimAnyQueued(db, claim);
}

/** One run of a batch the worker names: the run, and the attempt and trace ids its claim gives it. */
export interface NamedClaim {
  runId: string;
  attemptId: string;
  traceId: string;
}

/**
 * The named accepted runs claimed in one statement (the runs a worker heard of while its last claim
 * was under way). Runs another worker holds or took, or no longer accepted, are skipped. A named run
 * whose workspace limits its running runs is not claimed here: its workspace is returned, once per
 * such run, for `claimQueued`, which decides under the workspace's lock which of its runs may start.
 */
export async function claimNamedRuns(
  db: Db,
  runs: NamedClaim[],
  lease: Pick<ClaimRequest, 'leaseOwner' | 'leaseMs'>,
): Promise<{ claimed: ClaimedRun[]; queuedWorkspaces: string[] }> {
  assertMove('accepted', 'running');
  const { claimed, queuedWorkspaces } = await claimStatement(
    db,
    lease,
    PrismaSql.sql`asked AS (
        SELECT * FROM unnest(${runs.map((r) => r.runId)}::text[], ${runs.map((r) => r.attemptId)}::text[], ${runs.map((r) => r.traceId)}::text[])
          AS a(id, attempt_id, trace_id)
      ), named AS (
        SELECT r.id, CASE WHEN w.max_concurrent_runs IS NOT NULL AND r.lineage <> 'subagent' THEN r.workspace_id END AS queued
        FROM runs r JOIN workspaces w ON w.id = r.workspace_id WHERE r.id IN (SELECT id FROM asked) AND r.status = 'accepted'
      ), target AS (
        SELECT r.id, a.attempt_id, a.trace_id FROM runs r JOIN asked a ON a.id = r.id
        WHERE r.status = 'accepted' AND r.id IN (SELECT id FROM named WHERE queued IS NULL)
        FOR UPDATE OF r SKIP LOCKED
      )`,
    PrismaSql.sql`(SELECT array_agg(queued) FROM named WHERE queued IS NOT NULL)`,
  );
  return { claimed, queuedWorkspaces };
}

export interface ClaimRequest {
  runId?: string;
  attemptId: string;
  leaseOwner: string;
  leaseMs: number;
  traceId: string;
}

export interface ClaimedRun {
  run: Run;
  history: unknown[];
  /** The thread's `mcp_headers` as stored (connection id → headers; null when none). */
  mcpHeaders: unknown;
  parentPending: unknown;
  /** The parent run's `environment_mounts` as stored (null without a parent, or when it had none). */
  parentEnvironmentMounts: Prisma.JsonValue;
  parentSpan: SpanLink | null;
  /** Whether the run's thread held a pending `steer` entry when it was claimed. */
  steerPending: boolean;
}

/**
 * A run (`r`) the workspace's `max_concurrent_runs` holds: one of a workspace with a limit, except a
 * subagent's child run (its parent holds a slot and waits for it: holding the child too could wait forever).
 */
const LIMITED_RUN = PrismaSql.sql`r.lineage <> 'subagent' AND EXISTS (SELECT 1 FROM workspaces w WHERE w.id = r.workspace_id AND w.max_concurrent_runs IS NOT NULL)`;

/** The running runs the limit counts, of workspace `ws` (an index range of runs_workspace_id_status_id_idx). */
const runningCounted = (ws: PrismaSql.Sql) =>
  PrismaSql.sql`(SELECT count(*) FROM runs x WHERE x.workspace_id = ${ws} AND x.status = 'running' AND x.lineage <> 'subagent')`;

/**
 * The oldest accepted run of a workspace with `max_concurrent_runs`, claimed only while fewer than
 * the limit run. Counting and claiming must be atomic across every worker of every instance: a
 * transaction-scoped advisory lock per workspace serialises these claims, and the claim is a
 * statement of its own after the lock, so its snapshot sees every claim committed before (one
 * statement taking the lock would count with a snapshot older than the lock).
 */
export function claimQueued(db: Db, workspaceId: string, claim: ClaimRequest): Promise<ClaimedRun | null> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`wsa_concurrency:${workspaceId}`}, 0))`;
    const queued = await claimStatement(
      tx as unknown as Db,
      claim,
      PrismaSql.sql`target AS (
        SELECT r.id, ${claim.attemptId}::text AS attempt_id, ${claim.traceId}::text AS trace_id FROM runs r
        WHERE r.workspace_id = ${workspaceId} AND r.status = 'accepted' AND r.lineage <> 'subagent'
          AND ${runningCounted(PrismaSql.sql`${workspaceId}`)} < coalesce((SELECT max_concurrent_runs FROM workspaces WHERE id = ${workspaceId}), 2147483647)
        ORDER BY r.id FOR UPDATE SKIP LOCKED LIMIT 1
      )`,
      PrismaSql.sql`NULL::text[]`,
    );
    return queued.claimed[0] ?? null;
  });
}

/** A scan's last step: the workspaces with a limit, runs waiting and a free slot, oldest waiting first. */
async function claimAnyQueued(db: Db, claim: ClaimRequest): Promise<ClaimedRun | null> {
  const workspaces = await db.$queryRaw<{ id: string }[]>`
    SELECT w.id FROM workspaces w
    CROSS JOIN LATERAL (SELECT min(r.id) AS oldest FROM runs r WHERE r.workspace_id = w.id AND r.status = 'accepted' AND r.lineage <> 'subagent') q
    WHERE w.max_concurrent_runs IS NOT NULL AND q.oldest IS NOT NULL AND ${runningCounted(PrismaSql.sql`w.id`)} < w.max_concurrent_runs
    ORDER BY q.oldest LIMIT 50`;
  for (const { id } of workspaces) {
    const claimed = await claimQueued(db, id, claim);
    if (claimed) return claimed;
  }
  return null;
}

/** The run's columns, qualified: the claim's UPDATE reads `target` beside `runs`, and both have an `id`. */
const CLAIMED_RUN_COLUMNS = returningColumns(PrismaSql.RunScalarFieldEnum, 'runs');

/**
 * The claim itself, one statement: the runs of `target` (CTEs ending in one named `target` with the
 * ids to claim and each one's attempt and trace ids) moved to running, each with its thread's history,
 * its parent's pending calls and span, and the first attempt's `run.started` webhook event. `queued`
 * lists the workspaces whose queue holds a run the target left alone (null: none).
 */
async function claimStatement(
  db: Db,
  lease: Pick<ClaimRequest, 'leaseOwner' | 'leaseMs'>,
  target: PrismaSql.Sql,
  queued: PrismaSql.Sql,
): Promise<{ claimed: ClaimedRun[]; queuedWorkspaces: string[] }> {
  const rows = await queryDirect<
    Run & {
      threadHistory: unknown[] | null;
      threadMcpHeaders: unknown;
      parentPending: unknown;
      parentEnvironmentMounts: Prisma.JsonValue;
      parentSpan: SpanLink | null;
      steerPending: boolean;
      webhookEvents: number;
      queuedWorkspaces: string[] | null;
    }
  >(
    db,
    PrismaSql.sql`
    WITH ${target}, claimed AS (
      UPDATE runs SET status = 'running', lease_owner = ${lease.leaseOwner}, lease_expires_at = now() + make_interval(secs => ${lease.leaseMs / 1000}),
        attempts = attempts + 1, current_attempt_id = t.attempt_id, started_at = coalesce(started_at, now()), version = version + 1, updated_at = now(),
        trace_id = coalesce(runs.trace_id, t.trace_id)
      FROM target t WHERE runs.id = t.id
      RETURNING ${CLAIMED_RUN_COLUMNS}, (SELECT th.message_history FROM threads th WHERE th.id = runs.thread_id) AS "threadHistory",
        (SELECT th.mcp_headers FROM threads th WHERE th.id = runs.thread_id) AS "threadMcpHeaders",
        (SELECT p.pending FROM runs p WHERE p.id = runs.parent_run_id) AS "parentPending",
        (SELECT p.environment_mounts FROM runs p WHERE p.id = runs.parent_run_id) AS "parentEnvironmentMounts",
        (SELECT json_build_object('trace_id', s.trace_id, 'span_id', s.span_id) FROM runs p
          JOIN trace_spans s ON s.run_id = p.id AND s.trace_id = p.trace_id AND s.parent_span_id IS NOT DISTINCT FROM p.trace_parent_span_id
          WHERE p.id = runs.parent_run_id AND runs.lineage <> 'subagent' ORDER BY s.start_time_unix_nano DESC LIMIT 1) AS "parentSpan",
        EXISTS (SELECT 1 FROM inbox_entries ie WHERE ie.thread_id = runs.thread_id AND ie.status = 'pending' AND ie.delivery = 'steer') AS "steerPending"
    ), started AS (
      -- run.started in the claim's statement, for first attempts only (a retry or a hand-back is no new start).
      SELECT ${enqueueExpression(PrismaSql.sql`c."workspaceId"`, 'run.started', startedEventData)} AS queued FROM claimed c WHERE c.attempts = 1
    )
    SELECT c.*, (SELECT count(*) FROM started)::int AS "webhookEvents", ${queued} AS "queuedWorkspaces"
    FROM (SELECT 1) one LEFT JOIN claimed c ON true`,
  );
  const claimed = rows
    .filter((row) => row.id !== null)
    .map(
      ({
        threadHistory,
        threadMcpHeaders,
        parentPending,
        parentEnvironmentMounts,
        parentSpan,
        steerPending,
        webhookEvents: _e,
        queuedWorkspaces: _q,
        ...run
      }): ClaimedRun => ({
        run,
        history: threadHistory ?? [],
        mcpHeaders: threadMcpHeaders ?? null,
        parentPending: parentPending ?? null,
        parentEnvironmentMounts: parentEnvironmentMounts ?? null,
        parentSpan: parentSpan ?? null,
        steerPending: steerPending === true,
      }),
    );
  return { claimed, queuedWorkspaces: rows[0]?.queuedWorkspaces ?? [] };
}

/**
 * After a change of a workspace's `max_concurrent_runs`: the workers hear of its oldest waiting runs
 * (as many as may start now; all up to 1,000 when the limit is lifted), delivered at the commit.
 */
export async function announceQueuedRuns(db: Pick<Db, '$queryRaw'>, workspaceId: string, limit: number | null): Promise<void> {
  await db.$queryRaw`
    SELECT pg_notify(${RUN_ACCEPTED_CHANNEL}, q.id)::text FROM (
      SELECT r.id FROM runs r WHERE r.workspace_id = ${workspaceId} AND r.status = 'accepted' ORDER BY r.id LIMIT ${limit ?? 1000}
    ) q`;
}

/**
 * Extends the leases of the runs a worker runs, in one statement for all of them (one per heartbeat
 * and process, not one per run: at a thousand live runs the per-run heartbeats were a sixth of the
 * pool's connections). Returns the ids whose lease is still this worker's; the others were taken over
 * or moved on. As the claim does, the lease runs from the database's clock.
 */
export async function extendLeases(db: Db, runIds: readonly string[], leaseOwner: string, leaseMs: number): Promise<string[]> {
  if (!runIds.length) return [];
  const rows = await queryDirect<{ id: string }>(
    db,
    PrismaSql.sql`UPDATE runs SET lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
      WHERE id = ANY(${[...runIds]}::text[]) AND lease_owner = ${leaseOwner} AND status = 'running' RETURNING id`,
  );
  return rows.map((row) => row.id);
}

/** The run's memory mounts as resolved for its first attempt (the run view shows them). */
export async function recordMemoryMounts(db: Db, runId: string, mounts: unknown[]): Promise<void> {
  await db.run.update({ where: { id: runId }, data: { memoryMounts: mounts as Prisma.InputJsonValue } });
}

/** The run's environment mounts: recorded when they are made (at the start, or on first need with lazy environments). */
export async function recordEnvironmentMounts(db: Db, runId: string, mounts: unknown[]): Promise<void> {
  await db.run.update({ where: { id: runId }, data: { environmentMounts: mounts as Prisma.InputJsonValue } });
}

/** The run's skills as its first attempt resolved them (later attempts and the agent view read them). */
export async function recordResolvedSkills(db: Db, runId: string, skills: unknown[]): Promise<void> {
  await db.run.update({ where: { id: runId }, data: { resolvedSkills: skills as Prisma.InputJsonValue } });
}

/** A transient failure: the run is offered again as a new attempt (running → accepted) and announced. */
export async function requeueRun(db: Db, runId: string): Promise<Run | null> {
  const current = await db.run.findUniqueOrThrow({ where: { id: runId } });
  const requeued = await db.$transaction((tx) => transition(tx, current, 'accepted', { leaseOwner: null, leaseExpiresAt: null }));
  if (requeued) await db.$executeRaw`SELECT pg_notify(${RUN_ACCEPTED_CHANNEL}, ${runId})`;
  return requeued;
}

/** Running runs whose lease expired: their worker died. */
export function expiredRuns(db: Db, limit = 50): Promise<Run[]> {
  return db.run.findMany({ where: { status: 'running', leaseExpiresAt: { lt: new Date() } }, take: limit });
}

/** A run whose worker died: a new attempt if attempts remain, else failed. Null when it moved meanwhile. */
export function takeOverExpired(db: Db, run: Run): Promise<Run | null> {
  return db.$transaction(async (tx) => {
    if (attemptsLeft(run)) return transition(tx, run, 'accepted', { leaseOwner: null, leaseExpiresAt: null });
    const failure = { code: 'worker_lost', message: 'the worker running this run stopped and its attempts are spent' };
    const failed = await transition(tx, run, 'failed', { leaseOwner: null, leaseExpiresAt: null, failure });
    if (failed) await enqueueWebhookEvent(tx, failed.workspaceId, 'run.failed', runEventData(failed, 'failed', { failure }));
    return failed;
  });
}

const CANCELLED = { code: 'cancelled', message: 'the run was cancelled' };

/**
 * A stopping worker hands its run back (running → accepted) in one statement: the attempt's last
 * run items (`itemsWrite`, its in-progress items already closed), the status with claim and lease
 * cleared, and the NOTIFY that lets any worker claim it at once instead of waiting for the lease.
 * The attempt stays counted in `attempts` (its number orders the run's stream positions, which only
 * grow) and in `handed_back`, which `attemptsLeft` subtracts, so a hand-back never uses up the run's
 * attempts. Only the attempt that holds the run can hand it back; null when the run moved on meanwhile.
 */
export async function handBack(
  db: Db,
  run: { id: string; currentAttemptId: string | null },
  itemsWrite: ItemsWrite | null,
  spansWrite: Prisma.Sql | null = null,
): Promise<Run | null> {
  assertMove('running', 'accepted');
  const rows = await db.$queryRaw<(Run & { notified: boolean })[]>`
    WITH ${itemsCtes(itemsWrite)}
      ${spansWrite ? PrismaSql.sql`written_spans AS (${spansWrite}),` : PrismaSql.empty} handed AS (
      UPDATE runs SET status = 'accepted', version = version + 1, updated_at = now(), lease_owner = NULL, lease_expires_at = NULL,
        handed_back = handed_back + 1
      WHERE id = ${run.id} AND status = 'running' AND current_attempt_id = ${run.currentAttemptId}
      RETURNING *
    )
    SELECT ${RUN_COLUMNS}, pg_notify(${RUN_ACCEPTED_CHANNEL}, handed.id) IS NULL AS "notified" FROM handed`;
  if (rows.length === 0) return null;
  const { notified: _notified, ...handed } = rows[0]!;
  return handed;
}

/**
 * Seals the attempt's outcome in one statement: the last run items (`itemsWrite`), the attempt's
 * trace spans (`spansWrite`), the run's status
 * with output, pending, usage and checkpoint, the thread's committed history and current run, and
 * the inbox entries the run carried. Only the attempt that holds the run can seal it (a worker whose
 * run was taken over finds nothing to seal and gets null). Also tells whether the thread has pending
 * entries waiting to become its next run.
 */
export async function sealRun(
  db: Db,
  run: Run,
  outcome: SealOutcome,
  newMessages: unknown[],
  usage: Record<string, unknown>,
  ledger: readonly UsageLedgerRow[],
  itemsWrite: ItemsWrite | null,
  spansWrite: Prisma.Sql | null = null,
): Promise<(Run & { threadHasPending: boolean }) | null> {
  const to =
    outcome.kind === 'completed'
      ? 'completed'
      : outcome.kind === 'waiting'
        ? 'waiting'
        : outcome.kind === 'cancelled'
          ? 'cancelled'
          : 'failed';
  assertMove('running', to);
  // Committed history grows only with what completed or waiting runs produced; checkpoint_seq
  // records where this run's history ends (fork continues from there).
  const commit = outcome.kind === 'completed' || outcome.kind === 'waiting';
  const failure =
    outcome.kind === 'failed'
      ? { code: outcome.code, message: outcome.message }
      : outcome.kind === 'cancelled'
        ? { code: 'cancelled', message: 'the run was cancelled' }
        : null;
  const pending = outcome.kind === 'waiting' ? { approvals: outcome.approvals, calls: outcome.calls } : { approvals: [], calls: [] };
  const entryStatus = outcome.kind === 'failed' ? 'failed' : outcome.kind === 'cancelled' ? 'cancelled' : 'completed';
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  const rows = await queryDirect<Run & { threadHasPending: boolean }>(
    db,
    PrismaSql.sql`
    WITH ${itemsCtes(itemsWrite)}
      ${spansWrite ? PrismaSql.sql`written_spans AS (${spansWrite}),` : PrismaSql.empty} sealed AS (
      UPDATE runs SET status = ${to}, version = version + 1, updated_at = now(), sealed_at = now(), lease_owner = NULL, lease_expires_at = NULL,
        usage_at_seal = ${json(usage)}::jsonb, pending = ${json(pending)}::jsonb,
        output = ${outcome.kind === 'completed' ? (json(outcome.output ?? null) ?? 'null') : null}::jsonb,
        wait_reason = ${outcome.kind === 'waiting' ? outcome.reason : null}, failure = ${json(failure)}::jsonb,
        checkpoint_seq = (SELECT jsonb_array_length(t.message_history) FROM threads t WHERE t.id = runs.thread_id) + ${commit ? newMessages.length : 0}::int
      WHERE id = ${run.id} AND status = 'running' AND current_attempt_id = ${run.currentAttemptId}
      RETURNING *
    ), thread AS (
      UPDATE threads SET
        message_history = CASE WHEN ${commit} THEN message_history || ${JSON.stringify(newMessages)}::jsonb ELSE message_history END,
        current_run_id = CASE WHEN current_run_id = ${run.id} THEN NULL ELSE current_run_id END
      WHERE id = (SELECT thread_id FROM sealed)
    ), entries AS (
      -- Steered entries keep saying they were incorporated; they finish with the run.
      UPDATE inbox_entries SET finished_at = now(),
        status = CASE WHEN status = 'incorporated' THEN status ELSE ${entryStatus} END,
        failure = CASE WHEN status = 'incorporated' THEN failure ELSE coalesce(${outcome.kind === 'failed' ? json(failure) : null}::jsonb, failure) END
      WHERE assigned_run_id = ${run.id} AND finished_at IS NULL AND EXISTS (SELECT 1 FROM sealed)
      RETURNING id, workspace_id, thread_id, assigned_run_id, status, failure
    ), rolled_up AS (
      -- The dashboards' hourly roll-up of the run's creation hour counts it from now on (run-rollups.ts).
      ${agentRollupUpsert(PrismaSql.sql`SELECT * FROM sealed`)}
    ), rolled_up_models AS (
      -- And so do those of the models it used: earlier attempts' and this seal's ledger rows.
      ${modelRollupUpsert(
        PrismaSql.sql`SELECT * FROM sealed`,
        1,
        ledger.map((row) => row.modelKey),
      )}
    ), run_event AS (
      -- Webhook events in the same statement as the seal (nothing is written without a subscriber).
      SELECT ${enqueueExpression(PrismaSql.sql`sealed.workspace_id`, `run.${to}`, runEventData(run, to, { waitReason: outcome.kind === 'waiting' ? outcome.reason : null, failure }))} AS queued FROM sealed
    ), entry_events AS (
      SELECT ${enqueueExpression(
        PrismaSql.sql`e.workspace_id`,
        'inbox_entry.failed',
        PrismaSql.sql`jsonb_build_object('inbox_entry', jsonb_build_object('id', e.id, 'thread_id', e.thread_id, 'run_id', e.assigned_run_id, 'status', e.status, 'failure', e.failure))`,
      )} AS queued FROM entries e WHERE e.status = 'failed'
    )${ledgerCte(ledger)}
    SELECT ${RUN_COLUMNS},
      EXISTS (SELECT 1 FROM inbox_entries e WHERE e.thread_id = sealed.thread_id AND e.status = 'pending') AS "threadHasPending",
      ((SELECT count(*) FROM run_event) + (SELECT count(*) FROM entry_events))::int AS "webhookEvents",
      -- A slot of a workspace with max_concurrent_runs is free: its oldest waiting run is announced
      -- (delivered at the commit; a primary-key probe for a workspace without a limit).
      (SELECT pg_notify(${RUN_ACCEPTED_CHANNEL}, q.id) IS NULL FROM workspaces w
        CROSS JOIN LATERAL (SELECT r.id FROM runs r WHERE r.workspace_id = w.id AND r.status = 'accepted' AND r.lineage <> 'subagent' ORDER BY r.id LIMIT 1) q
        WHERE w.id = sealed.workspace_id AND w.max_concurrent_runs IS NOT NULL AND sealed.lineage <> 'subagent') AS "queuedAnnounced"
    FROM sealed`,
  );
  if (!rows[0]) return null;
  const {
    webhookEvents: _events,
    queuedAnnounced: _announced,
    ...sealed
  } = rows[0] as (typeof rows)[0] & {
    webhookEvents?: number;
    queuedAnnounced?: boolean | null;
  };
  return sealed;
}

// ───────────── run-item retention: marking the runs whose items expired (run-item-retention.ts) ─────────────

/** Where the marking continues in one sweep: after this run, by (sealed_at, id). */
export interface MarkCursor {
  sealedAt: Date;
  id: string;
}

/**
 * The statement marking up to `batch` runs whose items expired: sealed longer than `retentionDays`
 * ago, not marked yet, not protected (see run-item-retention.ts), after `cursor` when given (so one sweep never
 * reads the protected runs it passed again). Read through `runs_items_kept_idx`, oldest seal first.
 * Rows another transaction holds (a resume in progress) are skipped, and left for a later sweep.
 */
export const markExpiredRunsStatement = (retentionDays: number, batch: number, cursor: MarkCursor | null) => PrismaSql.sql`
  WITH picked AS (
    SELECT r.id FROM runs r
    WHERE r.items_removed_at IS NULL AND r.sealed_at IS NOT NULL
      AND r.sealed_at < now() - make_interval(days => ${retentionDays}::int)
      ${cursor ? PrismaSql.sql`AND (r.sealed_at, r.id) > (${cursor.sealedAt}::timestamptz, ${cursor.id})` : PrismaSql.empty}
      AND NOT (r.status = 'waiting' AND r.resumed_by_id IS NULL)
      -- A scalar subquery: one primary-key probe per candidate, never a join over all threads.
      AND r.id IS DISTINCT FROM (SELECT t.last_run_id FROM threads t WHERE t.id = r.thread_id AND t.archived_at IS NULL)
    ORDER BY r.sealed_at, r.id
    LIMIT ${batch}::int
    FOR UPDATE OF r SKIP LOCKED
  ), marked AS (
    UPDATE runs SET items_removed_at = now() WHERE id IN (SELECT id FROM picked) RETURNING id, sealed_at
  ), queued AS (
    INSERT INTO run_data_purges (run_id) SELECT id FROM marked ON CONFLICT DO NOTHING
  )
  SELECT id, sealed_at AS "sealedAt" FROM marked ORDER BY sealed_at, id`;

/** Marks up to `batch` expired runs (step 1). Returns them, oldest seal first: the last is the next cursor. */
export const markExpiredRuns = (db: Db, retentionDays: number, batch: number, cursor: MarkCursor | null) =>
  db.$queryRaw<MarkCursor[]>(markExpiredRunsStatement(retentionDays, batch, cursor));
