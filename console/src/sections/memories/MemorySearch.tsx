// Searching a memory's records: the query, how many at most and the lowest score to keep, and the
// results best first with their rank and the score exactly as the service gives it (similarity in [0, 1]).
import { ConsoleSearchMemoryRecordsDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { useMutation } from '../../api';
import { Empty, ErrorNotice, Field, Status, SubmitButton, TextArea } from '../../components/ui';
import { type MemoryRecord } from './documents';
import { recordColumns } from './RecordCells';
import { ColumnTable } from '../../components/PagedTable';

export function MemorySearch({ memoryId }: { memoryId: string }) {
  const [search, state] = useMutation(ConsoleSearchMemoryRecordsDocument);
  const [query, setQuery] = useState('');
  const [limit, setLimit] = useState('10');
  const [minScore, setMinScore] = useState('0.05');
  const [results, setResults] = useState<{ query: string; records: MemoryRecord[] } | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const data = await search({
      memoryId,
      query,
      limit: limit.trim() ? Number(limit) : null,
      minScore: minScore.trim() ? Number(minScore) : null,
    });
    setResults(data ? { query, records: data.searchMemoryRecords.records } : null);
  }

  return (
    <section aria-labelledby="memory-search-heading">
      <h2 id="memory-search-heading">Search</h2>
      <form className="panel" role="search" aria-label="Search records" onSubmit={(event) => void submit(event)}>
        <TextArea label="Search query" value={query} onValue={setQuery} required rows={2} />
        <div className="filters">
          <Field label="At most" type="number" min={1} max={100} value={limit} onValue={setLimit} />
          <Field label="Minimum score" type="number" min={0} max={1} step="any" value={minScore} onValue={setMinScore} />
          <SubmitButton busy={state.loading} busyLabel="Searching…">
            Search
          </SubmitButton>
        </div>
      </form>
      <ErrorNotice error={state.error} title="Could not search" />
      {results ? (
        <Status>
          {results.records.length === 1 ? '1 record matches' : `${results.records.length} records match`} “{results.query}”.
        </Status>
      ) : null}
      {results && results.records.length === 0 ? <Empty>Nothing scored at least the minimum score.</Empty> : null}
      {results && results.records.length > 0 ? (
        <ColumnTable
          label="Search results"
          rows={results.records}
          columns={[
            { name: 'Rank', cell: (_record, index) => index + 1 },
            {
              name: 'Score',
              cell: (record) => (
                <>
                  <meter min={0} max={1} value={record.score} aria-hidden="true" /> <data value={record.score}>{record.score}</data>
                </>
              ),
            },
            recordColumns.id,
            recordColumns.text,
            recordColumns.updated,
          ]}
        />
      ) : null}
    </section>
  );
}
