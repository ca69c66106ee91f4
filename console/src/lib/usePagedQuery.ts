// A cursor connection read page by page: the first page through useQuery (so it follows the variables),
// later pages appended on "Load more". New variables, or `refetch` after a change, start over at the
// first page, so a list never mixes pages of two different answers. A row that moved between pages
// (rows added above it since the first page was read) shows once.
import { useCallback, useRef, useState } from 'react';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { useClient, useQuery } from '../api';

import type { PageInfoFragment } from '../../generated/graphql';

export type PageInfo = PageInfoFragment;

/** The part of a list answer this hook reads: the rows of a page and where the next page starts. */
export interface Connection<N> {
  nodes: N[];
  pageInfo: PageInfo;
}

export interface PagedQuery<R, N> {
  /** The first page's whole answer (other fields of the same query live here). */
  data: R | undefined;
  /** Every row loaded so far; empty until the first page arrives (check `data` for "loaded"). */
  nodes: N[];
  hasNextPage: boolean;
  loading: boolean;
  loadingMore: boolean;
  error: unknown;
  loadMore(): void;
  /** Starts over: drops the later pages and reads the first page again. */
  refetch(): Promise<void>;
}

interface LaterPages<N> {
  /** The variables (and start-over count) the pages were read for. */
  key: string;
  pages: Connection<N>[];
  loading: boolean;
  error: unknown;
}

export function usePagedQuery<R, V extends { after?: string | null }, N>(
  document: TypedDocumentNode<R, V>,
  variables: V,
  connectionOf: (data: R) => Connection<N>,
  options: { skip?: boolean } = {},
): PagedQuery<R, N> {
  const client = useClient();
  const first = useQuery(document, variables, options);
  const [restarts, setRestarts] = useState(0);
  const key = `${restarts}|${JSON.stringify(variables)}`;
  const [later, setLater] = useState<LaterPages<N>>({ key, pages: [], loading: false, error: undefined });
  // Pages read for other variables (or before a start-over) no longer belong to this list.
  const current = later.key === key ? later : { key, pages: [], loading: false, error: undefined };
  const pick = useRef(connectionOf);
  pick.current = connectionOf;

  const firstPage = first.data ? connectionOf(first.data) : undefined;
  const lastInfo = current.pages.length > 0 ? current.pages[current.pages.length - 1]!.pageInfo : firstPage?.pageInfo;

  const loadMore = useCallback(() => {
    if (!lastInfo?.hasNextPage || !lastInfo.endCursor) return;
    const pages = current.pages;
    setLater({ key, pages, loading: true, error: undefined });
    const pageVariables = { ...(JSON.parse(key.slice(key.indexOf('|') + 1)) as V), after: lastInfo.endCursor };
    client
      .query(document, ...([pageVariables] as [V]))
      // A page that arrives after the list started over is dropped by the key check.
      .then((data) =>
        setLater((previous) => (previous.key === key ? { ...previous, pages: [...pages, pick.current(data)], loading: false } : previous)),
      )
      .catch((error: unknown) => setLater((previous) => (previous.key === key ? { ...previous, loading: false, error } : previous)));
  }, [client, document, key, current.pages, lastInfo?.hasNextPage, lastInfo?.endCursor]);

  const { refetch: readFirstPage } = first;
  const refetch = useCallback(async () => {
    setRestarts((count) => count + 1);
    await readFirstPage();
  }, [readFirstPage]);

  return {
    data: first.data,
    nodes: firstPage ? withoutRepeats([...firstPage.nodes, ...current.pages.flatMap((page) => page.nodes)]) : [],
    hasNextPage: Boolean(lastInfo?.hasNextPage),
    loading: first.loading,
    loadingMore: current.loading,
    error: first.error ?? current.error,
    loadMore,
    refetch,
  };
}

/** Rows with an id keep their first place: rows added since the first page was read push others onto the next page. */
function withoutRepeats<N>(nodes: N[]): N[] {
  const seen = new Set<unknown>();
  return nodes.filter((node) => {
    const id = node && typeof node === 'object' && 'id' in node ? (node as { id: unknown }).id : undefined;
    if (id === undefined) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
