// The GraphQL documents of the findings pages and the shapes they answer.
import {
  ConsoleAnalysisFindingsDocument,
  ConsoleAnalystRunStatusDocument,
  ConsoleFindingAgentsDocument,
  ConsoleFindingAnalysesDocument,
  ConsoleFindingAnalysisDocument,
  ConsoleFindingDocument,
  ConsoleFindingsDocument,
  ConsoleStartFindingAnalysisDocument,
  ConsoleUpdateFindingDocument,
} from '../../../generated/graphql';
import type {
  AnalysisDetailFragment,
  AnalysisSummaryFragment,
  ConsoleFindingAgentsQuery,
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

export const FINDINGS = ConsoleFindingsDocument;

export const FINDING = ConsoleFindingDocument;

export type FindingReview = UpdateFindingInput;

export const UPDATE_FINDING = ConsoleUpdateFindingDocument;

export type AgentName = ConsoleFindingAgentsQuery['active']['nodes'][number];

/** The agents a filter or an analysis can name (archived ones too: their findings stay). */
export const AGENT_NAMES = ConsoleFindingAgentsDocument;

export type AnalysisSummary = AnalysisSummaryFragment;

export type AnalysisDetail = AnalysisDetailFragment;

export const FINDING_ANALYSES = ConsoleFindingAnalysesDocument;

export const FINDING_ANALYSIS = ConsoleFindingAnalysisDocument;

/** The findings an analysis created or updated, exactly (`change`: only the ones it created, or only the ones it found again). */
export const ANALYSIS_FINDINGS = ConsoleAnalysisFindingsDocument;

export type AnalysisInput = StartFindingAnalysisInput;

export const START_FINDING_ANALYSIS = ConsoleStartFindingAnalysisDocument;

/** The analysis agent's run as it moves, until it seals (the analysis takes its status then). */
export const ANALYST_RUN_STATUS = ConsoleAnalystRunStatusDocument;
