// Presence on a thread. The API's presence is per workspace and keyed by a free participant id, so the
// page scopes it to the thread by the id it announces: `thread:<thread id>:<tab>:<name>`. The tab part
// keeps two tabs of one person apart; the name is what the announcing console says about its user
// (the principal id beside it is the service's, and the one to trust). At most 80 characters.
export const PARTICIPANT_ID_MAX = 80;

export function participantIdFor(threadId: string, tab: string, name: string): string {
  const prefix = `${threadPrefix(threadId)}${tab}:`;
  return `${prefix}${name}`.slice(0, PARTICIPANT_ID_MAX);
}

export function threadPrefix(threadId: string): string {
  return `thread:${threadId}:`;
}

/** The tab and name a participant id of this thread carries; null for anyone elsewhere. */
export function parseParticipant(threadId: string, participantId: string): { tab: string; name: string } | null {
  const prefix = threadPrefix(threadId);
  if (!participantId.startsWith(prefix)) return null;
  const rest = participantId.slice(prefix.length);
  const colon = rest.indexOf(':');
  return colon < 0 ? { tab: rest, name: '' } : { tab: rest.slice(0, colon), name: rest.slice(colon + 1) };
}

/** A short random id for this tab's visit (not a secret: it only tells tabs apart). */
export function newTabId(): string {
  return Math.random().toString(36).slice(2, 8);
}

/** How often to announce: three times per TTL, so one late request does not make the user vanish. */
export function touchIntervalMs(ttlSeconds: number): number {
  return Math.max(500, (ttlSeconds * 1000) / 3);
}
