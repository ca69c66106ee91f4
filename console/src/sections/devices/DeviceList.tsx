// The workspace's paired devices: name, whether it is connected now, when it was last seen.
import { Link } from 'react-router';
import { Badge, ColumnHeads, Empty, Time } from '../../components/ui';
import type { DeviceSummary } from './queries';

export function DeviceList({ devices }: { devices: DeviceSummary[] }) {
  if (devices.length === 0) return <Empty>No device is paired with this workspace yet.</Empty>;
  return (
    <table aria-label="Paired devices">
      <ColumnHeads names={['Name', 'Platform', 'Connection', 'Status', 'Last seen', 'Paired']} />
      <tbody>
        {devices.map((device) => (
          <tr key={device.id}>
            <th scope="row">
              <Link to={`/devices/${device.id}`}>{device.name}</Link>
            </th>
            <td>{device.platform}</td>
            <td>
              <ConnectionBadge online={device.online} />
            </td>
            <td>
              <Badge value={device.status} />
            </td>
            <td>
              <Time value={device.lastSeenAt} />
            </td>
            <td>
              <Time value={device.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ConnectionBadge({ online }: { online: boolean }) {
  return <Badge value={online ? 'online' : 'offline'} />;
}
