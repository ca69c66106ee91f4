// Who else has this thread open. While the page is open it announces its user (touchPresence, again
// before the TTL runs out) and follows the workspace's presence frames (the presence query, then the
// presenceChanged subscription), showing the participants of this thread. Leaving the page leaves at
// once (leavePresence), so the others see it go without waiting for the TTL: on unmount through the
// client, and when the browser closes or navigates away (`pagehide`) with a `keepalive` DELETE
// /api/presence, the one request a closing page can still send.
import {
  ConsoleLeavePresenceDocument,
  ConsolePresenceChangedDocument,
  ConsolePresenceDocument,
  ConsoleTouchPresenceDocument,
} from '../../../generated/graphql';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useClient, useQuery, useSubscription } from '../../api';
import { useAuth } from '../../auth';
import { ErrorNotice, Time } from '../../components/ui';
import { newTabId, parseParticipant, participantIdFor, touchIntervalMs } from './presence';
import { type PresenceFrame } from './queries';

/** Leaves from a page being closed: fetch with keepalive outlives the page (the GraphQL client's requests may not). */
function leaveOnUnload(participantId: string, credential: { token: string; workspaceId?: string | null }) {
  const headers: Record<string, string> = { authorization: `Bearer ${credential.token}` };
  if (credential.workspaceId) headers['x-workspace-id'] = credential.workspaceId;
  void fetch(`/api/presence?participant_id=${encodeURIComponent(participantId)}`, { method: 'DELETE', headers, keepalive: true }).catch(
    () => undefined, // the entry expires after the TTL anyway
  );
}

export function ThreadPresence({ threadId }: { threadId: string }) {
  const client = useClient();
  const { signedIn } = useAuth();
  const name = signedIn?.user ? signedIn.user.name || signedIn.user.email : 'API key';
  const tab = useMemo(newTabId, []);
  const me = participantIdFor(threadId, tab, name);
  const [frame, setFrame] = useState<PresenceFrame | null>(null);
  const [touchError, setTouchError] = useState<unknown>(undefined);
  // Frames arrive from three places (query, touches, subscription); the newest by server time wins.
  const accept = useRef((next: PresenceFrame) =>
    setFrame((previous) => (previous && Date.parse(previous.serverTime) > Date.parse(next.serverTime) ? previous : next)),
  ).current;
  const initial = useQuery(ConsolePresenceDocument, {});
  useEffect(() => {
    if (initial.data) accept(initial.data.presence);
  }, [initial.data, accept]);
  const { error: liveError } = useSubscription(ConsolePresenceChangedDocument, {}, (data) => accept(data.presenceChanged));

  // Read when the page closes (a ref: a new credential object must not restart the announcing).
  const credential = useRef(signedIn?.credential);
  credential.current = signedIn?.credential;
  // Announcements and leaves go to the service one after another, across re-runs of the effect below
  // too: a leave overtaken by the next announcement (or the reverse) would leave the wrong state behind.
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  useEffect(() => {
    const inTurn = <T,>(request: () => Promise<T>): Promise<T> => {
      const answer = queue.current.then(request);
      queue.current = answer.catch(() => undefined);
      return answer;
    };
    let stopped = false;
    // Whether the page already said goodbye (pagehide); a page restored from the back/forward cache announces again.
    let leftOnUnload = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const touch = async () => {
      let ttl = 60;
      try {
        const data = await inTurn(() => client.mutate(ConsoleTouchPresenceDocument, { participantId: me }));
        ttl = data.touchPresence.presence.ttlSeconds;
        if (!stopped) {
          accept(data.touchPresence.presence);
          setTouchError(undefined);
        }
      } catch (error) {
        if (!stopped) setTouchError(error);
      }
      if (!stopped) timer = setTimeout(() => void touch(), touchIntervalMs(ttl));
    };
    const onPageHide = () => {
      if (!credential.current) return;
      leftOnUnload = true;
      leaveOnUnload(me, credential.current);
    };
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted && leftOnUnload) {
        leftOnUnload = false;
        clearTimeout(timer);
        void touch();
      }
    };
    window.addEventListener('pagehide', onPageHide);
    window.addEventListener('pageshow', onPageShow);
    void touch();
    return () => {
      stopped = true;
      clearTimeout(timer);
      window.removeEventListener('pagehide', onPageHide);
      window.removeEventListener('pageshow', onPageShow);
      // Leaving the page within the console (another route, another thread): leave at once.
      if (!leftOnUnload) void inTurn(() => client.mutate(ConsoleLeavePresenceDocument, { participantId: me })).catch(() => undefined);
    };
  }, [client, me, accept]);

  const myPrincipal = initial.data?.viewer.principalId ?? signedIn?.user?.id;
  const here = (frame?.participants ?? [])
    .map((participant) => ({ participant, parsed: parseParticipant(threadId, participant.participantId) }))
    .filter((row) => row.parsed !== null);
  return (
    <section aria-labelledby="thread-presence-heading" className="panel">
      <h2 id="thread-presence-heading">On this thread now</h2>
      <ErrorNotice error={touchError ?? liveError ?? initial.error} title="Presence" />
      <ul aria-label="People on this thread" aria-live="polite" className="thread-presence">
        {here.map(({ participant, parsed }) => {
          const you = participant.participantId === me;
          const sameUser = participant.principalId === myPrincipal;
          return (
            <li key={`${participant.principalId}:${participant.participantId}`}>
              <strong>{parsed!.name || participant.principalId}</strong>{' '}
              <span className="muted">
                ({you ? 'you, this tab' : sameUser ? 'you, another tab' : participant.principalId}) since{' '}
                <Time value={participant.firstSeenAt} />
              </span>
            </li>
          );
        })}
      </ul>
      {here.length <= 1 ? <p className="muted">Nobody else has this thread open.</p> : null}
    </section>
  );
}
