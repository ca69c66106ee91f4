// How a record's text and provenance read in the records table and the search results.
import { Link } from 'react-router';
import { Badge } from '../../components/ui';
import type { MemoryRecord, WriterStamp } from './documents';

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
