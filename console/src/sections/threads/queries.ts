// The shapes the threads pages read, derived from the types generated for
// console/src/graphql/threads.graphql (the pages import the documents themselves from console/generated).
import type {
  ConsoleDeliverMutation,
  ConsoleThreadQuery,
  ConsoleThreadRunsQuery,
  ConsoleThreadRunStatusSubscription,
  InboxEntryFieldsFragment,
  PresenceFrameFieldsFragment,
  ThreadSummaryFragment,
} from '../../../generated/graphql';

export type LabelPair = ThreadSummary['labelList'][number];

export type ThreadSummary = ThreadSummaryFragment;

export type ThreadDetail = ConsoleThreadQuery['thread'];

export type Failure = NonNullable<ThreadRun['failure']>;

export type ThreadRun = ConsoleThreadRunsQuery['runs']['nodes'][number];

export type LiveRun = ConsoleThreadRunStatusSubscription['runStatus'];

export type InboxEntry = InboxEntryFieldsFragment;

export type DeliveryAnswer = ConsoleDeliverMutation['deliverToInbox'];

export type PresenceParticipant = PresenceFrame['participants'][number];

export type PresenceFrame = PresenceFrameFieldsFragment;
