// The agent's revisions, newest first: which one is the default (and making another the default), and a
// comparison of any two of them.
import { ConsoleSetDefaultAgentRevisionDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { useMutation } from '../../api';
import { Badge, ColumnHeads, Empty, ErrorNotice, Loading, MorePages, Select, Time } from '../../components/ui';
import { type AgentHead, type Revision } from './documents';
import { RevisionDiff } from './RevisionDiff';
import type { PagedQuery } from '../../lib/usePagedQuery';

export type RevisionList = PagedQuery<unknown, Revision>;

export function RevisionsPanel({
  agent,
  revisions,
  onChanged,
  onReload,
  onEditCopy,
}: {
  agent: AgentHead;
  revisions: RevisionList;
  onChanged(): void;
  onReload(): void;
  /** Start the publish form from this revision's configuration. */
  onEditCopy(revision: Revision): void;
}) {
  const [setDefault, setDefaultState] = useMutation(ConsoleSetDefaultAgentRevisionDocument);
  const nodes = revisions.nodes;
  return (
    <section className="panel" aria-labelledby="revisions-heading">
      <h2 id="revisions-heading">Revisions</h2>
      <ErrorNotice error={revisions.error} title="Could not list the revisions" />
      {revisions.loading && !revisions.data ? <Loading label="Loading revisions…" /> : null}
      {revisions.data && nodes.length === 0 ? <Empty>No revisions.</Empty> : null}
      <ErrorNotice error={setDefaultState.error} title="Could not set the default revision" stale={{ what: 'agent', onReload }} withField />
      {nodes.length > 0 ? (
        <table>
          <caption className="muted">Revisions of {agent.name}, newest first</caption>
          <ColumnHeads names={['Revision', 'Note', 'Digest', 'Created', 'Default', 'Configuration']} />
          <tbody>
            {nodes.map((revision) => (
              <tr key={revision.id}>
                <th scope="row">#{revision.number}</th>
                <td>{revision.note || <span className="muted">—</span>}</td>
                <td>
                  <code title={revision.digest}>{revision.digest.slice(0, 19)}…</code>
                </td>
                <td>
                  <Time value={revision.createdAt} />
                </td>
                <td>
                  {revision.id === agent.defaultRevisionId ? (
                    <Badge value="default" />
                  ) : (
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Make revision #${revision.number} the default`}
                      disabled={setDefaultState.loading}
                      onClick={async () => {
                        const done = await setDefault({ agentId: agent.id, ifMatch: agent.etag, revisionId: revision.id });
                        if (done) onChanged();
                      }}
                    >
                      Make default
                    </button>
                  )}
                </td>
                <td>
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Edit a copy of revision #${revision.number}`}
                    onClick={() => onEditCopy(revision)}
                  >
                    Edit a copy
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <MorePages hasNextPage={revisions.hasNextPage} loading={revisions.loadingMore} onMore={() => void revisions.loadMore()} />
      {nodes.length > 1 ? <CompareRevisions revisions={nodes} /> : null}
    </section>
  );
}

/** Two revisions to compare: by default the one before the newest and the newest. */
function CompareRevisions({ revisions }: { revisions: Revision[] }) {
  const [fromId, setFromId] = useState<string | null>(null);
  const [toId, setToId] = useState<string | null>(null);
  const from = revisions.find((revision) => revision.id === fromId) ?? revisions[1];
  const to = revisions.find((revision) => revision.id === toId) ?? revisions[0];
  if (!from || !to) return null;
  const options = revisions.map((revision) => ({
    value: revision.id,
    label: `#${revision.number}${revision.note ? ` — ${revision.note}` : ''}`,
  }));
  return (
    <section aria-labelledby="compare-heading">
      <h3 id="compare-heading">Compare revisions</h3>
      <div className="filters">
        <Select label="From revision" value={from.id} options={options} onValue={setFromId} />
        <Select label="To revision" value={to.id} options={options} onValue={setToId} />
      </div>
      <RevisionDiff from={from} to={to} />
    </section>
  );
}
