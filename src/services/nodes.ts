// Loading nodes by global id (GraphQL `node` and `nodes`): one statement per node type for any
// number of ids, each row in the caller's workspace or nothing — an id of another workspace loads
// exactly as an id that does not exist, so the answer never tells the two apart. Rows come back as
// the services return them elsewhere (run items with their public content refs, inbox entries with
// their thread's ETag), in the order of the ids asked, null where there is none.
import {
  Prisma,
  type Asset,
  type Connection,
  type Environment,
  type EnvironmentTemplate,
  type Finding,
  type FindingAnalysis,
  type InboxEntry,
  type Memory,
  type Model,
  type Provider,
  type Run,
  type Session,
  type Thread,
} from '../generated/prisma/client.js';
import { formatEtag } from '../lib/etag.js';
import { parseModelNodeId } from '../lib/node-ids.js';
import { returningColumns } from '../storage/columns.js';
import type { CallContext } from './call-context.js';
import type { InboxEntryView } from './inbox.js';
import { requirePermission } from './permissions.js';
import { publicRefs, type ItemView } from './run-items.js';
import type { HeadRow, RevisionedKind, RevisionRow } from './revisioned.js';

/** Reading nodes needs `read`, like every other read; checked before any id is looked at. */
export function requireNodeReader(call: CallContext): void {
  requirePermission(call.actor, 'read');
}

/** `rows` in the order of `ids` (ids may repeat), null where no row has the id. */
export function inIdOrder<T>(ids: readonly string[], rows: readonly T[], idOf: (row: T) => string): (T | null)[] {
  const byId = new Map(rows.map((row) => [idOf(row), row]));
  return ids.map((id) => byId.get(id) ?? null);
}

/** The loader of one node type: the rows of `ids` in the caller's workspace, in any order. */
export type NodeRowsLoader<T> = (call: CallContext, ids: readonly string[]) => Promise<T[]>;

const inWorkspace = (call: CallContext, ids: readonly string[]) => ({ id: { in: [...ids] }, workspaceId: call.actor.workspaceId });

export const loadRuns: NodeRowsLoader<Run> = (call, ids) => call.db.run.findMany({ where: inWorkspace(call, ids) });

export const loadThreads: NodeRowsLoader<Thread> = (call, ids) => call.db.thread.findMany({ where: inWorkspace(call, ids) });

export const loadSessions: NodeRowsLoader<Session> = (call, ids) => call.db.session.findMany({ where: inWorkspace(call, ids) });

export const loadProviders: NodeRowsLoader<Provider> = (call, ids) => call.db.provider.findMany({ where: inWorkspace(call, ids) });

export const loadConnections: NodeRowsLoader<Connection> = (call, ids) => call.db.connection.findMany({ where: inWorkspace(call, ids) });
export const loadEnvironmentTemplates: NodeRowsLoader<EnvironmentTemplate> = (call, ids) =>
  call.db.environmentTemplate.findMany({ where: inWorkspace(call, ids) });

export const loadEnvironments: NodeRowsLoader<Environment> = (call, ids) => call.db.environment.findMany({ where: inWorkspace(call, ids) });

/** Assets without their bytes (read when `contentBase64` asks: services/assets.ts). */
export const loadAssets: NodeRowsLoader<Asset> = async (call, ids) =>
  (await call.db.asset.findMany({ where: inWorkspace(call, ids), omit: { content: true } })) as Asset[];

export const loadFindings: NodeRowsLoader<Finding> = (call, ids) => call.db.finding.findMany({ where: inWorkspace(call, ids) });

export const loadFindingAnalyses: NodeRowsLoader<FindingAnalysis> = (call, ids) =>
  call.db.findingAnalysis.findMany({ where: inWorkspace(call, ids) });

export const loadMemories: NodeRowsLoader<Memory> = (call, ids) => call.db.memory.findMany({ where: inWorkspace(call, ids) });

/** Run items as the items page shows them: the stored full text of large content hidden. */
export const loadRunItems: NodeRowsLoader<ItemView> = async (call, ids) =>
  (await call.db.runItem.findMany({ where: inWorkspace(call, ids) })).map((item) => ({
    ...item,
    contentRefs: publicRefs(item.contentRefs),
  }));

/** Models by global id (`mdl_<workspaceId>:<key>`): only those of the caller's workspace are looked up. */
export const loadModels: NodeRowsLoader<Model> = async (call, ids) => {
  const keys = ids.map(parseModelNodeId).flatMap((parsed) => (parsed?.workspaceId === call.actor.workspaceId ? [parsed.key] : []));
  if (keys.length === 0) return [];
  return call.db.model.findMany({ where: { workspaceId: call.actor.workspaceId, key: { in: keys } } });
};

const ENTRY_COLUMNS = returningColumns(Prisma.InboxEntryScalarFieldEnum, 'e');

/** Inbox entries with their thread's ETag (what an edit names in ifMatch), in one statement. */
export const loadInboxEntries: NodeRowsLoader<InboxEntryView> = async (call, ids) => {
  const rows = await call.db.$queryRaw<(InboxEntry & { threadVersion: number })[]>`
    SELECT ${ENTRY_COLUMNS}, t.version AS "threadVersion"
    FROM inbox_entries e JOIN threads t ON t.id = e.thread_id
    WHERE e.id IN (${Prisma.join([...ids])}) AND e.workspace_id = ${call.actor.workspaceId}`;
  return rows.map(({ threadVersion, ...entry }) => ({ ...entry, threadEtag: formatEtag(entry.threadId, threadVersion) }));
};

/** The heads and the revisions of a revisioned kind (agents, skills). */
export function revisionedLoaders<H extends HeadRow, R extends RevisionRow>(
  kind: RevisionedKind<H, R>,
): { heads: NodeRowsLoader<H>; revisions: NodeRowsLoader<R> } {
  return {
    heads: (call, ids) => kind.headDelegate(call.db).findMany({ where: inWorkspace(call, ids) }) as Promise<H[]>,
    revisions: (call, ids) => kind.revisionDelegate(call.db).findMany({ where: inWorkspace(call, ids) }) as Promise<R[]>,
  };
}
