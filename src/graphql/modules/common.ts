// Shapes shared by every domain module: pages and version/ETag fields.
import { formatEtag } from '../../lib/etag.js';
import { CONNECTION_ARGUMENTS, renamePageError, type Page } from '../../lib/cursor.js';
import type { ArgBuilder, ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';

/** The schema builder's type parameters, for helpers that take or return its refs. */
export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** What a connection field resolves to: Relay's edges and pageInfo (`nodes` is read from the edges). */
export interface Connection<T> {
  edges: { node: T; readonly cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/**
 * What every connection type has whatever its nodes: the page's `pageInfo`. A document that reads
 * many lists selects where the next page starts with one fragment on it (the REST list documents'
 * `NextPage`) instead of repeating the selection in each.
 */
export const PagedRef = builder.interfaceRef<object>('Paged').implement({
  description: 'a page of a list (every `…Connection` type): where it stands among the pages',
  fields: (t) => ({
    // Each connection type resolves its own pageInfo (the relay plugin's field): nothing to inherit.
    pageInfo: t.field({ type: builder.pageInfoRef(), nullable: false }),
  }),
});

/**
 * The Relay connection type `<name>Connection` over `node`, with its `<name>Edge` (`cursor`, `node`),
 * the shared `PageInfo`, and `nodes` (the edges' nodes, for clients that need no cursors). Each one
 * implements `Paged`.
 */
export function connectionOf<T>(name: string, node: ObjectRef<Types, T>) {
  return builder.connectionObject(
    {
      name: `${name}Connection`,
      type: node,
      interfaces: [PagedRef],
      fields: (t) => ({
        nodes: t.field({
          type: [node],
          description: "the edges' nodes, in the same order",
          resolve: (connection) => (connection as unknown as Connection<T>).edges.map((edge) => edge.node),
        }),
      }),
    },
    { name: `${name}Edge` },
  );
}

/** Page arguments as a connection field takes them (Relay's forward pagination). */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
}

/** Relay's forward pagination arguments: `first` (the page size) and `after` (a cursor). */
export function connectionArgs(arg: ArgBuilder<Types>) {
  return {
    first: arg.int({ description: 'how many to answer at most (each list documents its default and largest page)' }),
    after: arg.string({
      description: "a cursor from this list (an edge's `cursor` or `pageInfo.endCursor`): the page starts after that edge",
    }),
  };
}

/** The connection of a page: one edge per item with the item's own cursor, and the page's pageInfo. */
export function toConnection<T>(page: Page<T>, after: string | null | undefined): Connection<T> {
  const edges = page.items.map((node, index) => ({
    node,
    // Encoded only when asked for (the REST views select no cursors but the last).
    get cursor() {
      return page.cursorAt(index);
    },
  }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.nextCursor !== null,
      // Forward pagination only: a page asked for after a cursor has at least that edge before it.
      hasPreviousPage: Boolean(after),
      startCursor: edges.length ? page.cursorAt(0) : null,
      endCursor: edges.length ? page.cursorAt(edges.length - 1) : null,
    },
  };
}

/**
 * Resolves a connection field from a service's page: `first`/`after` are passed as the service's
 * `limit`/`cursor` (its page sizes and cursor checks are the list's own), and its problems with them
 * are named `first`/`after`, as the caller wrote them.
 */
export async function connectionFrom<T>(
  args: ConnectionArgs,
  load: (page: { limit: number | null | undefined; cursor: string | null | undefined }) => Promise<Page<T>>,
): Promise<Connection<T>> {
  try {
    return toConnection(await load({ limit: args.first, cursor: args.after }), args.after);
  } catch (error) {
    throw renamePageError(error, CONNECTION_ARGUMENTS);
  }
}

export const etagOf = (row: { id: string; version: number }) => formatEtag(row.id, row.version);

interface VersionedRow {
  id?: string;
  key?: string;
  version: number;
  createdById: string;
  updatedById: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * What every live or head resource carries: its version, its ETag ("{id}:{version}", or
 * "{key}:{version}" for models) and the four audit stamps. REST views select it with one fragment.
 */
export const VersionedRef = builder.interfaceRef<VersionedRow>('Versioned').implement({
  fields: (t) => ({
    version: t.exposeInt('version'),
    etag: t.string({ resolve: (row) => formatEtag(row.key ?? row.id ?? '', row.version) }),
    createdById: t.exposeString('createdById'),
    updatedById: t.exposeString('updatedById'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});
