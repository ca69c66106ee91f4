// The list relations of many objects at once — a thread's runs and inbox, a session's threads, a
// run's items, an agent's or skill's revisions — for GraphQL connections batched per request: one
// statement for any number of parents (src/storage/per-parent.ts). Each relation is the root list it
// mirrors, filtered by the parent: the same order, page sizes and cursors (a cursor of `runs` works
// in `Thread.runs`, one of `inboxEntries(threadId:)` in that thread's `inbox`), so a client pages a
// relation further with either.
import {
  Prisma,
  type AgentRevision,
  type Finding,
  type InboxEntry,
  type Run,
  type RunItem,
  type SkillRevision,
  type Thread,
} from '../generated/prisma/client.js';
import { decodeCursor, pageSize, toPage, mapPage, type Page } from '../lib/cursor.js';
import { formatEtag } from '../lib/etag.js';
import { invalidArgument } from '../lib/errors.js';
import { returningColumns } from '../storage/columns.js';
import { firstRowsPerParent, rowsByParent, type PerParentQuery } from '../storage/per-parent.js';
import type { CallContext } from './call-context.js';
import type { ItemView } from './event-topics.js';
import { ENTRY_STATUSES, type InboxEntryView } from '../features/runs/inbox.js';
import { requirePermission } from '../features/access/permissions.js';
import { publicRefs } from '../features/runs/run-items.js';
import { withStoredAppends } from '../features/runs/item-appends.js';

export interface RelationPageArgs {
  limit?: number | null;
  cursor?: string | null;
}

/** Per parent, in the order asked: its page, or why its page cannot be answered (a cursor of another parent's list). */
export type RelationPages<T> = (Page<T> | Error)[];

interface Relation<Row, T> {
  /** The list's name in cursors, per parent. */
  list(parentId: string): string;
  /** Whether positions are integers (ordinals, positions, revision numbers). */
  numeric?: boolean;
  /** The statement for these parents from `position` (null: the start), `take` rows each. */
  query(parentIds: readonly string[], position: string | number | null, take: number): Prisma.Sql;
  /** What the rows need read besides the statement (e.g. open items' appends), before paging. */
  complete?(rows: Row[]): Promise<Row[]>;
  keyOf(row: Row): (string | number)[];
  view(row: Row): T;
}

/**
 * The pages of `parentIds`: the page size checked once, the cursor decoded against each parent's
 * list (valid ones all carry the same position: the cursor is one text), then one statement.
 */
async function relationPages<Row extends { parentId: string }, T>(
  call: CallContext,
  parentIds: readonly string[],
  args: RelationPageArgs,
  relation: Relation<Row, T>,
): Promise<RelationPages<T>> {
  requirePermission(call.actor, 'read');
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const positions = parentIds.map((id) => {
    try {
      return decodeCursor(relation.list(id), args.cursor, relation.numeric);
    } catch (error) {
      return error as Error;
    }
  });
  const readable = parentIds.filter((_, index) => !(positions[index] instanceof Error));
  const position = (positions.find((p) => !(p instanceof Error)) as (string | number | null)[] | null | undefined) ?? null;
  let rows = readable.length ? await call.db.$queryRaw<Row[]>(relation.query(readable, position?.[0] ?? null, size + 1)) : [];
  if (relation.complete) rows = await relation.complete(rows);
  const grouped = rowsByParent(rows, parentIds);
  return parentIds.map((id, index) => {
    const problem = positions[index];
    if (problem instanceof Error) return problem;
    return mapPage(toPage(grouped[index]!, size, relation.list(id), relation.keyOf), relation.view);
  });
}

const perParent = (call: CallContext, query: Omit<PerParentQuery, 'workspaceId'>) =>
  firstRowsPerParent({ ...query, workspaceId: call.actor.workspaceId });

const without = <R extends { parentId: string }>({ parentId: _parent, ...row }: R) => row;

/** A parent's children newest first (by id); the child table names the list its cursors belong to. */
function newestChildPages<Child extends { id: string }>(
  call: CallContext,
  parentIds: readonly string[],
  args: RelationPageArgs,
  tables: Pick<PerParentQuery, 'parentTable' | 'childTable' | 'foreignKey' | 'childFields'>,
) {
  return relationPages<Child & { parentId: string }, Omit<Child & { parentId: string }, 'parentId'>>(call, parentIds, args, {
    list: () => tables.childTable,
    query: (parentIds, after, take) =>
      perParent(call, {
        ...tables,
        parentIds,
        where: after === null ? Prisma.empty : Prisma.sql`c."id" < ${String(after)}`,
        orderBy: 'c."id" DESC',
        take,
      }),
    keyOf: (row) => [row.id],
    view: without,
  });
}

/** `Thread.runs`: newest first, as `runs(threadId:)`. */
export const threadRunPages = (call: CallContext, threadIds: readonly string[], args: RelationPageArgs) =>
  newestChildPages<Run>(call, threadIds, args, {
    parentTable: 'threads',
    childTable: 'runs',
    foreignKey: 'thread_id',
    childFields: Prisma.RunScalarFieldEnum,
  });

/** `Session.threads`: newest first, as `threads(sessionId:)`. */
export const sessionThreadPages = (call: CallContext, sessionIds: readonly string[], args: RelationPageArgs) =>
  newestChildPages<Thread>(call, sessionIds, args, {
    parentTable: 'sessions',
    childTable: 'threads',
    foreignKey: 'session_id',
    childFields: Prisma.ThreadScalarFieldEnum,
  });

/** `Thread.inbox`: in inbox order, as `inboxEntries(threadId:)` (with the thread's ETag on each entry). */
export function threadInboxPages(
  call: CallContext,
  threadIds: readonly string[],
  args: RelationPageArgs & { status?: readonly string[] | null },
) {
  for (const status of args.status ?? [])
    if (!(ENTRY_STATUSES as readonly string[]).includes(status))
      throw invalidArgument(`status must be one of ${ENTRY_STATUSES.join(', ')}`, 'status');
  const statuses = args.status?.length ? Prisma.sql`c."status" IN (${Prisma.join([...args.status])})` : null;
  return relationPages<InboxEntry & { parentId: string; threadVersion: number }, InboxEntryView>(call, threadIds, args, {
    list: (threadId) => `inbox:${threadId}`,
    numeric: true,
    query: (parentIds, after, take) => {
      const keyset = after === null ? null : Prisma.sql`c."position" > ${Number(after)}`;
      const conditions = [statuses, keyset].filter((part): part is Prisma.Sql => part !== null);
      return perParent(call, {
        parentTable: 'threads',
        parentIds,
        childTable: 'inbox_entries',
        foreignKey: 'thread_id',
        childFields: Prisma.InboxEntryScalarFieldEnum,
        where: conditions.length ? Prisma.join(conditions, ' AND ') : Prisma.empty,
        orderBy: 'c."position" ASC',
        take,
        parentColumns: Prisma.sql`p."version" AS "threadVersion"`,
      });
    },
    keyOf: (row) => [row.position],
    view: ({ parentId, threadVersion, ...entry }) => ({ ...entry, threadEtag: formatEtag(parentId, threadVersion) }),
  });
}

/**
 * `Run.items`: the stored items by ordinal (large content's full text hidden, as everywhere). A
 * running run's newest changes reach its stored items about 20 ms later; `runItems` answers them
 * at once.
 */
export function runItemPages(call: CallContext, runIds: readonly string[], args: RelationPageArgs) {
  return relationPages<RunItem & { parentId: string }, ItemView>(call, runIds, args, {
    list: (runId) => `run-items:${runId}`,
    numeric: true,
    query: (parentIds, after, take) =>
      perParent(call, {
        parentTable: 'runs',
        parentIds,
        childTable: 'run_items',
        foreignKey: 'run_id',
        childFields: Prisma.RunItemScalarFieldEnum,
        where: after === null ? Prisma.empty : Prisma.sql`c."ordinal" > ${Number(after)}`,
        orderBy: 'c."ordinal" ASC',
        take,
      }),
    // Open items with the text appended since their row was written (see item-appends.ts).
    complete: (rows) => withStoredAppends(call.db, rows),
    keyOf: (row) => [row.ordinal],
    view: ({ parentId: _run, ...item }) => ({ ...item, contentRefs: publicRefs(item.contentRefs) }),
  });
}

const revisionRelation = <R extends AgentRevision | SkillRevision>(
  call: CallContext,
  kind: 'agent' | 'skill',
  fields: Record<string, string>,
): Relation<R & { parentId: string }, R> => ({
  list: (headId) => `${kind}-revisions:${headId}`,
  numeric: true,
  query: (parentIds, after, take) =>
    perParent(call, {
      parentTable: `${kind}s`,
      parentIds,
      childTable: `${kind}_revisions`,
      foreignKey: `${kind}_id`,
      childFields: fields,
      where: after === null ? Prisma.empty : Prisma.sql`c."number" < ${Number(after)}`,
      orderBy: 'c."number" DESC',
      take,
    }),
  keyOf: (row) => [row.number],
  view: (row) => without(row) as unknown as R,
});

/** `Agent.revisions`: newest first, as `agentRevisions(agentId:)`. */
export const agentRevisionPages = (call: CallContext, agentIds: readonly string[], args: RelationPageArgs) =>
  relationPages(call, agentIds, args, revisionRelation<AgentRevision>(call, 'agent', Prisma.AgentRevisionScalarFieldEnum));

/** `Skill.revisions`: newest first, as `skillRevisions(skillId:)`. */
export const skillRevisionPages = (call: CallContext, skillIds: readonly string[], args: RelationPageArgs) =>
  relationPages(call, skillIds, args, revisionRelation<SkillRevision>(call, 'skill', Prisma.SkillRevisionScalarFieldEnum));

/** What an analysis did to a finding it recorded (the `change` of `FindingAnalysis.findings`). */
export const ANALYSIS_CHANGES = ['created', 'updated'] as const;
const FINDING_COLUMNS = returningColumns(Prisma.FindingScalarFieldEnum, 'c');

/**
 * `FindingAnalysis.findings`: the findings each analysis created or updated, exactly (its links in
 * finding_analysis_findings, written with the findings), as they are now; newest first; `change`
 * narrows to the ones it created or found again. One statement for any number of analyses.
 */
export function analysisFindingPages(
  call: CallContext,
  analysisIds: readonly string[],
  args: RelationPageArgs & { change?: string | null },
) {
  if (args.change != null && !(ANALYSIS_CHANGES as readonly string[]).includes(args.change))
    throw invalidArgument(`change must be one of ${ANALYSIS_CHANGES.join(', ')}`, 'change');
  const change = args.change != null ? Prisma.sql`AND l."change" = ${args.change}` : Prisma.empty;
  return relationPages<Finding & { parentId: string }, Finding>(call, analysisIds, args, {
    list: () => 'analysis-findings',
    query: (parentIds, after, take) => {
      const keyset = after === null ? Prisma.empty : Prisma.sql`AND l."finding_id" < ${String(after)}`;
      // The links walk their primary key (analysis_id, finding_id) backwards; findings are never deleted.
      return Prisma.sql`
        SELECT p."id" AS "parentId", ${FINDING_COLUMNS}
        FROM "finding_analyses" p
        CROSS JOIN LATERAL (
          SELECT l."finding_id" FROM "finding_analysis_findings" l
          WHERE l."analysis_id" = p."id" ${change} ${keyset}
          ORDER BY l."finding_id" DESC
          LIMIT ${take}
        ) l
        JOIN "findings" c ON c."id" = l."finding_id" AND c."workspace_id" = p."workspace_id"
        WHERE p."id" IN (${Prisma.join([...parentIds])}) AND p."workspace_id" = ${call.actor.workspaceId}
        ORDER BY p."id", c."id" DESC`;
    },
    keyOf: (row) => [row.id],
    view: without,
  });
}
