// How a record's text and provenance read in the records table and the search results.
import { Link } from 'react-router';
import type { Column } from '../../components/PagedTable';
import { Badge, Time } from '../../components/ui';
import type { MemoryRecord, WriterStamp } from './documents';

/** The columns both tables show: the record's id, its text and when it was last written. */
export const recordColumns: Record<'id' | 'text' | 'updated', Column<MemoryRecord>> = {
  id: { name: 'Record', cell: (record) => <code>{record.id}</code> },
  text: { name: 'Text', cell: (record) => <RecordText record={record} /> },
  updated: { name: 'Updated', cell: (record) => <Time value={record.updatedAt} /> },
};

/** Who wrote: the principal's name then (an API key's name may be empty), and the run when a run's memory tool wrote. */
export function Writer({ stamp }: { stamp: WriterStamp | null }) {
  if (!stamp) return <span className="muted">another tool</span>;
  const who = stamp.principalName || stamp.principalId || 'unnamed';
  return (
    <>
      {who}
      {stamp.runId ? (
        <>
          {' '}
          in run <Link to={`/runs/${stamp.runId}`}>{stamp.runId}</Link>
        </>
      ) : null}
    </>
  );
}

export function RecordText({ record }: { record: MemoryRecord }) {
  return (
    <>
      <span className="record-text">{record.text}</span>
      {record.provenance.contentMatches ? null : (
        <>
          {' '}
          <Badge value="replaced" />
        </>
      )}
    </>
  );
}
