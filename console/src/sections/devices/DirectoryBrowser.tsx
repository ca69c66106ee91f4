// Browses a connected device's directories (the service relays each listing over the device's socket).
// It starts at the roots the daemon serves; the trail of opened directories gives "Up" without the
// console guessing the device's path rules (it may not be POSIX).
import { ConsoleDeviceDirectoriesDocument } from '../../../generated/graphql';
import { useId, useState, type FormEvent } from 'react';
import { useQuery } from '../../api';
import { ColumnHeads, Empty, ErrorNotice, Field, Loading } from '../../components/ui';

export function DirectoryBrowser({ deviceId }: { deviceId: string }) {
  // trail[0] is the roots (null); the last item is the directory shown.
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  const [typed, setTyped] = useState('');
  const path = trail[trail.length - 1] ?? null;
  const { data, error, loading } = useQuery(ConsoleDeviceDirectoriesDocument, { id: deviceId, path });
  const listing = data && data.deviceDirectories.path === path ? data.deviceDirectories : undefined;
  const captionId = useId();

  function goTo(event: FormEvent) {
    event.preventDefault();
    if (typed.trim()) setTrail([null, typed.trim()]);
  }

  return (
    <section aria-labelledby="device-directories">
      <h2 id="device-directories">Directories</h2>
      <div className="directory-trail">
        <button type="button" className="secondary" onClick={() => setTrail([null])} disabled={path === null}>
          Roots
        </button>
        <button type="button" className="secondary" onClick={() => setTrail(trail.slice(0, -1))} disabled={trail.length < 2}>
          Up
        </button>
        <span aria-live="polite">{path === null ? 'The directories this device serves' : <code>{path}</code>}</span>
      </div>
      <form className="filters" onSubmit={goTo} aria-label="Open a directory by its path">
        <Field label="Path on the device" value={typed} onValue={setTyped} placeholder="/home/me/src" />
        <button type="submit">Open</button>
      </form>
      <ErrorNotice error={error} title="Could not list the directory" />
      {loading ? <Loading label="Asking the device…" /> : null}
      {listing && listing.entries.length === 0 ? <Empty>No subdirectories.</Empty> : null}
      {listing && listing.entries.length > 0 ? (
        <table aria-labelledby={captionId}>
          <caption id={captionId}>{path === null ? 'Roots' : `Subdirectories of ${path}`}</caption>
          <ColumnHeads names={['Name', 'Path']} />
          <tbody>
            {listing.entries.map((entry) => (
              <tr key={entry.path}>
                <td>
                  <button type="button" className="link" onClick={() => setTrail([...trail, entry.path])} aria-label={`Open ${entry.name}`}>
                    {entry.name}
                  </button>
                </td>
                <td>
                  <code>{entry.path}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {listing?.truncated ? <p className="muted">The device lists at most 1000 entries; more exist.</p> : null}
    </section>
  );
}
