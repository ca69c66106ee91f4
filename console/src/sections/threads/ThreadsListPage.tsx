// The threads of the workspace: filters (archived, session, label) kept in the address so a filtered
// list can be linked, paging, a form that creates a thread, and archiving from the list.
import {
  ConsoleArchiveThreadDocument,
  ConsoleCreateThreadDocument,
  ConsoleThreadsDocument,
  type ConsoleThreadsQuery,
} from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation } from '../../api';
import { Badge, ErrorNotice, Field, PageHeader, Select, Status, TextArea, Time } from '../../components/ui';
import { CreatePanel } from '../../components/Forms';
import { parseLabelSelectors, readLabels } from '../../lib/labels';
import { usePagedQuery, type PagedQuery } from '../../lib/usePagedQuery';
import { PagedTable, type Column } from '../../components/PagedTable';
import { type ThreadSummary } from './queries';

const PAGE_SIZE = 25;
const selectThreads = (data: ConsoleThreadsQuery) => data.threads;

const ARCHIVED_CHOICES = [
  { value: 'active', label: 'Active threads' },
  { value: 'archived', label: 'Archived threads' },
  { value: 'all', label: 'All threads' },
];

export function ThreadsListPage() {
  const [params, setParams] = useSearchParams();
  const archived = params.get('archived') ?? 'active';
  const sessionId = params.get('session') ?? '';
  const label = params.get('label') ?? '';
  const variables = {
    first: PAGE_SIZE,
    ...(archived === 'all' ? {} : { archived: archived === 'archived' }),
    ...(sessionId ? { sessionId } : {}),
    ...(label ? { label: parseLabelSelectors(label) } : {}),
  };
  const list = usePagedQuery(ConsoleThreadsDocument, variables, selectThreads);
  const setFilters = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes)) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    setParams(next, { replace: true });
  };
  return (
    <>
      <PageHeader title="Threads">Conversations with agents: each thread keeps its history, its runs and its inbox.</PageHeader>
      <CreateThreadForm />
      <section aria-labelledby="threads-list-heading">
        <h2 id="threads-list-heading">Threads</h2>
        <ThreadFilters archived={archived} sessionId={sessionId} label={label} onChange={setFilters} />
        <ThreadsTable list={list} onArchived={() => void list.refetch()} />
      </section>
    </>
  );
}

/** The text filters apply on submit (a button or Enter), not on every keystroke; the select at once. */
function ThreadFilters(props: { archived: string; sessionId: string; label: string; onChange(changes: Record<string, string>): void }) {
  const [sessionId, setSessionId] = useState(props.sessionId);
  const [label, setLabel] = useState(props.label);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    props.onChange({ session: sessionId.trim(), label: label.trim() });
  };
  return (
    <form className="filters" aria-label="Thread filters" onSubmit={apply}>
      <Select
        label="Show"
        options={ARCHIVED_CHOICES}
        value={props.archived}
        onChange={(event) => props.onChange({ archived: event.target.value })}
      />
      <Field label="Session" placeholder="ses_…" value={sessionId} onValue={setSessionId} />
      <Field label="Label" placeholder="team:ops" hint="key:value, comma-separated; all must match" value={label} onValue={setLabel} />
      <button type="submit">Apply filters</button>
    </form>
  );
}

function ThreadsTable({ list, onArchived }: { list: PagedQuery<unknown, ThreadSummary>; onArchived(): void }) {
  const [archive, archiving] = useMutation(ConsoleArchiveThreadDocument);
  const [archivedId, setArchivedId] = useState<string | null>(null);
  const onArchive = async (thread: ThreadSummary) => {
    if (await archive({ id: thread.id, ifMatch: thread.etag })) {
      setArchivedId(thread.id);
      onArchived();
    }
  };
  const columns: Column<ThreadSummary>[] = [
    {
      name: 'Thread',
      cell: (thread) => (
        <Link to={`/threads/${thread.id}`}>
          <code>{thread.id}</code>
        </Link>
      ),
    },
    { name: 'Session', cell: (thread) => <code>{thread.sessionId}</code> },
    { name: 'State', cell: (thread) => <Badge value={thread.archivedAt ? 'archived' : thread.currentRunId ? 'running' : 'idle'} /> },
    {
      name: 'Labels',
      cell: (thread) => thread.labelList.map((pair) => `${pair.key}:${pair.value}`).join(', ') || <span className="muted">—</span>,
    },
    { name: 'Updated', cell: (thread) => <Time value={thread.updatedAt} /> },
    {
      name: 'Actions',
      cell: (thread) =>
        thread.archivedAt ? null : (
          <button
            type="button"
            className="secondary"
            aria-label={`Archive ${thread.id}`}
            disabled={archiving.loading}
            onClick={() => void onArchive(thread)}
          >
            Archive
          </button>
        ),
    },
  ];
  return (
    <>
      <ErrorNotice error={archiving.error} title="Could not archive" />
      {archivedId ? <Status>Archived {archivedId}.</Status> : null}
      <PagedTable list={list} columns={columns} empty="No threads match." caption="Threads, newest first" />
    </>
  );
}

function CreateThreadForm() {
  const navigate = useNavigate();
  const [sessionId, setSessionId] = useState('');
  const [labels, setLabels] = useState('');
  const [labelsProblem, setLabelsProblem] = useState<string | null>(null);
  const [create, creating] = useMutation(ConsoleCreateThreadDocument);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = readLabels(labels);
    setLabelsProblem('error' in parsed ? parsed.error : null);
    if ('error' in parsed) return;
    const data = await create({
      input: {
        ...(sessionId.trim() ? { sessionId: sessionId.trim() } : {}),
        ...(Object.keys(parsed.labels).length ? { labels: parsed.labels } : {}),
      },
    });
    if (data) navigate(`/threads/${data.createThread.thread.id}`);
  };
  return (
    <CreatePanel
      title="New thread"
      problem={labelsProblem}
      form={{ onSubmit: (event) => void submit(event), formError: undefined, state: creating }}
      errorTitle="Could not create the thread"
      submitLabel="Create thread"
    >
      <Field
        label="Session for the new thread"
        hint="Leave empty to open a new session"
        placeholder="ses_…"
        value={sessionId}
        onValue={setSessionId}
      />
      <TextArea
        label="Labels for the new thread"
        hint="key:value, one a line or comma-separated"
        rows={2}
        value={labels}
        onValue={setLabels}
      />
    </CreatePanel>
  );
}
