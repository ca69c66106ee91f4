// The GraphQL documents of the Runs section and the shapes of their answers. The run page's query and
// its runStatus subscription select the same fields, so a live state replaces the loaded one whole.
import {
  ConsoleCancelRunDocument,
  ConsoleForkRunDocument,
  ConsoleResumeRunDocument,
  ConsoleRunAgentChoicesDocument,
  ConsoleRunDocument,
  ConsoleRunItemsDocument,
  ConsoleRunItemsLiveDocument,
  ConsoleRunLineageDocument,
  ConsoleRunStatusDocument,
  ConsoleRunThreadUpdatedDocument,
  ConsoleRunsDocument,
  ConsoleStartRunDocument,
} from '../../../generated/graphql';

import type {
  PendingToolCallFragment,
  RunDetailFragment,
  RunItemFieldsFragment,
  RunStatus,
  RunSummaryFragment,
} from '../../../generated/graphql';

export type { RunStatus };
export const RUN_STATUSES: RunStatus[] = ['accepted', 'running', 'waiting', 'completed', 'failed', 'cancelled'];
/** Statuses after which a run does not move any more by itself (waiting needs a resume). */
export const SETTLED: RunStatus[] = ['waiting', 'completed', 'failed', 'cancelled'];

export type PendingToolCall = PendingToolCallFragment;
/** A waiting run that was answered stays `waiting` and names the run that continued it (`resumedById`). */
export type RunSummary = RunSummaryFragment;
/** `resumeDocument`: the answers a resumed run continues from (`{approvals, calls, input}`), null for other runs. */
export type RunDetail = RunDetailFragment;
/** `content` is the item's JSON object (its members depend on `kind`). */
export type RunItem = RunItemFieldsFragment;
/** The runs list's filters, as the page keeps them in its address (local UI state). */
export interface RunFilters {
  status?: RunStatus[];
  agentId?: string;
  threadId?: string;
  createdAfter?: string;
  createdBefore?: string;
}

export const RUNS = ConsoleRunsDocument;

export const AGENT_CHOICES = ConsoleRunAgentChoicesDocument;

export const RUN = ConsoleRunDocument;

export const RUN_STATUS = ConsoleRunStatusDocument;

export const RUN_ITEMS = ConsoleRunItemsDocument;

export const RUN_ITEMS_LIVE = ConsoleRunItemsLiveDocument;

export const RUN_LINEAGE = ConsoleRunLineageDocument;

export const START_RUN = ConsoleStartRunDocument;

export const RESUME_RUN = ConsoleResumeRunDocument;

export const CANCEL_RUN = ConsoleCancelRunDocument;

export const FORK_RUN = ConsoleForkRunDocument;

/** A message as the service takes it: one text part. */
export const textMessage = (text: string) => ({ content: [{ type: 'text', text }] });

/** The run's thread, followed while the run waits: a resume made elsewhere moves its last run on. */
export const RUN_THREAD_UPDATED = ConsoleRunThreadUpdatedDocument;
