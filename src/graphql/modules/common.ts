// Shapes shared by every domain module: pages and version/ETag fields.
import { formatEtag } from '../../lib/etag.js';
import type { Page } from '../../lib/cursor.js';
import { builder } from '../builder.js';

/** A `{items, nextCursor}` page type for a list of `item`. */
export function pageOf<T>(name: string, item: Parameters<typeof builder.objectRef<T>>[0] extends string ? any : any) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      items: t.field({ type: [item], resolve: (page) => page.items }),
      nextCursor: t.string({ nullable: true, resolve: (page) => page.nextCursor }),
    }),
  });
}

export const etagOf = (row: { id: string; version: number }) => formatEtag(row.id, row.version);

/**
 * The fields every versioned view carries: version, etag and the four audit stamps.
 * (`t` is the Prisma object field builder of the calling type; its model has these columns.)
 */
export function versionedFields(t: any) {
  return {
    version: t.exposeInt('version'),
    etag: t.string({ resolve: etagOf }),
    createdById: t.exposeString('createdById'),
    updatedById: t.exposeString('updatedById'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  } as Record<string, any>;
}
