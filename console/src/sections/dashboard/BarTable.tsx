// A ranking drawn as a table with a bar in each row (top failure codes, busiest agents, tokens and cost
// by agent or model): the table is what a screen reader reads, the bars (hidden from it) what the eye
// compares. An empty state when there is nothing to rank.
import type { ReactNode } from 'react';
import { ColumnHeads, Empty } from '../../components/ui';

export interface BarRow {
  key: string;
  label: ReactNode;
  /** The figure the bar is drawn for. */
  value: number;
  /** Further figures, one per column after the bar's. */
  cells?: ReactNode[];
}

export function BarTable({
  title,
  columns,
  rows,
  format = String,
  empty,
}: {
  title: string;
  /** The label column's name, the value column's name, then one per extra cell. */
  columns: string[];
  rows: BarRow[];
  format?: (value: number) => string;
  empty: string;
}) {
  const largest = Math.max(...rows.map((row) => row.value), 0);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      {rows.length === 0 ? (
        <Empty>{empty}</Empty>
      ) : (
        <table className="bar-table" aria-label={title}>
          <ColumnHeads names={columns} />
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}>
                <th scope="row">{row.label}</th>
                <td>
                  <span className="bar-cell">
                    <span className="bar" aria-hidden="true" style={{ width: `${largest ? (row.value / largest) * 75 : 0}%` }} />
                    <span className="bar-value">{format(row.value)}</span>
                  </span>
                </td>
                {row.cells?.map((cell, index) => (
                  <td key={index}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </figure>
  );
}
