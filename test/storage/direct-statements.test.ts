// The run path's statements sent to node-postgres directly (queryDirect) return the rows $queryRaw
// returns — the same values and types (Dates, parsed JSON, int8 as BigInt) — count as operations,
// and inside a transaction run on the transaction's connection: a rollback undoes them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { queryDirect } from '../../src/db.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { RUN_COLUMNS } from '../../src/storage/columns.js';

let t: TestApp;
let runId: string;
beforeAll(async () => {
  t = await startTestApp({ runWorkers: 1 });
  await insertModel(t, 'dev');
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'direct', config: { model: 'dev' } } });
  const run = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'hi' }] } },
  });
  runId = run.body.id;
  await settleRun(t, runId);
});
afterAll(async () => t?.stop());

describe('queryDirect', () => {
  it('returns a run row exactly as $queryRaw does, and counts as one operation', async () => {
    const db = t.app.deps.db;
    const statement = Prisma.sql`SELECT ${RUN_COLUMNS}, 9007199254740993::bigint AS "big", NULL::bigint AS "none" FROM runs WHERE id = ${runId}`;
    const before = t.app.database.operationCount();
    const [direct] = await queryDirect<Record<string, unknown>>(db, statement);
    expect(t.app.database.operationCount() - before).toBe(1);
    const [prisma] = await db.$queryRaw<Record<string, unknown>[]>(statement);
    expect(direct).toEqual(prisma);
    expect(direct!.createdAt).toBeInstanceOf(Date);
    expect(direct!.input).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(direct!.big).toBe(9007199254740993n);
    expect(direct!.none).toBeNull();
    expect(direct!.status).toBe('completed');
  });

  it('runs on the transaction connection inside a transaction: a rollback undoes its write', async () => {
    const db = t.app.deps.db;
    const relabel = (tx: Parameters<typeof queryDirect>[0], labels: string) =>
      queryDirect<{ labels: unknown }>(tx, Prisma.sql`UPDATE runs SET labels = ${labels}::jsonb WHERE id = ${runId} RETURNING labels`);
    await expect(
      db.$transaction(async (tx) => {
        expect((await relabel(tx, '{"inside":"yes"}'))[0]!.labels).toEqual({ inside: 'yes' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const [row] = await queryDirect<{ labels: unknown }>(db, Prisma.sql`SELECT labels FROM runs WHERE id = ${runId}`);
    expect(row!.labels).toEqual({});
  });
});
