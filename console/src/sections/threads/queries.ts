// The GraphQL documents of the threads section and the shapes the pages read from them.
import { gql } from '../../api';

export type { PageInfo } from '../../lib/usePagedQuery';
import type { PageInfo } from '../../lib/usePagedQuery';

export interface LabelPair {
  key: string;
  value: string;
}

export interface ThreadSummary {
  id: string;
  sessionId: string;
  origin: string;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
  currentRunId: string | null;
  lastRunId: string | null;
  etag: string;
  labelList: LabelPair[];
}

const THREAD_FIELDS = 'id sessionId origin createdAt updatedAt archivedAt currentRunId lastRunId etag labelList { key value }';

export const THREADS = gql<
  { threads: { nodes: ThreadSummary[]; pageInfo: PageInfo } },
  { archived?: boolean; sessionId?: string; label?: string[]; first: number; after?: string }
>(`query ConsoleThreads($archived: Boolean, $sessionId: String, $label: [String!], $first: Int, $after: String) {
  threads(archived: $archived, sessionId: $sessionId, label: $label, first: $first, after: $after) {
    nodes { ${THREAD_FIELDS} }
    pageInfo { hasNextPage endCursor }
  }
}`);

export const CREATE_THREAD = gql<
  { createThread: { thread: ThreadSummary } },
  { input: { sessionId?: string; labels?: Record<string, string> } }
>(`mutation ConsoleCreateThread($input: CreateThreadInput!) {
  createThread(input: $input) { thread { ${THREAD_FIELDS} } }
}`);

export const ARCHIVE_THREAD = gql<{ archiveThread: { thread: ThreadSummary } }, { id: string; ifMatch: string }>(
  `mutation ConsoleArchiveThread($id: ID!, $ifMatch: String) {
    archiveThread(id: $id, ifMatch: $ifMatch) { thread { ${THREAD_FIELDS} } }
  }`,
);

export interface ThreadDetail extends ThreadSummary {
  originRunId: string | null;
  originThreadId: string | null;
  subagent: string | null;
  version: number;
}

export const THREAD = gql<{ thread: ThreadDetail }, { id: string }>(`query ConsoleThread($id: ID!) {
  thread(id: $id) { ${THREAD_FIELDS} originRunId originThreadId subagent version }
}`);

export interface Failure {
  code: string;
  message: string;
}

export interface ThreadRun {
  id: string;
  status: string;
  trigger: string;
  waitReason: string | null;
  input: unknown;
  output: unknown;
  agentId: string;
  createdAt: string;
  sealedAt: string | null;
  failure: Failure | null;
}

export const THREAD_RUNS = gql<
  { runs: { nodes: ThreadRun[]; pageInfo: PageInfo } },
  { threadId: string; first: number; after?: string }
>(`query ConsoleThreadRuns($threadId: String, $first: Int, $after: String) {
  runs(threadId: $threadId, first: $first, after: $after) {
    nodes { id status trigger waitReason input output agentId createdAt sealedAt failure { code message } }
    pageInfo { hasNextPage endCursor }
  }
}`);

export interface LiveRun {
  id: string;
  status: string;
  waitReason: string | null;
  output: unknown;
  failure: Failure | null;
  version: number;
}

export const RUN_STATUS = gql<{ runStatus: LiveRun }, { runId: string }>(`subscription ConsoleThreadRunStatus($runId: ID!) {
  runStatus(runId: $runId) { id status waitReason output failure { code message } version }
}`);

export interface InboxEntry {
  id: string;
  position: number;
  status: string;
  delivery: string;
  payload: unknown;
  assignedRunId: string | null;
  originRunId: string | null;
  principalId: string;
  createdAt: string;
  incorporatedCheckpointSeq: number;
  failure: Failure | null;
  threadEtag: string;
}

const ENTRY_FIELDS =
  'id position status delivery payload assignedRunId originRunId principalId createdAt incorporatedCheckpointSeq failure { code message } threadEtag';

export const INBOX = gql<
  { inboxEntries: { nodes: InboxEntry[]; pageInfo: PageInfo } },
  { threadId: string; first: number; after?: string }
>(`query ConsoleInbox($threadId: ID!, $first: Int, $after: String) {
  inboxEntries(threadId: $threadId, first: $first, after: $after) {
    nodes { ${ENTRY_FIELDS} }
    pageInfo { hasNextPage endCursor }
  }
}`);

export interface DeliveryAnswer {
  entry: InboxEntry;
  run: { id: string; status: string } | null;
}

export const DELIVER = gql<
  { deliverToInbox: DeliveryAnswer },
  { threadId: string; input: { delivery: string; payload: unknown; agentId?: string } }
>(`mutation ConsoleDeliver($threadId: ID!, $input: DeliverInput!) {
  deliverToInbox(threadId: $threadId, input: $input) { entry { ${ENTRY_FIELDS} } run { id status } }
}`);

export const UPDATE_ENTRY = gql<
  { updateInboxEntry: DeliveryAnswer },
  { threadId: string; entryId: string; ifMatch: string; input: { delivery?: string; payload?: unknown } }
>(`mutation ConsoleUpdateInboxEntry($threadId: ID!, $entryId: ID!, $ifMatch: String, $input: UpdateInboxEntryInput!) {
  updateInboxEntry(threadId: $threadId, entryId: $entryId, ifMatch: $ifMatch, input: $input) { entry { ${ENTRY_FIELDS} } run { id status } }
}`);

export const AGENTS = gql<{ agents: { nodes: { id: string; name: string }[] } }, Record<string, never>>(
  `query ConsoleThreadAgents { agents(archived: false, first: 100) { nodes { id name } } }`,
);

export interface PresenceParticipant {
  participantId: string;
  principalId: string;
  principalKind: string;
  firstSeenAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

export interface PresenceFrame {
  ttlSeconds: number;
  serverTime: string;
  participants: PresenceParticipant[];
}

const FRAME_FIELDS = 'ttlSeconds serverTime participants { participantId principalId principalKind firstSeenAt lastSeenAt expiresAt }';

export const PRESENCE = gql<{ presence: PresenceFrame; viewer: { principalId: string } }, Record<string, never>>(
  `query ConsolePresence { presence { ${FRAME_FIELDS} } viewer { principalId } }`,
);

export const TOUCH_PRESENCE = gql<{ touchPresence: { presence: PresenceFrame } }, { participantId: string }>(
  `mutation ConsoleTouchPresence($participantId: String) { touchPresence(participantId: $participantId) { presence { ${FRAME_FIELDS} } } }`,
);

export const PRESENCE_CHANGED = gql<{ presenceChanged: PresenceFrame }, Record<string, never>>(
  `subscription ConsolePresenceChanged { presenceChanged { ${FRAME_FIELDS} } }`,
);

/**
 * The thread as it is, then again after every committed change of its row or inbox (a delivery, an
 * edit, a steer taken, a queued entry's turn, a run sealed or resumed, the archive): no polling.
 */
export const THREAD_UPDATED = gql<
  { threadUpdated: ThreadDetail },
  { threadId: string }
>(`subscription ConsoleThreadUpdated($threadId: ID!) {
  threadUpdated(threadId: $threadId) { ${THREAD_FIELDS} originRunId originThreadId subagent version }
}`);
