// Shapes shared by every domain module: pages and version/ETag fields.
import { formatEtag } from '../../lib/etag.js';
import type { Page } from '../../lib/cursor.js';
import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';

/** The schema builder's type parameters, for helpers that take or return its refs. */
export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** A `{items, nextCursor}` page type for a list of `item`. */
export function pageOf<T>(name: string, item: ObjectRef<Types, T>) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      items: t.field({ type: [item], resolve: (page) => page.items }),
      nextCursor: t.string({ nullable: true, resolve: (page) => page.nextCursor }),
    }),
  });
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
