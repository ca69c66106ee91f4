// The GraphQL documents of the agents section, with the answer and variable types the pages read.
import { gql } from '../../api';
import type { PageInfo } from '../../lib/usePagedQuery';

export interface AgentSummary {
  id: string;
  name: string;
  description: string;
  defaultRevision: { id: string; number: number } | null;
  updatedAt: string;
  archivedAt: string | null;
  source: string;
  presetKind: string;
}

export interface Label {
  key: string;
  value: string;
}

export interface AgentHead extends AgentSummary {
  etag: string;
  version: number;
  labelList: Label[];
  createdAt: string;
  createdById: string;
  updatedById: string;
  defaultRevisionId: string | null;
}

export interface Revision {
  id: string;
  number: number;
  digest: string;
  note: string;
  createdAt: string;
  createdById: string;
  configDocument: Record<string, unknown>;
}

const SUMMARY_FIELDS = `id name description updatedAt archivedAt source presetKind defaultRevision { id number }`;
const HEAD_FIELDS = `${SUMMARY_FIELDS} etag version labelList { key value } createdAt createdById updatedById defaultRevisionId`;
const REVISION_FIELDS = `id number digest note createdAt createdById configDocument`;

export interface AgentListVariables {
  q?: string;
  archived?: boolean;
  label?: string[];
  first?: number;
  after?: string;
}

export const AGENT_LIST = gql<{ agents: { nodes: AgentSummary[]; pageInfo: PageInfo } }, AgentListVariables>(`
  query ConsoleAgents($q: String, $archived: Boolean, $label: [String!], $first: Int, $after: String) {
    agents(q: $q, archived: $archived, label: $label, first: $first, after: $after) {
      nodes { ${SUMMARY_FIELDS} }
      pageInfo { hasNextPage endCursor }
    }
  }`);

export const AGENT = gql<
  { agent: AgentHead & { defaultRevisionConfig: { id: string; number: number; configDocument: Record<string, unknown> } | null } },
  { id: string }
>(`
  query ConsoleAgent($id: ID!) {
    agent(id: $id) { ${HEAD_FIELDS} defaultRevisionConfig: defaultRevision { id number configDocument } }
  }`);

export const AGENT_REVISIONS = gql<
  { agentRevisions: { nodes: Revision[]; pageInfo: PageInfo } },
  { agentId: string; first?: number; after?: string }
>(`
  query ConsoleAgentRevisions($agentId: ID!, $first: Int, $after: String) {
    agentRevisions(agentId: $agentId, first: $first, after: $after) {
      nodes { ${REVISION_FIELDS} }
      pageInfo { hasNextPage endCursor }
    }
  }`);

export interface CreateAgentVariables {
  input: { name: string; description?: string; config: unknown; labels?: Record<string, string>; note?: string };
}

export const CREATE_AGENT = gql<{ createAgent: { agent: AgentHead } }, CreateAgentVariables>(`
  mutation ConsoleCreateAgent($input: CreateAgentInput!) { createAgent(input: $input) { agent { ${HEAD_FIELDS} } } }`);

export const UPDATE_AGENT = gql<
  { updateAgent: { agent: AgentHead } },
  { id: string; ifMatch: string; input: { name?: string; description?: string; labels?: Record<string, string> } }
>(`
  mutation ConsoleUpdateAgent($id: ID!, $ifMatch: String, $input: UpdateAgentInput!) {
    updateAgent(id: $id, ifMatch: $ifMatch, input: $input) { agent { ${HEAD_FIELDS} } }
  }`);

export const PUBLISH_REVISION = gql<
  { publishAgentRevision: { agent: AgentHead; revision: Revision; created: boolean } },
  { agentId: string; ifMatch: string; input: { config: unknown; note?: string; makeDefault?: boolean } }
>(`
  mutation ConsolePublishAgentRevision($agentId: ID!, $ifMatch: String, $input: PublishAgentRevisionInput!) {
    publishAgentRevision(agentId: $agentId, ifMatch: $ifMatch, input: $input) {
      agent { ${HEAD_FIELDS} } revision { ${REVISION_FIELDS} } created
    }
  }`);

export const SET_DEFAULT_REVISION = gql<
  { setDefaultAgentRevision: { agent: AgentHead } },
  { agentId: string; ifMatch: string; revisionId: string }
>(`
  mutation ConsoleSetDefaultAgentRevision($agentId: ID!, $ifMatch: String, $revisionId: ID!) {
    setDefaultAgentRevision(agentId: $agentId, ifMatch: $ifMatch, revisionId: $revisionId) { agent { ${HEAD_FIELDS} } }
  }`);

export const ARCHIVE_AGENT = gql<{ archiveAgent: { agent: AgentHead } }, { id: string; ifMatch: string }>(`
  mutation ConsoleArchiveAgent($id: ID!, $ifMatch: String) { archiveAgent(id: $id, ifMatch: $ifMatch) { agent { ${HEAD_FIELDS} } } }`);

export const UNARCHIVE_AGENT = gql<{ unarchiveAgent: { agent: AgentHead } }, { id: string; ifMatch: string }>(`
  mutation ConsoleUnarchiveAgent($id: ID!, $ifMatch: String) { unarchiveAgent(id: $id, ifMatch: $ifMatch) { agent { ${HEAD_FIELDS} } } }`);

// The composer: the workspace's built-in agent that proposes an agent from a description.
export const PREPARE_COMPOSER = gql<
  { prepareAgentComposer: { agent: { id: string; name: string; defaultRevisionId: string | null } } },
  Record<string, never>
>(`
  mutation ConsolePrepareAgentComposer { prepareAgentComposer { agent { id name defaultRevisionId } } }`);

export interface PendingCall {
  toolCallId: string;
  toolName: string;
  arguments: unknown;
  presentation: { kind: string; question: string | null; choices: string[] | null; title: string | null };
}

export interface ComposerRun {
  id: string;
  status: string;
  output: unknown;
  failure: { code: string; message: string } | null;
  pending: { approvals: PendingCall[]; calls: PendingCall[] };
}

const PENDING_FIELDS = `toolCallId toolName arguments presentation { kind question choices title }`;
const RUN_FIELDS = `id status output failure { code message } pending { approvals { ${PENDING_FIELDS} } calls { ${PENDING_FIELDS} } }`;

export const START_COMPOSER_RUN = gql<
  { startRun: { run: ComposerRun } },
  { input: { agentId: string; input: unknown; threadId?: string } }
>(`
  mutation ConsoleStartComposerRun($input: StartRunInput!) { startRun(input: $input) { run { ${RUN_FIELDS} threadId } } }`);

export const COMPOSER_RUN_STATUS = gql<{ runStatus: ComposerRun }, { runId: string }>(`
  subscription ConsoleComposerRunStatus($runId: ID!) { runStatus(runId: $runId) { ${RUN_FIELDS} } }`);

export interface ResumeAnswers {
  approvals?: Record<string, { action: 'approve' | 'deny' }>;
  calls?: Record<string, { status: 'returned' | 'error'; value: unknown }>;
}

export const RESUME_COMPOSER_RUN = gql<
  { resumeRun: { run: ComposerRun } },
  { runId: string; idempotencyKey: string; input: ResumeAnswers }
>(`
  mutation ConsoleResumeComposerRun($runId: ID!, $idempotencyKey: String, $input: ResumeRunInput!) {
    resumeRun(runId: $runId, idempotencyKey: $idempotencyKey, input: $input) { run { ${RUN_FIELDS} } }
  }`);

// The enabled model keys, to help the user fill `model` in a configuration.
export const MODEL_KEYS = gql<{ models: { nodes: { key: string; name: string }[]; pageInfo: PageInfo } }, { first: number }>(`
  query ConsoleAgentModelKeys($first: Int) { models(enabled: true, first: $first) { nodes { key name } pageInfo { hasNextPage endCursor } } }`);

/** One composer run's items (a composer conversation stays far below the page's limit). */
export const COMPOSER_RUN_ITEMS = gql<{ runItems: { items: { kind: string; content: unknown }[] } }, { runId: string }>(`
  query ConsoleComposerRunItems($runId: ID!) { runItems(runId: $runId, limit: 500) { items { kind content } } }`);
