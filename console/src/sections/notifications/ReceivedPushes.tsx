// The pushes the service worker showed while this page was open, newest first, announced politely.
import { Empty, Time } from '../../components/ui';

export interface ReceivedPush {
  receivedAt: string;
  payload: unknown;
}

interface PushPayload {
  kind?: string;
  title?: string;
  body?: string;
  url?: string;
}

function readPayload(payload: unknown): PushPayload {
  if (!payload || typeof payload !== 'object') return {};
  const { kind, title, body, url } = payload as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { kind: text(kind), title: text(title), body: text(body), url: text(url) };
}

/** Deep links in payloads are relative to the console's origin; anything else is not followed. */
function sameOriginPath(url: string | undefined): string | undefined {
  return url && url.startsWith('/') && !url.startsWith('//') ? url : undefined;
}

export function ReceivedPushes({ pushes }: { pushes: ReceivedPush[] }) {
  return (
    <section aria-labelledby="received-pushes">
      <h2 id="received-pushes">Received while this page is open</h2>
      <div role="status" aria-label="Received notifications">
        {pushes.length === 0 ? (
          <Empty>None yet.</Empty>
        ) : (
          <ul className="received-pushes">
            {pushes.map((push, index) => {
              const payload = readPayload(push.payload);
              const link = sameOriginPath(payload.url);
              return (
                <li key={`${push.receivedAt}-${pushes.length - index}`}>
                  <strong>{payload.title ?? 'Notification'}</strong>
                  {payload.kind ? <span className="badge">{payload.kind}</span> : null} <Time value={push.receivedAt} />
                  {payload.body ? <p>{payload.body}</p> : null}
                  {link ? (
                    <a href={link} aria-label={`Open ${payload.title ?? 'the notification'}`}>
                      Open
                    </a>
                  ) : null}
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </section>
  );
}
