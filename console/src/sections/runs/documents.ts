// The shapes the Runs pages read, derived from the types generated for console/src/graphql/runs.graphql
// (the pages import the documents themselves from console/generated). The run page's query and its
// runStatus subscription select the same fields, so a live state replaces the loaded one whole.
import type {
  ConsoleRunsQueryVariables,
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
/**
 * The runs list's filters, as the page keeps them in its address: the list query's filter variables,
 * the statuses always a list (the status checkboxes read it).
 */
export type RunFilters = Omit<ConsoleRunsQueryVariables, 'first' | 'after' | 'status'> & { status?: RunStatus[] };

/** A message as the service takes it: one text part. */
export const textMessage = (text: string) => ({ content: [{ type: 'text', text }] });
