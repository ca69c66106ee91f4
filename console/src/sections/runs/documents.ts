// The GraphQL documents of the Runs section and the shapes of their answers. The run page's query and
// its runStatus subscription select the same fields, so a live state replaces the loaded one whole.
import { gql } from '../../api';

export type RunStatus = 'accepted' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';
export const RUN_STATUSES: RunStatus[] = ['accepted', 'running', 'waiting', 'completed', 'failed', 'cancelled'];
/** Statuses after which a run does not move any more by itself (waiting needs a resume). */
export const SETTLED: RunStatus[] = ['waiting', 'completed', 'failed', 'cancelled'];

export interface PendingToolCall {
  toolCallId: string;
  toolName: string;
  arguments: unknown;
  presentation: { kind: 'approval' | 'client_call' | 'question'; title: string | null; question: string | null; choices: string[] | null };
}

export interface RunSummary {
  id: string;
  status: RunStatus;
  waitReason: string | null;
  agentId: string;
  agent: { id: string; name: string };
  threadId: string;
  trigger: string;
  lineage: string;
  createdAt: string;
  sealedAt: string | null;
  /** A waiting run that was answered stays `waiting` and names the run that continued it. */
  resumedById: string | null;
}

export interface RunDetail extends RunSummary {
  version: number;
  sessionId: string;
  parentRunId: string | null;
  startedAt: string | null;
  attempts: number;
  maxAttempts: number;
  traceId: string | null;
  input: unknown;
  output: unknown;
  labels: Record<string, string>;
  failure: { code: string; message: string } | null;
  usageAtSeal: { requests: number; inputTokens: number; outputTokens: number } | null;
  cancelRequestedAt: string | null;
  /** The answers a resumed run continues from (`{approvals, calls, input}`), null for other runs. */
  resumeDocument: unknown;
  pending: { approvals: PendingToolCall[]; calls: PendingToolCall[] };
}

export interface RunItem {
  id: string;
  ordinal: number;
  kind: string;
  state: 'in_progress' | 'completed' | 'failed';
  content: Record<string, any>;
  contentRefList: { id: string; name: string; mediaType: string; preview: string; sizeBytes: number; truncated: boolean }[];
  firstStreamId: string | null;
  lastStreamId: string | null;
  startedAt: string;
  endedAt: string | null;
}

const SUMMARY_FIELDS = 'id status waitReason agentId agent { id name } threadId trigger lineage createdAt sealedAt resumedById';
const PENDING_FIELDS = 'toolCallId toolName arguments presentation { kind title question choices }';
const DETAIL_FIELDS = `${SUMMARY_FIELDS} version sessionId parentRunId startedAt attempts maxAttempts traceId input output
  labels failure { code message } usageAtSeal { requests inputTokens outputTokens } cancelRequestedAt resumeDocument
  pending { approvals { ${PENDING_FIELDS} } calls { ${PENDING_FIELDS} } }`;
const ITEM_FIELDS = `id ordinal kind state content contentRefList { id name mediaType preview sizeBytes truncated }
  firstStreamId lastStreamId startedAt endedAt`;

export interface RunFilters {
  status?: RunStatus[];
  agentId?: string;
  threadId?: string;
  createdAfter?: string;
  createdBefore?: string;
}

export const RUNS = gql<
  { runs: { edges: { node: RunSummary }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } },
  RunFilters & { first: number; after?: string }
>(`query ConsoleRuns($first: Int, $after: String, $status: [RunStatus!], $agentId: String, $threadId: String,
    $createdAfter: DateTime, $createdBefore: DateTime) {
  runs(first: $first, after: $after, status: $status, agentId: $agentId, threadId: $threadId,
       createdAfter: $createdAfter, createdBefore: $createdBefore) {
    edges { node { ${SUMMARY_FIELDS} } }
    pageInfo { hasNextPage endCursor }
  }
}`);

export const AGENT_CHOICES = gql<{ agents: { nodes: { id: string; name: string }[] } }, Record<string, never>>(
  `query ConsoleRunAgentChoices { agents(first: 100, archived: false) { nodes { id name } } }`,
);

export const RUN = gql<{ run: RunDetail }, { id: string }>(`query ConsoleRun($id: ID!) { run(id: $id) { ${DETAIL_FIELDS} } }`);

export const RUN_STATUS = gql<{ runStatus: RunDetail }, { runId: string }>(
  `subscription ConsoleRunStatus($runId: ID!) { runStatus(runId: $runId) { ${DETAIL_FIELDS} } }`,
);

export const RUN_ITEMS = gql<
  { runItems: { items: RunItem[]; complete: boolean; position: string; baseline: boolean } },
  { runId: string; limit?: number; before?: number }
>(`query ConsoleRunItems($runId: ID!, $limit: Int, $before: Int) {
  runItems(runId: $runId, limit: $limit, before: $before) { items { ${ITEM_FIELDS} } complete position baseline }
}`);

export const RUN_ITEMS_LIVE = gql<{ runItems: RunItem }, { runId: string; position?: string | null }>(
  `subscription ConsoleRunItemsLive($runId: ID!, $position: String) { runItems(runId: $runId, position: $position) { ${ITEM_FIELDS} } }`,
);

export const RUN_LINEAGE = gql<{ runLineage: { nodes: RunSummary[]; pageInfo: { hasNextPage: boolean } } }, { runId: string }>(
  `query ConsoleRunLineage($runId: ID!) { runLineage(runId: $runId, first: 50) { nodes { ${SUMMARY_FIELDS} parentRunId } pageInfo { hasNextPage } } }`,
);

export const START_RUN = gql<
  { startRun: { run: { id: string } } },
  { input: { agentId: string; threadId?: string; input: unknown; labels?: unknown; options?: unknown } }
>(`mutation ConsoleStartRun($input: StartRunInput!) { startRun(input: $input) { run { id } } }`);

export const RESUME_RUN = gql<
  { resumeRun: { run: { id: string } } },
  { runId: string; idempotencyKey: string; input: { approvals?: unknown; calls?: unknown; input?: unknown } }
>(`mutation ConsoleResumeRun($runId: ID!, $idempotencyKey: String, $input: ResumeRunInput!) {
  resumeRun(runId: $runId, idempotencyKey: $idempotencyKey, input: $input) { run { id } }
}`);

export const CANCEL_RUN = gql<{ cancelRun: { run: RunDetail } }, { id: string }>(
  `mutation ConsoleCancelRun($id: ID!) { cancelRun(id: $id) { run { ${DETAIL_FIELDS} } } }`,
);

export const FORK_RUN = gql<
  { forkRun: { run: { id: string } | null; thread: { id: string }; entry: { id: string; status: string } } },
  { runId: string; idempotencyKey: string; input: { payload: unknown } }
>(`mutation ConsoleForkRun($runId: ID!, $idempotencyKey: String, $input: ForkRunInput!) {
  forkRun(runId: $runId, idempotencyKey: $idempotencyKey, input: $input) { run { id } thread { id } entry { id status } }
}`);

/** A message as the service takes it: one text part. */
export const textMessage = (text: string) => ({ content: [{ type: 'text', text }] });

/** The run's thread, followed while the run waits: a resume made elsewhere moves its last run on. */
export const RUN_THREAD_UPDATED = gql<
  { threadUpdated: { id: string; version: number; currentRunId: string | null; lastRunId: string | null } },
  { threadId: string }
>(`subscription ConsoleRunThreadUpdated($threadId: ID!) { threadUpdated(threadId: $threadId) { id version currentRunId lastRunId } }`);
