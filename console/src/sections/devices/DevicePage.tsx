// /devices/:id: one device, what the service knows of it, its directories while it is connected, and
// revocation (its credential is refused at once and its connection closed).
import { ConsoleDeviceDocument, ConsoleRevokeDeviceDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { useParams } from 'react-router';
import { useMutation } from '../../api';
import { DetailNotice, DetailPage, useDetailQuery } from '../../components/DetailPage';
import { ChangedBy, Facts } from '../../components/Facts';
import { Badge, Empty, ErrorNotice, RefreshButton, Time } from '../../components/ui';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ConnectionBadge } from './DeviceList';
import { DirectoryBrowser } from './DirectoryBrowser';
import { type DeviceInfo } from './queries';
import { usePolling } from '../../lib/usePolling';

export function DevicePage() {
  const { id = '' } = useParams();
  const detail = useDetailQuery(ConsoleDeviceDocument, { id }, (data) => data.device, { skip: !id });
  const { refetch } = detail.query;
  usePolling(refetch, { every: 10_000 });
  const device = detail.item;
  return (
    <DetailPage
      detail={detail}
      title={device?.name ?? 'Device'}
      back={{ to: '/devices', label: '← Devices' }}
      loadingLabel="Loading the device…"
      actions={(device) => (
        <>
          <RefreshButton onRefresh={refetch} />
          {device.status === 'active' ? (
            <RevokeButton
              device={device}
              onRevoked={() => void detail.saved(`Revoked ${device.name}: its credential is refused from now on.`)}
            />
          ) : null}
        </>
      )}
    >
      {(device) => (
        <>
          <DetailNotice detail={detail} />
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
      )}
    </DetailPage>
  );
}

function DeviceFacts({ device }: { device: DeviceInfo }) {
  return (
    <Facts
      facts={[
        ['ID', <code>{device.id}</code>],
        ['Status', <Badge value={device.status} />],
        ['Connection', <ConnectionBadge online={device.online} />],
        ['Platform', device.platform],
        ['Last seen', <Time value={device.lastSeenAt} />],
        ['Paired', <ChangedBy at={device.createdAt} by={device.approvedById} />],
        device.revokedAt ? ['Revoked', <Time value={device.revokedAt} />] : null,
        [
          'Public key',
          <pre className="code" tabIndex={0} aria-label="Public key">
            {device.publicKey}
          </pre>,
        ],
      ]}
    />
  );
}

function RevokeButton({ device, onRevoked }: { device: DeviceInfo; onRevoked(): void }) {
  const [asking, setAsking] = useState(false);
  const [revoke, state, reset] = useMutation(ConsoleRevokeDeviceDocument);
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
