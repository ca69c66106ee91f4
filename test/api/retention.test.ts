// Retention of run items, inbox history and audit rows (docs/operations.md, "Retention";
// docs/api/runs.md, "Retention"). Runs are made by the real workers on the development model and
// read through REST and GraphQL; only their timestamps are moved into the past, in the database, as
// the trace and webhook retention tests do. The sweeps are the housekeeping's own, called with a
// clock hours ahead so that their hourly turn has come.
//
// What is checked: the sweep removes exactly the items of runs that sealed longer ago than the
// retention and that no client can still resume (a waiting run nobody resumed) and that are not the
// latest run of an open thread; archiving a thread lifts the latter; a removed run keeps its row and
// output, answers an empty items page with `items_removed_at`, and can still be forked; a kept
// waiting run can still be resumed. Inbox entries and audit rows go by age with the same protection
// for entries. Every statement is bounded (a batch deletes or marks at most its size) and served by
// an index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Prisma } from '../../src/generated/prisma/client.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { loadConfig, ConfigError } from '../../src/config.js';
import {
  finishPurgesStatement,
  markExpiredRuns,
  markExpiredRunsStatement,
  purgeBatch,
  purgeStatement,
} from '../../src/features/runs/run-item-retention.js';
import { expiredEntriesStatement } from '../../src/features/runs/inbox-retention.js';
import { expiredAuditStatement } from '../../src/features/audit/audit-retention.js';

let t: TestApp;
let echo: string;
let pauses: string;
/** A clock far enough ahead that every hourly sweep is due; moved on by each sweep of a test. */
let clock = Date.now();
const later = () => (clock += 2 * 3_600_000);
const message = (text: string) => ({ content: [{ type: 'text', text }] });

beforeAll(async () => {
  t = await startTestApp({ runWorkers: 1 });
  await insertModel(t, 'main');
  echo = (await t.rest('POST', '/api/v1/agents', { body: { name: 'echo', config: { model: 'main' } } })).body.id;
  pauses = (
    await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'pauses',
        config: {
          model: 'main',
          model_settings: { script: [[{ tool_call: { id: 'call_1', name: 'pick' } }], [{ text: 'picked' }]] },
          client_tools: [{ name: 'pick' }],
        },
      },
    })
  ).body.id;
});
afterAll(async () => {
  await t?.stop();
});

async function sql<T = any>(query: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    return (await client.query(query, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Starts a run (on `threadId` when given) and waits until it settles. */
async function run(agentId: string, text: string, threadId?: string): Promise<any> {
  const created = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agentId, input: message(text), ...(threadId ? { thread_id: threadId } : {}) },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return settleRun(t, created.body.id);
}

/** Moves a run's seal and its inbox entries' finish `days` into the past. */
async function age(runIds: string[], days: number) {
  await sql(`UPDATE runs SET sealed_at = now() - make_interval(days => $2) WHERE id = ANY($1)`, [runIds, days]);
  await sql(`UPDATE inbox_entries SET finished_at = now() - make_interval(days => $2) WHERE assigned_run_id = ANY($1)`, [runIds, days]);
}

const itemCount = async (runId: string) => Number((await sql(`SELECT count(*) AS n FROM run_items WHERE run_id = $1`, [runId]))[0].n);
const items = (runId: string) => t.rest('GET', `/api/v1/runs/${runId}/items`);

describe('run-item and inbox retention', () => {
  it('removes exactly the expired items no client can still need, keeps the runs, and answers removed items with the marker', async () => {
    // An open thread with two old runs: the older goes, the latest stays.
    const older = await run(echo, 'one');
    const latest = await run(echo, 'two', older.thread_id);
    // A waiting run nobody resumed: kept, whatever its age.
    const waiting = await run(pauses, 'pick');
    expect(waiting.status).toBe('waiting');
    // A waiting run that was resumed: it can no longer be resumed, so it goes (its successor is the latest run).
    const resumedParent = await run(pauses, 'pick');
    const resumed = await t.rest('POST', `/api/v1/runs/${resumedParent.id}/resume`, {
      headers: { 'Idempotency-Key': 'r1', Prefer: 'wait=30' },
      body: { calls: { call_1: { status: 'returned', value: 'a' } } },
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    const successor = await settleRun(t, resumed.body.id);
    // The latest run of a thread that is then archived: archiving lifts its protection.
    const archivedLast = await run(echo, 'three');
    const thread = await t.rest('GET', `/api/v1/threads/${archivedLast.thread_id}`);
    const archived = await t.rest('POST', `/api/v1/threads/${archivedLast.thread_id}/archive`, {
      headers: { 'If-Match': thread.headers.get('etag')! },
    });
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
    // An old run of an open thread, sealed within the retention: kept.
    const recent = await run(echo, 'four');
    const recentLast = await run(echo, 'five', recent.thread_id);

    const expired = [older, latest, waiting, resumedParent, successor, archivedLast];
    await age(
      expired.map((r) => r.id),
      91,
    );
    await age([recent.id, recentLast.id], 89);
    for (const r of [...expired, recent]) expect(await itemCount(r.id), r.id).toBeGreaterThan(0);
    const olderItems = await itemCount(older.id);

    const swept = await t.app.housekeeping!.sweepRunItems(later());
    const gone = [older, resumedParent, archivedLast];
    expect(swept).toMatchObject({ runs: gone.length });
    expect(swept!.rows.run_items).toBeGreaterThanOrEqual(olderItems);
    for (const r of gone) expect(await itemCount(r.id), r.id).toBe(0);
    for (const r of [latest, waiting, successor, recent, recentLast]) expect(await itemCount(r.id), r.id).toBeGreaterThan(0);
    // Every run stays, with its output; the purge queue is empty once the rows are gone.
    expect(await sql(`SELECT run_id FROM run_data_purges`)).toEqual([]);
    const olderNow = await t.rest('GET', `/api/v1/runs/${older.id}`);
    expect(olderNow.body).toMatchObject({ id: older.id, status: 'completed', output: older.output });

    // A removed run's items page: no items, complete, with the marker; a kept run's has none.
    const page = await items(older.id);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ items: [], complete: true, position: '', continuation: { next_ordinal: 1 } });
    expect(Date.parse(page.body.items_removed_at)).toBeGreaterThan(Date.now() - 60_000);
    const kept = await items(latest.id);
    expect(kept.body.items_removed_at).toBeNull();
    expect(kept.body.items.length).toBeGreaterThan(0);
    const viaGraphql = await t.graphql(
      `query ($id: ID!) { runItems(runId: $id, after: 0) { itemsRemovedAt items { ordinal } complete } }`,
      {
        id: older.id,
      },
    );
    expect(viaGraphql.data.runItems).toEqual({ itemsRemovedAt: page.body.items_removed_at, items: [], complete: true });

    // Inbox history: the entries of the runs whose items went are deleted; the protected ones stay.
    const deleted = await t.app.housekeeping!.sweepInbox(later());
    expect(deleted).toBe(gone.length);
    const entries = async (threadId: string) =>
      (await t.rest('GET', `/api/v1/threads/${threadId}/inbox`)).body.items.map((e: any) => e.assigned_run_id);
    expect(await entries(older.thread_id)).toEqual([latest.id]);
    expect(await entries(archivedLast.thread_id)).toEqual([]);
    expect(await entries(recent.thread_id)).toEqual([recent.id, recentLast.id]);

    // The next sweep finds nothing new.
    expect(await t.app.housekeeping!.sweepRunItems(later())).toMatchObject({ runs: 0 });
    // What resume and fork read is on the run and the thread: both still work.
    const fork = await t.rest('POST', `/api/v1/runs/${older.id}/fork`, {
      headers: { 'Idempotency-Key': 'f1' },
      body: { payload: message('again') },
    });
    expect(fork.status, JSON.stringify(fork.body)).toBe(201);
    expect((await settleRun(t, fork.body.run.id)).status).toBe('completed');
    const forked = await t.rest('GET', `/api/v1/threads/${fork.body.thread.id}`);
    expect(forked.body.message_history.slice(0, 2)).toEqual([
      expect.objectContaining({ role: 'user' }),
      expect.objectContaining({ role: 'assistant' }),
    ]);
    const resumeKept = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
      headers: { 'Idempotency-Key': 'r2' },
      body: { calls: { call_1: { status: 'returned', value: 'b' } } },
    });
    expect(resumeKept.status, JSON.stringify(resumeKept.body)).toBe(200);
    expect((await settleRun(t, resumeKept.body.id)).status).toBe('completed');
  });

  it('marks and deletes in bounded batches: each statement touches at most its batch size', async () => {
    const runs = [];
    for (let n = 0; n < 3; n++) {
      const first = await run(echo, `batch ${n}`);
      await run(echo, `batch ${n} again`, first.thread_id);
      runs.push(first);
    }
    await age(
      runs.map((r) => r.id),
      120,
    );
    const total = (await Promise.all(runs.map((r) => itemCount(r.id)))).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(6);

    // Two runs per marking statement: the oldest two, then the third after the cursor.
    const first = await markExpiredRuns(t.app.deps.db, 90, 2, null);
    expect(first).toHaveLength(2);
    const second = await markExpiredRuns(t.app.deps.db, 90, 1, first[1]!);
    expect(second.map((r) => r.id)).toEqual(runs.map((r) => r.id).filter((id) => !first.some((f) => f.id === id)));
    // Two rows per purge statement until the queue's rows are gone.
    const batches: number[] = [];
    for (let count = -1; count !== 0;) batches.push((count = await purgeBatch(t.app.deps.db, 'run_items', 2)));
    expect(batches.every((n) => n <= 2)).toBe(true);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(total);
    // Marked runs answer as removed even before the sweep finishes their queue.
    for (const r of runs) expect((await items(r.id)).body.items).toEqual([]);
  });

  it('serves every retention statement from an index', async () => {
    const plan = async (statement: Prisma.Sql) =>
      t.app.deps.db.$transaction(async (tx) => {
        // The tables are tiny here: with sequential scans priced out, the plan shows the usable indexes.
        await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
        const rows = await tx.$queryRaw<{ 'QUERY PLAN': string }[]>(Prisma.sql`EXPLAIN ${statement}`);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    const mark = await plan(markExpiredRunsStatement(90, 500, { sealedAt: new Date(0), id: '' }));
    expect(mark).toContain('runs_items_kept_idx');
    expect(mark).not.toMatch(/Seq Scan/);
    const purge = await plan(purgeStatement('run_items', 5_000));
    expect(purge).toContain('run_items_run_id_ordinal_key');
    expect(purge).toMatch(/Tid Scan/);
    expect(purge).not.toMatch(/Seq Scan on run_items|Hash Join/);
    expect(await plan(finishPurgesStatement(500))).not.toMatch(/Seq Scan on run_items/);
    const inbox = await plan(expiredEntriesStatement(90, 5_000, null));
    expect(inbox).toContain('inbox_entries_finished_idx');
    expect(inbox).not.toMatch(/Seq Scan/);
    const audit = await plan(expiredAuditStatement(365, 5_000));
    expect(audit).toContain('audit_events_created_at_idx');
    expect(audit).not.toMatch(/Seq Scan/);
  });
});

describe('audit retention', () => {
  it('deletes the audit rows older than the retention, of every workspace, and keeps the rest', async () => {
    const before = (await t.rest('GET', '/api/v1/audit-events?limit=100')).body.items as { id: string }[];
    expect(before.length).toBeGreaterThan(3);
    const old = before.slice(-3).map((e) => e.id);
    await sql(`UPDATE audit_events SET created_at = now() - interval '366 days' WHERE id = ANY($1)`, [old]);
    await sql(`UPDATE audit_events SET created_at = now() - interval '364 days' WHERE id = $1`, [before[0]!.id]);
    expect(await t.app.housekeeping!.sweepAudit(later())).toBe(3);
    const after = (await t.rest('GET', '/api/v1/audit-events?limit=100')).body.items as { id: string }[];
    expect(after.map((e) => e.id)).toEqual(before.filter((e) => !old.includes(e.id)).map((e) => e.id));
  });
});

describe('settings', () => {
  it('defaults to 90 days of run items and inbox history and 365 of audit rows; 0 keeps them forever', () => {
    expect(loadConfig({})).toMatchObject({ runItemRetentionDays: 90, inboxRetentionDays: 90, auditRetentionDays: 365 });
    expect(loadConfig({ RUN_ITEM_RETENTION_DAYS: '0', INBOX_RETENTION_DAYS: '7', AUDIT_RETENTION_DAYS: '0' })).toMatchObject({
      runItemRetentionDays: 0,
      inboxRetentionDays: 7,
      auditRetentionDays: 0,
    });
  });

  it.each([
    ['RUN_ITEM_RETENTION_DAYS', '-1'],
    ['RUN_ITEM_RETENTION_DAYS', '1.5'],
    ['INBOX_RETENTION_DAYS', 'ninety'],
    ['AUDIT_RETENTION_DAYS', '40000'],
  ])('refuses %s=%s at start-up with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name} must be an integer from 0 to 36500`));
  });

  it('runs each sweep on one instance per hour, and not at all with a retention of 0', async () => {
    // A second instance on the same database, without workers: the housekeeping a worker process runs is built on its deps.
    const second = await startTestApp({ runWorkers: 0 }, t);
    try {
      const { Housekeeping } = await import('../../src/engine/housekeeping.js');
      const other = new Housekeeping(second.app.deps, { tickMs: 60_000 });
      // The first instance swept at `clock`: within the hour the sweep is not the other's turn, after it it is.
      expect(await t.app.housekeeping!.sweepAudit(later())).toBe(0);
      expect(await other.sweepAudit(clock + 60_000)).toBeNull();
      expect(await other.sweepAudit(later())).toBe(0);

      const config = { ...second.app.deps.config, runItemRetentionDays: 0, inboxRetentionDays: 0, auditRetentionDays: 0 };
      const keeping = new Housekeeping({ ...second.app.deps, config }, { tickMs: 60_000 });
      await sql(`UPDATE runs SET sealed_at = now() - interval '10 years' WHERE sealed_at IS NOT NULL`);
      await sql(`UPDATE audit_events SET created_at = now() - interval '10 years'`);
      const stored = async () => (await sql(`SELECT (SELECT count(*) FROM run_items) + (SELECT count(*) FROM audit_events) AS n`))[0].n;
      const before = await stored();
      expect(await keeping.sweepRunItems(later())).toBeNull();
      expect(await keeping.sweepInbox(later())).toBeNull();
      expect(await keeping.sweepAudit(later())).toBeNull();
      expect(await stored()).toBe(before);
    } finally {
      await second.stop();
    }
  });
});
