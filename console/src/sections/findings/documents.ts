// The GraphQL documents of the findings pages and the shapes they answer.
import { gql } from '../../api';
import type { Connection } from '../../lib/usePagedQuery';

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const ASSESSMENTS = ['unreviewed', 'confirmed', 'not_a_problem', 'fixed', 'wont_fix'] as const;
/** The detectors' categories (docs/api/findings.md); the analysis agent may name others. */
export const KNOWN_CATEGORIES = [
  'execution_failure',
  'retries_exhausted',
  'usage_limit',
  'output_spec',
  'tool_error',
  'tool_loop',
  'denied_action',
  'latency',
];
export const PRESETS = [
  { value: 'execution', label: 'execution: failed runs, tool errors, loops, denied actions' },
  { value: 'performance', label: 'performance: latency outliers' },
  { value: 'all', label: 'all: every detector' },
];

export interface FindingSummary {
  id: string;
  title: string;
  severity: string;
  category: string;
  agentId: string;
  analysisId: string;
  assessment: string;
  closed: boolean;
  updatedAt: string;
}

export interface FindingDetail extends FindingSummary {
  sourceKey: string;
  sourceRunId: string | null;
  agentRevisionId: string | null;
  explanation: string;
  suggestion: string;
  limitations: string;
  assessmentNote: string;
  evidence: { runId: string; traceId: string; spanIds: string[] }[];
  version: number;
  etag: string;
  createdAt: string;
  createdById: string;
  updatedById: string;
}

const SUMMARY = `id title severity category agentId analysisId assessment closed updatedAt`;
const DETAIL = `${SUMMARY} sourceKey sourceRunId agentRevisionId explanation suggestion limitations assessmentNote
  evidence { runId traceId spanIds } version etag createdAt createdById updatedById`;

export interface FindingFilters {
  agentId?: string | null;
  severity?: string | null;
  category?: string | null;
  closed?: boolean | null;
  first?: number;
  after?: string | null;
}

export const FINDINGS = gql<{ findings: Connection<FindingSummary> }, FindingFilters>(`
  query ConsoleFindings($agentId: String, $severity: String, $category: String, $closed: Boolean, $first: Int, $after: String) {
    findings(agentId: $agentId, severity: $severity, category: $category, closed: $closed, first: $first, after: $after) {
      nodes { ${SUMMARY} }
      pageInfo { hasNextPage endCursor }
    }
  }`);

export const FINDING = gql<{ finding: FindingDetail }, { id: string }>(`
  query ConsoleFinding($id: ID!) { finding(id: $id) { ${DETAIL} } }`);

export interface FindingReview {
  assessment?: string;
  assessmentNote?: string | null;
  closed?: boolean;
}

export const UPDATE_FINDING = gql<{ updateFinding: { finding: FindingDetail } }, { id: string; ifMatch: string; input: FindingReview }>(`
  mutation ConsoleUpdateFinding($id: ID!, $ifMatch: String, $input: UpdateFindingInput!) {
    updateFinding(id: $id, ifMatch: $ifMatch, input: $input) { finding { ${DETAIL} } }
  }`);

export interface AgentName {
  id: string;
  name: string;
}

/** The agents a filter or an analysis can name (archived ones too: their findings stay). */
export const AGENT_NAMES = gql<{ active: { nodes: AgentName[] }; archived: { nodes: AgentName[] } }>(`
  query ConsoleFindingAgents {
    active: agents(first: 100) { nodes { id name } }
    archived: agents(first: 100, archived: true) { nodes { id name } }
  }`);

export interface AnalysisSummary {
  id: string;
  agentId: string | null;
  runId: string | null;
  runStatus: string | null;
  findingCount: number;
  citedTraceCount: number;
  readTraceIds: string[];
  selectionTruncated: boolean;
  createdAt: string;
}

export interface AnalysisDetail extends AnalysisSummary {
  sessionId: string | null;
  threadId: string | null;
  selectedTraces: { runId: string; traceId: string }[];
  selection: {
    agentId: string | null;
    traceId: string | null;
    maxTraces: number;
    presets: string[];
    startedAfter: string | null;
    startedBefore: string | null;
  };
  createdById: string;
  updatedAt: string;
}

const ANALYSIS_SUMMARY = `id agentId runId runStatus findingCount citedTraceCount readTraceIds selectionTruncated createdAt`;
const ANALYSIS_DETAIL = `${ANALYSIS_SUMMARY} sessionId threadId selectedTraces { runId traceId }
  selection { agentId traceId maxTraces presets startedAfter startedBefore } createdById updatedAt`;

export const FINDING_ANALYSES = gql<{ findingAnalyses: Connection<AnalysisSummary> }, { first?: number; after?: string | null }>(`
  query ConsoleFindingAnalyses($first: Int, $after: String) {
    findingAnalyses(first: $first, after: $after) { nodes { ${ANALYSIS_SUMMARY} } pageInfo { hasNextPage endCursor } }
  }`);

export const FINDING_ANALYSIS = gql<{ findingAnalysis: AnalysisDetail }, { id: string }>(`
  query ConsoleFindingAnalysis($id: ID!) { findingAnalysis(id: $id) { ${ANALYSIS_DETAIL} } }`);

/** The findings an analysis created or updated, exactly (`change`: only the ones it created, or only the ones it found again). */
export const ANALYSIS_FINDINGS = gql<
  { findingAnalysis: { id: string; findings: Connection<FindingSummary> } },
  { id: string; change?: string | null; first?: number; after?: string | null }
>(`
  query ConsoleAnalysisFindings($id: ID!, $change: String, $first: Int, $after: String) {
    findingAnalysis(id: $id) {
      id
      findings(change: $change, first: $first, after: $after) { nodes { ${SUMMARY} } pageInfo { hasNextPage endCursor } }
    }
  }`);

export interface AnalysisInput {
  agentId?: string;
  traceId?: string;
  maxTraces?: number;
  presets?: string[];
  startedAfter?: string;
  startedBefore?: string;
}

export const START_FINDING_ANALYSIS = gql<
  { startFindingAnalysis: { findingAnalysis: AnalysisDetail } },
  { idempotencyKey: string; input: AnalysisInput }
>(`
  mutation ConsoleStartFindingAnalysis($idempotencyKey: String!, $input: StartFindingAnalysisInput) {
    startFindingAnalysis(idempotencyKey: $idempotencyKey, input: $input) { findingAnalysis { ${ANALYSIS_DETAIL} } }
  }`);

/** The analysis agent's run as it moves, until it seals (the analysis takes its status then). */
export const ANALYST_RUN_STATUS = gql<{ runStatus: { id: string; status: string } }, { runId: string }>(`
  subscription ConsoleAnalystRunStatus($runId: ID!) { runStatus(runId: $runId) { id status } }`);
