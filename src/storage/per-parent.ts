// The first rows of many parents' lists in one statement (a list relation of many objects, e.g. the
// first five runs of each of twenty threads): the parents are read from their table in the caller's
// workspace and each one's rows come from a LATERAL subquery that walks the child table's index in
// list order and stops after `take` rows — never the parents' whole lists, never one statement per
// parent.
import { Prisma } from '../generated/prisma/client.js';
import { returningColumns } from './columns.js';

export interface PerParentQuery {
  /** The parents' table (`threads`); only rows of `workspaceId` are read. */
  parentTable: string;
  parentIds: readonly string[];
  workspaceId: string;
  /** The children's table (`runs`), its foreign key to the parent (`thread_id`) and its scalar fields (Prisma's enum). */
  childTable: string;
  foreignKey: string;
  childFields: Record<string, string>;
  /** More conditions on the children (alias `c`): filters and the keyset position; `Prisma.empty` for none. */
  where: Prisma.Sql;
  /** The list order on alias `c` (`c."id" DESC`), matching an index that starts with the foreign key. */
  orderBy: string;
  take: number;
  /** More columns of the parent (alias `p`) on every row, e.g. `p."version" AS "parentVersion"`. */
  parentColumns?: Prisma.Sql;
}

/**
 * Rows shaped like the child model's (`returningColumns`) plus `parentId`, grouped by parent and in
 * list order within each parent.
 */
export function firstRowsPerParent(query: PerParentQuery): Prisma.Sql {
  const extra = query.parentColumns ? Prisma.sql`, ${query.parentColumns}` : Prisma.empty;
  const where = query.where === Prisma.empty ? Prisma.empty : Prisma.sql`AND ${query.where}`;
  return Prisma.sql`
    SELECT p."id" AS "parentId"${extra}, ${returningColumns(query.childFields, 'c')}
    FROM ${Prisma.raw(`"${query.parentTable}"`)} p
    CROSS JOIN LATERAL (
      SELECT * FROM ${Prisma.raw(`"${query.childTable}"`)} c
      WHERE c.${Prisma.raw(`"${query.foreignKey}"`)} = p."id" ${where}
      ORDER BY ${Prisma.raw(query.orderBy)}
      LIMIT ${query.take}
    ) c
    WHERE p."id" IN (${Prisma.join([...query.parentIds])}) AND p."workspace_id" = ${query.workspaceId}
    ORDER BY p."id", ${Prisma.raw(query.orderBy)}`;
}

/** The rows of each parent, in the order of `parentIds` (none for a parent without rows). */
export function rowsByParent<R extends { parentId: string }>(rows: readonly R[], parentIds: readonly string[]): R[][] {
  const byParent = new Map<string, R[]>();
  for (const row of rows) {
    const list = byParent.get(row.parentId);
    if (list) list.push(row);
    else byParent.set(row.parentId, [row]);
  }
  return parentIds.map((id) => byParent.get(id) ?? []);
}
