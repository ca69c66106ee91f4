// The list relations as Relay connections: Thread → runs and inbox, Session → threads, Run → items,
// Agent → revisions, Skill → revisions, Memory → records. Each is the root list it mirrors filtered
// by the parent (same order, page sizes and cursors). Without N+1: the parents of one level asking
// with the same arguments are batched by a DataLoader into one service call, which reads all their
// pages in one statement (src/services/relation-pages.ts).
import DataLoader from 'dataloader';
import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { connectionArgs, connectionFrom, connectionOf, type ConnectionArgs, type Types } from './common.js';
import { InboxEntryStatusEnum } from './enums.js';
import { AgentRef, AgentRevisionConnection } from './agents.js';
import { SkillRef, SkillRevisionConnection } from './skills.js';
import { InboxEntryConnection } from './inbox.js';
import { FindingAnalysisRef, FindingConnection } from './findings.js';
import { MemoryRecordConnection } from './memories.js';
import { RunItemRef } from './run-items.js';
import { RunConnection, RunRef } from './runs.js';
import { SessionRef } from './sessions.js';
import { ThreadConnection, ThreadRef } from './threads.js';
import type { CallContext } from '../../services/call-context.js';
import type { Page } from '../../lib/cursor.js';
import {
  agentRevisionPages,
  analysisFindingPages,
  runItemPages,
  sessionThreadPages,
  skillRevisionPages,
  threadInboxPages,
  threadRunPages,
  type RelationPageArgs,
  type RelationPages,
} from '../../services/relation-pages.js';
import { memoryRecordPages } from '../../services/memories.js';

const RunItemConnection = connectionOf('RunItem', RunItemRef);

/** Loads the pages of many parents at once: the service call of one relation. */
type PagesOf<P, T, A> = (call: CallContext, parents: readonly P[], args: A) => Promise<RelationPages<T>>;

/** For the relations whose service takes the parents' ids. */
const byIds =
  <T, A>(pages: (call: CallContext, ids: readonly string[], args: A) => Promise<RelationPages<T>>): PagesOf<{ id: string }, T, A> =>
  (call, parents, args) =>
    pages(
      call,
      parents.map((parent) => parent.id),
      args,
    );

/** One DataLoader per request, relation and arguments: the parents of a level asking alike share one batch. */
const loaders = new WeakMap<GraphQLContext, Map<string, DataLoader<{ id: string }, Page<unknown>, string>>>();

function pageLoader<P extends { id: string }, T, A>(ctx: GraphQLContext, name: string, pagesOf: PagesOf<P, T, A>, args: A) {
  let perRequest = loaders.get(ctx);
  if (!perRequest) loaders.set(ctx, (perRequest = new Map()));
  const key = `${name}:${JSON.stringify(args)}`;
  let loader = perRequest.get(key);
  if (!loader) {
    loader = new DataLoader<P, Page<unknown>, string>(async (parents) => pagesOf(await ctx.call(), parents, args), {
      cacheKeyFn: (parent) => parent.id,
    }) as unknown as DataLoader<{ id: string }, Page<unknown>, string>;
    perRequest.set(key, loader);
  }
  return loader as unknown as DataLoader<P, Page<T>, string>;
}

/** Resolves the relation `name` of `parent` as a connection, batched with the other parents of its level. */
function relationField<P extends { id: string }, T, A extends RelationPageArgs>(
  args: ConnectionArgs,
  ctx: GraphQLContext,
  parent: P,
  name: string,
  pagesOf: PagesOf<P, T, A>,
  extra: Omit<A, keyof RelationPageArgs>,
) {
  return connectionFrom(args, (page) => pageLoader(ctx, name, pagesOf, { ...extra, ...page } as A).load(parent));
}

const DESCRIPTION = 'At most 100 a page (default 50); one statement for all the objects of a level.';

builder.objectFields(ThreadRef as ObjectRef<Types, { id: string }>, (t) => ({
  runs: t.field({
    type: RunConnection,
    description: `The thread's runs, newest first: \`runs(threadId:)\` (its cursors too). ${DESCRIPTION}`,
    args: connectionArgs(t.arg),
    resolve: (thread, args, ctx) => relationField(args, ctx, thread, 'thread-runs', byIds(threadRunPages), {}),
  }),
  inbox: t.field({
    type: InboxEntryConnection,
    description: `The thread's inbox in inbox order: \`inboxEntries(threadId:)\` (its cursors too). ${DESCRIPTION}`,
    args: { status: t.arg({ type: [InboxEntryStatusEnum] }), ...connectionArgs(t.arg) },
    resolve: (thread, args, ctx) =>
      relationField(args, ctx, thread, 'thread-inbox', byIds(threadInboxPages), { status: args.status ? [...args.status] : null }),
  }),
}));

builder.objectField(SessionRef as ObjectRef<Types, { id: string }>, 'threads', (t) =>
  t.field({
    type: ThreadConnection,
    description: `The session's threads, newest first: \`threads(sessionId:)\` (its cursors too). ${DESCRIPTION}`,
    args: connectionArgs(t.arg),
    resolve: (session, args, ctx) => relationField(args, ctx, session, 'session-threads', byIds(sessionThreadPages), {}),
  }),
);

builder.objectField(RunRef as ObjectRef<Types, { id: string }>, 'items', (t) =>
  t.field({
    type: RunItemConnection,
    description: `The run's stored items by ordinal (a running run's newest changes are stored about 20 ms after \`runItems\` shows them). ${DESCRIPTION}`,
    args: connectionArgs(t.arg),
    resolve: (run, args, ctx) => relationField(args, ctx, run, 'run-items', byIds(runItemPages), {}),
  }),
);

builder.objectField(AgentRef as ObjectRef<Types, { id: string }>, 'revisions', (t) =>
  t.field({
    type: AgentRevisionConnection,
    description: `The agent's revisions, newest first: \`agentRevisions(agentId:)\` (its cursors too). ${DESCRIPTION}`,
    args: connectionArgs(t.arg),
    resolve: (agent, args, ctx) => relationField(args, ctx, agent, 'agent-revisions', byIds(agentRevisionPages), {}),
  }),
);

builder.objectField(SkillRef as ObjectRef<Types, { id: string }>, 'revisions', (t) =>
  t.field({
    type: SkillRevisionConnection,
    description: `The skill's revisions, newest first: \`skillRevisions(skillId:)\` (its cursors too). ${DESCRIPTION}`,
    args: connectionArgs(t.arg),
    resolve: (skill, args, ctx) => relationField(args, ctx, skill, 'skill-revisions', byIds(skillRevisionPages), {}),
  }),
);

builder.prismaObjectField('Memory', 'records', (t) =>
  t.field({
    type: MemoryRecordConnection,
    description:
      "The memory's records in its provider's order: `memoryRecords(memoryId:)` (its cursors too). At most 100 a page (default 50); the built-in provider's records of all the memories of a level in one statement, an external provider's with one request per memory.",
    args: connectionArgs(t.arg),
    resolve: (memory, args, ctx) => relationField(args, ctx, memory, 'memory-records', memoryRecordPages, {}),
  }),
);

builder.objectField(FindingAnalysisRef as ObjectRef<Types, { id: string }>, 'findings', (t) =>
  t.field({
    type: FindingConnection,
    description: `The findings this analysis created or updated, exactly, as they are now (a finding found again later names the later analysis in \`analysisId\` but stays listed here); newest first. ${DESCRIPTION}`,
    args: {
      change: t.arg.string({ description: 'created | updated: only the findings this analysis created, or only those it found again' }),
      ...connectionArgs(t.arg),
    },
    resolve: (analysis, args, ctx) =>
      relationField(args, ctx, analysis, 'analysis-findings', byIds(analysisFindingPages), { change: args.change ?? null }),
  }),
);
