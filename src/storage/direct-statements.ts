// The run path's hot statements sent to node-postgres directly, not through Prisma's query layer.
// Each of a run's few statements (create, claim, seal, the reads of a run and its items) is one
// multi-CTE statement written as SQL already; Prisma's `$queryRaw` around it cost 110–140 µs of CPU
// per statement against ~30 µs through the pool itself (docs/benchmarks.md, "Run overhead"). The rows
// come back shaped as `$queryRaw` shapes them — the statements select Prisma's column names, and the
// types the run path reads map the same: text, int4, boolean, timestamptz → Date, json/jsonb parsed —
// except int8, which node-postgres reads as a string and Prisma as a BigInt; it is read as a BigInt
// here too. numeric (a Decimal in Prisma) is not mapped: a statement returning one stays on Prisma.
//
// Only a statement on the client itself goes direct. Inside an interactive transaction the statement
// must run on the transaction's connection, which only Prisma's transaction client holds: there it
// goes through `$queryRaw` as before, so atomicity is unchanged.
import pg from 'pg';
import type { Prisma } from '../generated/prisma/client.js';
import { preparedStatementNames } from './prepared-statements.js';

const INT8_OID = 20;

/** Type parsers as Prisma's raw results have them (see above): pg's own, int8 as BigInt. */
const prismaLikeTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

export interface DirectStatements {
  query<Row>(statement: Prisma.Sql): Promise<Row[]>;
}

/**
 * Runs statements on `pool`, counted by `count` as Prisma operations are (the tests that prove a path
 * makes no per-row queries count both), named for PostgreSQL to prepare when `prepared` is on (the
 * same rule as Prisma's statements, with names of their own).
 */
export function directStatements(pool: pg.Pool, options: { prepared: boolean; count: () => void }): DirectStatements {
  // A handful of statement shapes: 64 names bound the plans each backend keeps for them.
  const nameOf = options.prepared ? preparedStatementNames({ prefix: 'wsa_direct_', limit: 64 }) : () => '';
  return {
    async query<Row>(statement: Prisma.Sql): Promise<Row[]> {
      options.count();
      const text = statement.text;
      const name = nameOf({ sql: text });
      const result = await pool.query({ ...(name ? { name } : {}), text, values: statement.values, types: prismaLikeTypes });
      return result.rows as Row[];
    },
  };
}
