// The skeleton every detail page shares (a connection, a model provider, a template, a memory, a
// finding, a device, a webhook subscription, …): read one thing by id, show the loading, refusal and
// not-yet-read states the same way, a header with its name and actions, a polite notice after a change,
// and changes that carry the version the page read (If-Match) and read the thing again afterwards.
import { useCallback, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { useMutation, useQuery, type MutationState, type QueryState } from '../api';
import { ErrorNotice, Loading, PageHeader, Status } from './ui';

/** One thing read by id, with what the page needs to show it and to say what a change did. */
export interface Detail<T> {
  /** The thing once read (and kept while it is read again). */
  item: T | undefined;
  query: QueryState<unknown>;
  /** What the last change did, shown by <DetailNotice>; empty when there is nothing to say. */
  notice: string;
  setNotice(message: string): void;
  /**
   * After a change: reads the thing again, then says `message` (if any) — once the page shows the new
   * state and its new ETag, so the next change starts from it.
   */
  saved(message?: string): Promise<void>;
  /** After a refused If-Match: forgets the notice and reads the thing as it is now. */
  reload(): Promise<void>;
}

/**
 * Reads one thing with `document` and picks it out of the answer with `select`. `skip` holds the
 * query back (no id in the address).
 */
export function useDetailQuery<R, V, T>(
  document: TypedDocumentNode<R, V>,
  variables: V,
  select: (data: R) => T,
  options: { skip?: boolean } = {},
): Detail<T> {
  const query = useQuery(document, variables, options);
  const [notice, setNotice] = useState('');
  const { refetch } = query;
  const saved = useCallback(
    async (message?: string) => {
      await refetch();
      if (message !== undefined) setNotice(message);
    },
    [refetch],
  );
  const reload = useCallback(async () => {
    setNotice('');
    await refetch();
  }, [refetch]);
  return { item: query.data === undefined ? undefined : select(query.data), query, notice, setNotice, saved, reload };
}

/**
 * A mutation of the thing a detail page shows, made against the version the page read: `ifMatch` is
 * the thing's ETag, added here, so a change made after someone else's is refused rather than
 * overwriting it. After it went through the page reads the thing again and says `message` (if any).
 * The third member, after a refused If-Match, forgets the refusal and reads the thing as it is now
 * (forms keyed by its ETag then start again from the new version).
 */
export function useVersionedMutation<R, V extends { ifMatch?: string | null }>(
  document: TypedDocumentNode<R, V>,
  detail: Detail<{ etag: string }>,
): [(variables: Omit<V, 'ifMatch'>, message?: string) => Promise<R | undefined>, MutationState, () => void] {
  const [mutate, state, reset] = useMutation(document);
  const { item, saved, reload } = detail;
  const change = useCallback(
    async (variables: Omit<V, 'ifMatch'>, message?: string) => {
      if (!item) return undefined;
      const data = await mutate({ ...variables, ifMatch: item.etag } as V);
      if (data) await saved(message);
      return data;
    },
    [item, mutate, saved],
  );
  const forgetAndReload = useCallback(() => {
    reset();
    void reload();
  }, [reset, reload]);
  return [change, state, forgetAndReload];
}

/** The notice of the last change (saved, revoked, …), announced politely. */
export function DetailNotice({ detail }: { detail: Detail<unknown> }) {
  return detail.notice ? <Status>{detail.notice}</Status> : null;
}

export interface DetailPageProps<T> {
  /**
   * The thing and its read. A page that merges the read with live updates (a run, a thread) passes
   * the merged thing with the query that read it.
   */
  detail: Pick<Detail<T>, 'item' | 'query'>;
  /** The heading: the thing's name once read, else what it is ("Connection"). */
  title: string;
  /** The line under the heading (a description, a URL). */
  description?: ReactNode;
  /** The way back to the list, as the header's last action. */
  back?: { to: string; label: string };
  /** The header's actions, shown once the thing is read. */
  actions?: (item: T) => ReactNode;
  /** What the status says while the thing is read the first time. */
  loadingLabel?: string;
  /** The heading of a refused read ("Could not read the model"). */
  errorTitle?: string;
  /** The page's body, once the thing is read. */
  children: (item: T) => ReactNode;
}

export function DetailPage<T>({ detail, title, description, back, actions, loadingLabel, errorTitle, children }: DetailPageProps<T>) {
  const { item, query } = detail;
  const itemActions = item !== undefined && actions ? actions(item) : null;
  return (
    <>
      <PageHeader
        title={title}
        actions={
          itemActions || back ? (
            <>
              {itemActions}
              {back ? <Link to={back.to}>{back.label}</Link> : null}
            </>
          ) : undefined
        }
      >
        {description}
      </PageHeader>
      <ErrorNotice error={query.error} title={errorTitle} />
      {query.loading && item === undefined ? <Loading label={loadingLabel} /> : null}
      {item !== undefined ? children(item) : null}
    </>
  );
}
