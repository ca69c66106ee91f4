// The list relations as Relay connections (Thread.runs, Run.items, Agent.revisions, Memory.records…):
// each is the root list it mirrors filtered by the parent (same order, page sizes and cursors), and
// each module declares the list relations of its own types with `relationConnection` (a relation
// between two modules in the one that imports the other). Without N+1: the parents of one level
// asking with the same arguments are batched by a DataLoader into one service call, which reads all
// their pages in one statement (src/services/relation-pages.ts).
import DataLoader from 'dataloader';
import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { connectionArgs, connectionFrom, type ConnectionArgs, type Types } from './common.js';
import type { CallContext } from '../../services/call-context.js';
import type { Page } from '../../lib/cursor.js';
import type { RelationPageArgs, RelationPages } from '../../services/relation-pages.js';

/** Loads the pages of many parents at once: the service call of one relation. */
export type PagesOf<P, T, A> = (call: CallContext, parents: readonly P[], args: A) => Promise<RelationPages<T>>;

/** For the relations whose service takes the parents' ids. */
export const byIds =
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

/**
 * Resolves the relation `name` of `parent` as a connection, batched with the other parents of its
 * level (`name` keys the batch: one per relation, unique in the schema).
 */
export function relationConnection<P extends { id: string }, T, A extends RelationPageArgs>(
  args: ConnectionArgs,
  ctx: GraphQLContext,
  parent: P,
  name: string,
  pagesOf: PagesOf<P, T, A>,
  extra: Omit<A, keyof RelationPageArgs>,
) {
  return connectionFrom(args, (page) => pageLoader(ctx, name, pagesOf, { ...extra, ...page } as A).load(parent));
}

/** What every list relation's description ends with. */
export const RELATION_PAGE_DESCRIPTION = 'At most 100 a page (default 50); one statement for all the objects of a level.';

/**
 * Adds the list relation `name` to `parent`: a connection of `type` whose pages of all the parents
 * of a level come from one `pages` call with the parents' ids. For relations with arguments of their
 * own, declare the field and resolve it with `relationConnection`.
 */
export function childConnection<P extends { id: string }, T>(
  parent: ObjectRef<Types, P>,
  name: string,
  options: {
    type: ObjectRef<Types, unknown>;
    pages: (call: CallContext, ids: readonly string[], args: RelationPageArgs) => Promise<RelationPages<T>>;
    description: string;
  },
): void {
  const key = `${parent.name}.${name}`;
  // Pothos cannot check a resolver against a type parameter's shape; `options` ties the two together.
  const type = options.type as ObjectRef<Types, object>;
  builder.objectField(parent, name, (t) =>
    t.field({
      type,
      description: `${options.description} ${RELATION_PAGE_DESCRIPTION}`,
      args: connectionArgs(t.arg),
      resolve: (row, args, ctx) => relationConnection(args, ctx, row, key, byIds(options.pages), {}) as Promise<object>,
    }),
  );
}
