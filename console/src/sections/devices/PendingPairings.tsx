// Pairing requests waiting for an answer. A daemon (`envd pair`) prints a user code; the user compares it
// (and the name, platform and key fingerprint the daemon sent) with the challenge here before approving.
// Challenges addressed to this workspace are listed; an unaddressed one shows only when its code is
// looked up, because only the person in front of the daemon knows it.
import {
  ConsoleApproveDevicePairingDocument,
  ConsoleDevicePairingsDocument,
  ConsoleRejectDevicePairingDocument,
} from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery } from '../../api';
import { Empty, ErrorNotice, Field, Loading, Status, Time } from '../../components/ui';
import { Facts } from '../../components/Facts';
import { type PairingChallenge } from './queries';
import { usePolling } from '../../lib/usePolling';

type Outcome = { kind: 'approved'; name: string; deviceId: string } | { kind: 'rejected'; name: string };

export function PendingPairings({ onDevicesChanged }: { onDevicesChanged(): void }) {
  const [typedCode, setTypedCode] = useState('');
  const [userCode, setUserCode] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const { data, error, loading, refetch } = useQuery(ConsoleDevicePairingsDocument, { userCode });
  const [approve, approving] = useMutation(ConsoleApproveDevicePairingDocument);
  const [reject, rejecting] = useMutation(ConsoleRejectDevicePairingDocument);
  usePolling(refetch, { every: 5_000 });

  function lookUp(event: FormEvent) {
    event.preventDefault();
    setOutcome(null);
    setUserCode(typedCode.trim() || null);
  }

  async function onApprove(pairing: PairingChallenge) {
    setOutcome(null);
    const answer = await approve({ id: pairing.id });
    if (!answer) return;
    setOutcome({ kind: 'approved', name: pairing.deviceName, deviceId: answer.approveDevicePairing.device.id });
    await refetch();
    onDevicesChanged();
  }

  async function onReject(pairing: PairingChallenge) {
    setOutcome(null);
    if (!(await reject({ id: pairing.id }))) return;
    setOutcome({ kind: 'rejected', name: pairing.deviceName });
    await refetch();
  }

  const pairings = data?.devicePairings ?? [];
  return (
    <section aria-labelledby="pending-pairings" className="panel">
      <h2 id="pending-pairings">Pending pairings</h2>
      <p className="muted">
        A device asks to pair when <code>envd pair</code> runs on it; it prints a user code. Approve only when the code and the
        device&apos;s description match what the device shows.
      </p>
      <form className="filters" onSubmit={lookUp} aria-label="Find a pairing">
        <Field
          label="User code"
          value={typedCode}
          onValue={setTypedCode}
          placeholder="BCDF-2345"
          autoComplete="off"
          hint="Needed when the device did not name this workspace."
        />
        <button type="submit">Look up</button>
        {userCode ? (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setTypedCode('');
              setUserCode(null);
            }}
          >
            Clear
          </button>
        ) : null}
      </form>
      <ErrorNotice error={error} />
      <ErrorNotice error={approving.error} title="Could not approve" />
      <ErrorNotice error={rejecting.error} title="Could not reject" />
      {outcome?.kind === 'approved' ? (
        <Status>
          Approved {outcome.name}: it is now device <Link to={`/devices/${outcome.deviceId}`}>{outcome.deviceId}</Link>. Its next poll
          collects its credential.
        </Status>
      ) : null}
      {outcome?.kind === 'rejected' ? <Status>Rejected the pairing of {outcome.name}.</Status> : null}
      {loading && !data ? <Loading label="Loading pairing requests…" /> : null}
      {data && pairings.length === 0 ? (
        <Empty>{userCode ? `No pending pairing has the code ${userCode}.` : 'No pairing request is waiting for this workspace.'}</Empty>
      ) : null}
      <div className="pairing-list">
        {pairings.map((pairing) => (
          <PairingCard
            key={pairing.id}
            pairing={pairing}
            busy={approving.loading || rejecting.loading}
            onApprove={() => void onApprove(pairing)}
            onReject={() => void onReject(pairing)}
          />
        ))}
      </div>
    </section>
  );
}

function PairingCard({
  pairing,
  busy,
  onApprove,
  onReject,
}: {
  pairing: PairingChallenge;
  busy: boolean;
  onApprove(): void;
  onReject(): void;
}) {
  const headingId = `pairing-${pairing.id}`;
  return (
    <article aria-labelledby={headingId} className="pairing">
      <h3 id={headingId}>{pairing.deviceName}</h3>
      <Facts
        facts={[
          ['User code', <code className="user-code">{pairing.userCode}</code>],
          ['Platform', pairing.platform],
          ['Key fingerprint', <code>{pairing.publicKeyFingerprint}</code>],
          ['Addressed to', pairing.workspaceId ? 'this workspace' : 'any workspace (found by its code)'],
          ['Asked', <Time value={pairing.createdAt} />],
          ['Expires', <Time value={pairing.expiresAt} />],
        ]}
      />
      <div className="actions">
        <button type="button" onClick={onApprove} disabled={busy}>
          Approve
        </button>
        <button type="button" className="danger" onClick={onReject} disabled={busy}>
          Reject
        </button>
      </div>
    </article>
  );
}
