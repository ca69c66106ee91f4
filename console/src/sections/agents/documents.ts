// The GraphQL documents of the agents section (console/src/graphql/agents.graphql), with the answer and
// variable types the pages read, derived from the generated types.
import {
  ConsoleAgentDocument,
  ConsoleAgentModelKeysDocument,
  ConsoleAgentRevisionsDocument,
  ConsoleAgentsDocument,
  ConsoleArchiveAgentDocument,
  ConsoleComposerRunItemsDocument,
  ConsoleComposerRunStatusDocument,
  ConsoleCreateAgentDocument,
  ConsolePrepareAgentComposerDocument,
  ConsolePublishAgentRevisionDocument,
  ConsoleResumeComposerRunDocument,
  ConsoleSetDefaultAgentRevisionDocument,
  ConsoleStartComposerRunDocument,
  ConsoleUnarchiveAgentDocument,
  ConsoleUpdateAgentDocument,
} from '../../../generated/graphql';
import type {
  AgentHeadFragment,
  AgentRevisionFieldsFragment,
  AgentSummaryFragment,
  ComposerPendingCallFragment,
  ComposerRunFragment,
  ConsoleAgentsQueryVariables,
  ConsoleCreateAgentMutationVariables,
} from '../../../generated/graphql';

export type AgentSummary = AgentSummaryFragment;
export type AgentHead = AgentHeadFragment;
export type Label = AgentHead['labelList'][number];
/** `configDocument` is the revision's configuration, a JSON object. */
export type Revision = AgentRevisionFieldsFragment;
export type AgentListVariables = ConsoleAgentsQueryVariables;

export const AGENT_LIST = ConsoleAgentsDocument;

export const AGENT = ConsoleAgentDocument;

export const AGENT_REVISIONS = ConsoleAgentRevisionsDocument;

export type CreateAgentVariables = ConsoleCreateAgentMutationVariables;

export const CREATE_AGENT = ConsoleCreateAgentDocument;

export const UPDATE_AGENT = ConsoleUpdateAgentDocument;

export const PUBLISH_REVISION = ConsolePublishAgentRevisionDocument;

export const SET_DEFAULT_REVISION = ConsoleSetDefaultAgentRevisionDocument;

export const ARCHIVE_AGENT = ConsoleArchiveAgentDocument;

export const UNARCHIVE_AGENT = ConsoleUnarchiveAgentDocument;

// The composer: the workspace's built-in agent that proposes an agent from a description.
export const PREPARE_COMPOSER = ConsolePrepareAgentComposerDocument;

export type PendingCall = ComposerPendingCallFragment;
export type ComposerRun = ComposerRunFragment;

export const START_COMPOSER_RUN = ConsoleStartComposerRunDocument;

export const COMPOSER_RUN_STATUS = ConsoleComposerRunStatusDocument;

export interface ResumeAnswers {
  approvals?: Record<string, { action: 'approve' | 'deny' }>;
  calls?: Record<string, { status: 'returned' | 'error'; value: unknown }>;
}

export const RESUME_COMPOSER_RUN = ConsoleResumeComposerRunDocument;

// The enabled model keys, to help the user fill `model` in a configuration.
export const MODEL_KEYS = ConsoleAgentModelKeysDocument;

/** One composer run's items (a composer conversation stays far below the page's limit). */
export const COMPOSER_RUN_ITEMS = ConsoleComposerRunItemsDocument;
