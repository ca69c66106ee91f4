// The agent's revisions, newest first: which one is the default (and making another the default), and a
// comparison of any two of them.
import { ConsoleSetDefaultAgentRevisionDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { useMutation } from '../../api';
import { Badge, ErrorNotice, Select, Time } from '../../components/ui';
import { PagedTable } from '../../components/PagedTable';
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
      <ErrorNotice error={setDefaultState.error} title="Could not set the default revision" stale={{ what: 'agent', onReload }} withField />
      <PagedTable
        list={revisions}
        caption={`Revisions of ${agent.name}, newest first`}
        loadingLabel="Loading revisions…"
        empty="No revisions."
        columns={[
          { name: 'Revision', rowHeader: true, cell: (revision) => `#${revision.number}` },
          { name: 'Note', cell: (revision) => revision.note || <span className="muted">—</span> },
          { name: 'Digest', cell: (revision) => <code title={revision.digest}>{revision.digest.slice(0, 19)}…</code> },
          { name: 'Created', cell: (revision) => <Time value={revision.createdAt} /> },
          {
            name: 'Default',
            cell: (revision) =>
              revision.id === agent.defaultRevisionId ? (
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
              ),
          },
          {
            name: 'Configuration',
            cell: (revision) => (
              <button
                type="button"
                className="secondary"
                aria-label={`Edit a copy of revision #${revision.number}`}
                onClick={() => onEditCopy(revision)}
              >
                Edit a copy
              </button>
            ),
          },
        ]}
      />
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
