// /devices: the pairing requests waiting for an answer, then the paired devices.
import { ConsoleDevicesDocument } from '../../../generated/graphql';
import { useQuery } from '../../api';
import { ErrorNotice, Loading, PageHeader, RefreshButton } from '../../components/ui';
import { DeviceList } from './DeviceList';
import { PendingPairings } from './PendingPairings';

import { usePolling } from '../../lib/usePolling';

export function DevicesPage() {
  const { data, error, loading, refetch } = useQuery(ConsoleDevicesDocument, {});
  // Connections come and go; the list follows them without a reload.
  usePolling(refetch, { every: 10_000 });
  return (
    <>
      <PageHeader title="Devices" actions={<RefreshButton onRefresh={refetch} />}>
        Machines running the envd daemon: the service lists their directories and can run environments on them.
      </PageHeader>
      <PendingPairings onDevicesChanged={() => void refetch()} />
      <section aria-labelledby="paired-devices">
        <h2 id="paired-devices">Paired devices</h2>
        <ErrorNotice error={error} />
        {loading && !data ? <Loading label="Loading devices…" /> : null}
        {data ? <DeviceList devices={data.devices} /> : null}
      </section>
    </>
  );
}
