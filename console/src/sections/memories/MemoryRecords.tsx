// A memory's records in its provider's order, page by page; adding a record (the service names it) and
// replacing one by id (which writes a new record when the id is new — the API's upsert). "Replace" on a
// row fills the replace form with that record, so editing one is two clicks.
import {
  ConsoleAddMemoryRecordDocument,
  ConsoleMemoryRecordsDocument,
  ConsoleReplaceMemoryRecordDocument,
} from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { useMutation } from '../../api';
import { Field, Status, TextArea } from '../../components/ui';
import { FormEnd } from '../../components/Forms';
import { type MemoryRecord } from './documents';
import { recordColumns, Writer } from './RecordCells';
import { PagedTable } from '../../components/PagedTable';
import { usePagedQuery } from '../../lib/usePagedQuery';

export function MemoryRecords({ memoryId }: { memoryId: string }) {
  const records = usePagedQuery(ConsoleMemoryRecordsDocument, { memoryId, first: 50 }, (data) => data.memoryRecords);
  const [notice, setNotice] = useState('');
  const [replacing, setReplacing] = useState<{ id: string; text: string; key: number }>({ id: '', text: '', key: 0 });

  function written(message: string) {
    setNotice(message);
    void records.refetch();
  }

  function startReplacing(record: MemoryRecord) {
    // The form is mounted again with the record, and takes the keyboard focus.
    setReplacing((previous) => ({ id: record.id, text: record.text, key: previous.key + 1 }));
  }

  return (
    <section aria-labelledby="memory-records-heading">
      <h2 id="memory-records-heading">Records</h2>
      {notice ? <Status>{notice}</Status> : null}
      <div className="memory-record-forms">
        <AddRecordForm memoryId={memoryId} onAdded={(record) => written(`Record ${record.id} added.`)} />
        <ReplaceRecordForm
          key={replacing.key}
          memoryId={memoryId}
          initial={replacing}
          focus={replacing.key > 0}
          onReplaced={(record) => written(`Record ${record.id} written.`)}
        />
      </div>
      <PagedTable
        list={records}
        label="Records"
        loadingLabel="Loading records…"
        empty="No records yet."
        columns={[
          recordColumns.id,
          recordColumns.text,
          { name: 'Created by', cell: (record) => <Writer stamp={record.provenance.created} /> },
          { name: 'Last written by', cell: (record) => <Writer stamp={record.provenance.lastWrite} /> },
          recordColumns.updated,
          {
            name: 'Actions',
            cell: (record) => (
              <button type="button" className="secondary" aria-label={`Replace ${record.id}`} onClick={() => startReplacing(record)}>
                Replace
              </button>
            ),
          },
        ]}
      />
    </section>
  );
}

function AddRecordForm({ memoryId, onAdded }: { memoryId: string; onAdded(record: MemoryRecord): void }) {
  const [add, state] = useMutation(ConsoleAddMemoryRecordDocument);
  const [text, setText] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const data = await add({ memoryId, text });
    if (data) {
      setText('');
      onAdded(data.addMemoryRecord.record);
    }
  }

  return (
    <form className="panel" aria-labelledby="add-record-heading" onSubmit={(event) => void submit(event)}>
      <h3 id="add-record-heading">Add a record</h3>
      <TextArea label="Text of the new record" value={text} onChange={(event) => setText(event.target.value)} required rows={3} />
      <FormEnd error={state.error} errorTitle="Could not add the record" busy={state.loading} busyLabel="Adding…">
        Add record
      </FormEnd>
    </form>
  );
}

function ReplaceRecordForm({
  memoryId,
  initial,
  focus,
  onReplaced,
}: {
  memoryId: string;
  initial: { id: string; text: string };
  focus: boolean;
  onReplaced(record: MemoryRecord): void;
}) {
  const [replace, state] = useMutation(ConsoleReplaceMemoryRecordDocument);
  const [recordId, setRecordId] = useState(initial.id);
  const [text, setText] = useState(initial.text);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const data = await replace({ memoryId, recordId: recordId.trim(), text });
    if (data) onReplaced(data.replaceMemoryRecord.record);
  }

  return (
    <form className="panel" aria-labelledby="replace-record-heading" onSubmit={(event) => void submit(event)}>
      <h3 id="replace-record-heading">Replace a record</h3>
      <Field label="Record id" value={recordId} onValue={setRecordId} required hint="A new id writes a new record under it" />
      <div className="field">
        <label htmlFor="replace-record-text">New text</label>
        <textarea
          id="replace-record-text"
          autoFocus={focus}
          value={text}
          onChange={(event) => setText(event.target.value)}
          required
          rows={3}
        />
      </div>
      <FormEnd error={state.error} errorTitle="Could not write the record" busy={state.loading} busyLabel="Writing…">
        Replace record
      </FormEnd>
    </form>
  );
}
