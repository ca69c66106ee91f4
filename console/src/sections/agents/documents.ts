// The shapes the agents pages read, derived from the types generated for
// console/src/graphql/agents.graphql (the pages import the documents themselves from console/generated).
import type {
  AgentHeadFragment,
  AgentRevisionFieldsFragment,
  AgentSummaryFragment,
  PendingToolCallFragment,
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

export type CreateAgentVariables = ConsoleCreateAgentMutationVariables;

export type PendingCall = PendingToolCallFragment;
export type ComposerRun = ComposerRunFragment;

export interface ResumeAnswers {
  approvals?: Record<string, { action: 'approve' | 'deny' }>;
  calls?: Record<string, { status: 'returned' | 'error'; value: unknown }>;
}
