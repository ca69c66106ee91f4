// The shapes the findings pages read, derived from the types generated for
// console/src/graphql/findings.graphql (the pages import the documents themselves from console/generated).
import type {
  AnalysisDetailFragment,
  AnalysisSummaryFragment,
  AgentNameFragment,
  ConsoleFindingsQueryVariables,
  FindingDetailFragment,
  FindingSummaryFragment,
  StartFindingAnalysisInput,
  UpdateFindingInput,
} from '../../../generated/graphql';

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

export type FindingSummary = FindingSummaryFragment;

export type FindingDetail = FindingDetailFragment;

export type FindingFilters = ConsoleFindingsQueryVariables;

export type FindingReview = UpdateFindingInput;

export type AgentName = AgentNameFragment;

export type AnalysisSummary = AnalysisSummaryFragment;

export type AnalysisDetail = AnalysisDetailFragment;

export type AnalysisInput = StartFindingAnalysisInput;
