// The thread's inbox: send a message with a delivery mode, see every entry with its status, and act on
// pending entries as the API allows (switch queue ↔ steer, edit the text). The API has no way to
// withdraw an entry, so the page offers none. Each action is followed by a re-read of the page.
import { ConsoleDeliverDocument, ConsoleAgentChoicesDocument, ConsoleUpdateInboxEntryDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery } from '../../api';
import { Badge, ColumnHeads, ErrorNotice, Select, Status, TextArea, Time } from '../../components/ui';
import type { InboxDeliveryMode, UpdateInboxEntryInput } from '../../../generated/graphql';
import { messageText, textMessage } from './messages';
import { type InboxEntry } from './queries';

const DELIVERY_CHOICES: { value: InboxDeliveryMode; label: string }[] = [
  { value: 'queue', label: 'Queue — runs after the current run ends' },
  { value: 'steer', label: 'Steer — joins the current run at its next model request' },
  { value: 'interrupt', label: 'Interrupt — cancels the current run and goes next' },
];

export interface InboxProps {
  threadId: string;
  entries: InboxEntry[];
  archived: boolean;
  /** Whether the thread has had a run (its agent is then the default for new entries). */
  hasRun: boolean;
  /** Re-read the thread, its runs and its inbox. */
  onChanged(): void;
}

export function ThreadInbox(props: InboxProps) {
  const counts = countByStatus(props.entries);
  return (
    <section aria-labelledby="thread-inbox-heading">
      <h2 id="thread-inbox-heading">Inbox</h2>
      {props.archived ? <p className="muted">The thread is archived: it takes no new messages.</p> : <SendMessageForm {...props} />}
      <p role="status" aria-live="polite" className="muted">
        {props.entries.length === 0 ? 'No entries yet.' : `${props.entries.length} entries: ${counts}.`}
      </p>
      {props.entries.length > 0 ? <InboxTable {...props} /> : null}
    </section>
  );
}

function countByStatus(entries: InboxEntry[]): string {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry.status, (counts.get(entry.status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${count} ${status}`).join(', ');
}

function SendMessageForm({ threadId, hasRun, onChanged }: InboxProps) {
  const [text, setText] = useState('');
  const [delivery, setDelivery] = useState<InboxDeliveryMode>('queue');
  const [agentId, setAgentId] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const [deliver, delivering] = useMutation(ConsoleDeliverDocument);
  const agents = useQuery(ConsoleAgentChoicesDocument, {});
  const agentChoices = [
    ...(hasRun ? [{ value: '', label: "The thread's last run's agent" }] : [{ value: '', label: 'Choose an agent' }]),
    ...(agents.data?.agents.nodes ?? []).map((agent) => ({ value: agent.id, label: `${agent.name} (${agent.id})` })),
  ];
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSent(null);
    const data = await deliver({ threadId, input: { delivery, payload: textMessage(text), ...(agentId ? { agentId } : {}) } });
    if (!data) return;
    const { entry, run } = data.deliverToInbox;
    setText('');
    setSent(
      entry.status === 'assigned'
        ? `Sent: entry ${entry.position} started run ${run?.id ?? ''}.`
        : `Sent: entry ${entry.position} is ${entry.status} (${entry.delivery}) behind run ${run?.id ?? ''}.`,
    );
    onChanged();
  };
  return (
    <form onSubmit={(event) => void submit(event)} aria-label="Send a message">
      <TextArea label="Message" rows={3} required value={text} onValue={setText} />
      <div className="filters">
        <Select
          label="Delivery"
          options={DELIVERY_CHOICES}
          value={delivery}
          onChange={(event) => setDelivery(event.target.value as InboxDeliveryMode)}
        />
        <Select label="Agent" options={agentChoices} value={agentId} onValue={setAgentId} />
      </div>
      <p className="muted">With no run active on the thread, every delivery starts a run at once.</p>
      <ErrorNotice error={delivering.error ?? agents.error} title="Could not send" />
      {sent ? <Status>{sent}</Status> : null}
      <button type="submit" disabled={delivering.loading || !text.trim()}>
        {delivering.loading ? 'Sending…' : 'Send'}
      </button>
    </form>
  );
}

function InboxTable({ threadId, entries, onChanged }: InboxProps) {
  const [update, updating] = useMutation(ConsoleUpdateInboxEntryDocument);
  const [editing, setEditing] = useState<string | null>(null);
  // The thread's ETag when editing began: the page follows the thread live, so the entry's own copy
  // moves with every change; a text written against what the operator saw must be refused if the
  // entry changed meanwhile, not silently overwrite it.
  const [editedFrom, setEditedFrom] = useState<string | null>(null);
  const change = async (entry: InboxEntry, input: UpdateInboxEntryInput, ifMatch = entry.threadEtag) => {
    // Entries carry their thread's ETag: an edit made against an older thread state is refused (412).
    const done = await update({ threadId, entryId: entry.id, ifMatch, input });
    if (done) setEditing(null);
    onChanged();
  };
  return (
    <>
      <ErrorNotice error={updating.error} title="Could not change the entry" />
      <table aria-label="Inbox entries, in inbox order">
        <ColumnHeads names={['#', 'Message', 'Delivery', 'Status', 'Run', 'Sent', 'Actions']} />
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id} aria-label={`Entry ${entry.position}`}>
              <td>{entry.position}</td>
              <td className="thread-text">
                {editing === entry.id ? (
                  <EditEntryForm
                    entry={entry}
                    busy={updating.loading}
                    onSave={(text) => void change(entry, { payload: textMessage(text) }, editedFrom ?? entry.threadEtag)}
                    onCancel={() => setEditing(null)}
                  />
                ) : (
                  messageText(entry.payload)
                )}
              </td>
              <td>{entry.delivery}</td>
              <td>
                <Badge value={entry.status} />
                {entry.status === 'incorporated' ? (
                  <span className="muted"> at model request {entry.incorporatedCheckpointSeq + 1}</span>
                ) : null}
                {entry.failure ? <span className="muted"> {entry.failure.message}</span> : null}
              </td>
              <td>
                {entry.assignedRunId ? (
                  <Link to={`/runs/${entry.assignedRunId}`}>{entry.assignedRunId}</Link>
                ) : entry.originRunId ? (
                  <span className="muted">behind {entry.originRunId}</span>
                ) : null}
              </td>
              <td>
                <Time value={entry.createdAt} />
              </td>
              <td>
                {entry.status === 'pending' && editing !== entry.id ? (
                  <div className="actions">
                    {entry.delivery === 'steer' ? (
                      <button
                        type="button"
                        className="secondary"
                        disabled={updating.loading}
                        onClick={() => void change(entry, { delivery: 'queue' })}
                      >
                        Queue instead
                      </button>
                    ) : (
                      <button
                        type="button"
                        className="secondary"
                        disabled={updating.loading}
                        onClick={() => void change(entry, { delivery: 'steer' })}
                      >
                        Steer into the current run
                      </button>
                    )}
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => {
                        setEditing(entry.id);
                        setEditedFrom(entry.threadEtag);
                      }}
                    >
                      Edit
                    </button>
                  </div>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function EditEntryForm({
  entry,
  busy,
  onSave,
  onCancel,
}: {
  entry: InboxEntry;
  busy: boolean;
  onSave(text: string): void;
  onCancel(): void;
}) {
  const [text, setText] = useState(messageText(entry.payload));
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSave(text);
      }}
    >
      <TextArea label={`New text of entry ${entry.position}`} rows={2} autoFocus value={text} onValue={setText} />
      <button type="submit" disabled={busy || !text.trim()}>
        Save
      </button>{' '}
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel editing
      </button>
    </form>
  );
}
