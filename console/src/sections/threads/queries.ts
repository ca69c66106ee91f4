// The GraphQL documents of the threads section (console/src/graphql/threads.graphql) and the shapes the
// pages read from them, all derived from the generated types.
import {
  type ConsoleDeliverMutation,
  type ConsoleThreadQuery,
  type ConsoleThreadRunsQuery,
  type ConsoleThreadRunStatusSubscription,
  type InboxEntryFieldsFragment,
  type PresenceFrameFieldsFragment,
  type ThreadSummaryFragment,
  ConsoleArchiveThreadDocument,
  ConsoleCreateThreadDocument,
  ConsoleDeliverDocument,
  ConsoleInboxDocument,
  ConsoleLeavePresenceDocument,
  ConsolePresenceChangedDocument,
  ConsolePresenceDocument,
  ConsoleThreadAgentsDocument,
  ConsoleThreadDocument,
  ConsoleThreadRunStatusDocument,
  ConsoleThreadRunsDocument,
  ConsoleThreadUpdatedDocument,
  ConsoleThreadsDocument,
  ConsoleTouchPresenceDocument,
  ConsoleUpdateInboxEntryDocument,
} from '../../../generated/graphql';

export type { PageInfo } from '../../lib/usePagedQuery';

export type LabelPair = ThreadSummary['labelList'][number];

export type ThreadSummary = ThreadSummaryFragment;

export const THREADS = ConsoleThreadsDocument;

export const CREATE_THREAD = ConsoleCreateThreadDocument;

export const ARCHIVE_THREAD = ConsoleArchiveThreadDocument;

export type ThreadDetail = ConsoleThreadQuery['thread'];

export const THREAD = ConsoleThreadDocument;

export type Failure = NonNullable<ThreadRun['failure']>;

export type ThreadRun = ConsoleThreadRunsQuery['runs']['nodes'][number];

export const THREAD_RUNS = ConsoleThreadRunsDocument;

export type LiveRun = ConsoleThreadRunStatusSubscription['runStatus'];

export const RUN_STATUS = ConsoleThreadRunStatusDocument;

export type InboxEntry = InboxEntryFieldsFragment;

export const INBOX = ConsoleInboxDocument;

export type DeliveryAnswer = ConsoleDeliverMutation['deliverToInbox'];

export const DELIVER = ConsoleDeliverDocument;

export const UPDATE_ENTRY = ConsoleUpdateInboxEntryDocument;

export const AGENTS = ConsoleThreadAgentsDocument;

export type PresenceParticipant = PresenceFrame['participants'][number];

export type PresenceFrame = PresenceFrameFieldsFragment;

export const PRESENCE = ConsolePresenceDocument;

export const TOUCH_PRESENCE = ConsoleTouchPresenceDocument;

export const PRESENCE_CHANGED = ConsolePresenceChangedDocument;

export const LEAVE_PRESENCE = ConsoleLeavePresenceDocument;

/**
 * The thread as it is, then again after every committed change of its row or inbox (a delivery, an
 * edit, a steer taken, a queued entry's turn, a run sealed or resumed, the archive): no polling.
 */
export const THREAD_UPDATED = ConsoleThreadUpdatedDocument;
