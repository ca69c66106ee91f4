// /devices/:id: one device, what the service knows of it, its directories while it is connected, and
// revocation (its credential is refused at once and its connection closed).
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery } from '../../api';
import { Badge, Empty, ErrorNotice, Loading, PageHeader, Status, Time } from '../../components/ui';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ConnectionBadge } from './DeviceList';
import { DirectoryBrowser } from './DirectoryBrowser';
import { DEVICE, REVOKE_DEVICE, type DeviceInfo } from './queries';
import { usePolling } from '../../lib/usePolling';

export function DevicePage() {
  const { id = '' } = useParams();
  const { data, error, loading, refetch } = useQuery(DEVICE, { id }, { skip: !id });
  usePolling(refetch, { every: 10_000 });
  const device = data?.device;
  const [revoked, setRevoked] = useState(false);
  return (
    <>
      <p>
        <Link to="/devices">← Devices</Link>
      </p>
      <PageHeader
        title={device?.name ?? 'Device'}
        actions={
          device ? (
            <>
              <button type="button" className="secondary" onClick={() => void refetch()}>
                Refresh
              </button>
              {device.status === 'active' ? (
                <RevokeButton
                  device={device}
                  onRevoked={() => {
                    setRevoked(true);
                    void refetch();
                  }}
                />
              ) : null}
            </>
          ) : null
        }
      />
      {revoked ? <Status>Revoked {device?.name}: its credential is refused from now on.</Status> : null}
      <ErrorNotice error={error} />
      {loading && !data ? <Loading label="Loading the device…" /> : null}
      {device ? (
        <>
          <DeviceFacts device={device} />
          {device.status !== 'active' ? (
            <Empty>This device is revoked: it can no longer connect.</Empty>
          ) : device.online ? (
            <DirectoryBrowser deviceId={device.id} />
          ) : (
            <section aria-labelledby="device-directories">
              <h2 id="device-directories">Directories</h2>
              <Empty>
                The device is offline. Its directories can be browsed while <code>envd serve</code> runs on it.
              </Empty>
            </section>
          )}
        </>
      ) : null}
    </>
  );
}

function DeviceFacts({ device }: { device: DeviceInfo }) {
  return (
    <dl className="facts">
      <dt>ID</dt>
      <dd>
        <code>{device.id}</code>
      </dd>
      <dt>Status</dt>
      <dd>
        <Badge value={device.status} />
      </dd>
      <dt>Connection</dt>
      <dd>
        <ConnectionBadge online={device.online} />
      </dd>
      <dt>Platform</dt>
      <dd>{device.platform}</dd>
      <dt>Last seen</dt>
      <dd>
        <Time value={device.lastSeenAt} />
      </dd>
      <dt>Paired</dt>
      <dd>
        <Time value={device.createdAt} /> by <code>{device.approvedById}</code>
      </dd>
      {device.revokedAt ? (
        <>
          <dt>Revoked</dt>
          <dd>
            <Time value={device.revokedAt} />
          </dd>
        </>
      ) : null}
      <dt>Public key</dt>
      <dd>
        <pre className="code" tabIndex={0} aria-label="Public key">
          {device.publicKey}
        </pre>
      </dd>
    </dl>
  );
}

function RevokeButton({ device, onRevoked }: { device: DeviceInfo; onRevoked(): void }) {
  const [asking, setAsking] = useState(false);
  const [revoke, state, reset] = useMutation(REVOKE_DEVICE);
  async function confirm() {
    if (!(await revoke({ id: device.id }))) return;
    setAsking(false);
    onRevoked();
  }
  return (
    <>
      <button
        type="button"
        className="danger"
        onClick={() => {
          reset();
          setAsking(true);
        }}
      >
        Revoke
      </button>
      {asking ? (
        <ConfirmDialog
          title={`Revoke ${device.name}?`}
          confirmLabel="Revoke device"
          busy={state.loading}
          onConfirm={() => void confirm()}
          onCancel={() => setAsking(false)}
        >
          <p>
            Its credential stops working at once and its connection is closed. Environments on it can no longer be reached. To use the
            machine again, pair it anew.
          </p>
          <ErrorNotice error={state.error} title="Could not revoke" />
        </ConfirmDialog>
      ) : null}
    </>
  );
}
