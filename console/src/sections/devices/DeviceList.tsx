// The workspace's paired devices: name, whether it is connected now, when it was last seen.
import { Link } from 'react-router';
import { Badge, Empty, Time } from '../../components/ui';
import { ColumnTable } from '../../components/PagedTable';
import type { DeviceSummary } from './queries';

export function DeviceList({ devices }: { devices: DeviceSummary[] }) {
  if (devices.length === 0) return <Empty>No device is paired with this workspace yet.</Empty>;
  return (
    <ColumnTable
      rows={devices}
      label="Paired devices"
      columns={[
        { name: 'Name', rowHeader: true, cell: (device) => <Link to={`/devices/${device.id}`}>{device.name}</Link> },
        { name: 'Platform', cell: (device) => device.platform },
        { name: 'Connection', cell: (device) => <ConnectionBadge online={device.online} /> },
        { name: 'Status', cell: (device) => <Badge value={device.status} /> },
        { name: 'Last seen', cell: (device) => <Time value={device.lastSeenAt} /> },
        { name: 'Paired', cell: (device) => <Time value={device.createdAt} /> },
      ]}
    />
  );
}

export function ConnectionBadge({ online }: { online: boolean }) {
  return <Badge value={online ? 'online' : 'offline'} />;
}
