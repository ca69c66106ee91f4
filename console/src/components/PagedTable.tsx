// A cursor-paged list as a table, the same on every list page: the refusal, "Loading…" until the
// first page, what an empty list means, one row a node with a cell a column, and "Load more".
import type { ReactNode } from 'react';
import type { PagedQuery } from '../lib/usePagedQuery';
import { ColumnHeads, Empty, ErrorNotice, Loading, MorePages } from './ui';

export interface Column<N> {
  /** The column's heading (also the cell's key). */
  name: string;
  /** The cell of `node`, the `index`th row (from 0). */
  cell(node: N, index: number): ReactNode;
  /** The cell names its row (a revision's number): a row header rather than a data cell. */
  rowHeader?: boolean;
  /** The heading is for assistive technology only (a column of buttons that name themselves). */
  hiddenName?: boolean;
}

export function PagedTable<N extends { id: string }>({
  list,
  columns,
  empty,
  caption,
  label,
  loadingLabel,
}: {
  list: PagedQuery<unknown, N>;
  columns: Column<N>[];
  /** What an empty answer says ("No memories yet.", "No memory matches the filter."). */
  empty: ReactNode;
  /** A visible caption; else `label` names the table for assistive technology. */
  caption?: string;
  label?: string;
  /** What the status says until the first page ("Loading records…"). */
  loadingLabel?: string;
}) {
  return (
    <>
      <ErrorNotice error={list.error} />
      {list.loading && !list.data ? <Loading label={loadingLabel} /> : null}
      {list.data && list.nodes.length === 0 && !list.hasNextPage ? <Empty>{empty}</Empty> : null}
      {list.nodes.length > 0 ? (
        <ColumnTable rows={list.nodes} columns={columns} caption={caption} label={label} busy={list.loading} />
      ) : null}
      <MorePages hasNextPage={list.hasNextPage} loading={list.loadingMore} onMore={list.loadMore} />
    </>
  );
}

/** Rows as a table, a row a node (keyed by its id) and a cell a column. */
export function ColumnTable<N extends { id: string }>({
  rows,
  columns,
  caption,
  label,
  busy,
}: {
  rows: N[];
  columns: Column<N>[];
  caption?: string;
  label?: string;
  busy?: boolean;
}) {
  return (
    <table aria-busy={busy} aria-label={label}>
      {caption ? <caption className="muted">{caption}</caption> : null}
      <ColumnHeads
        names={columns.map((column) => column.name)}
        hidden={columns.filter((column) => column.hiddenName).map((column) => column.name)}
      />
      <tbody>
        {rows.map((node, index) => (
          <tr key={node.id}>
            {columns.map((column) =>
              column.rowHeader ? (
                <th key={column.name} scope="row">
                  {column.cell(node, index)}
                </th>
              ) : (
                <td key={column.name}>{column.cell(node, index)}</td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
