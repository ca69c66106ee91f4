// REST rows — Finding analyses and findings.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { pageArgs, ifMatch, type Route } from '../../../../rest-shim/route-table.js';

export const findingRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/finding-analyses',
    operation: 'FindingAnalysisStart',
    surface: 'v1',
    variables: (req) => ({ idempotencyKey: req.header('idempotency-key') }),
    body: { input: 'input' },
    result: 'startFindingAnalysis.findingAnalysis',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/finding-analyses',
    operation: 'FindingAnalysesList',
    surface: 'v1',
    result: 'findingAnalyses',
    connection: true,
    variables: pageArgs,
  },
  {
    method: 'GET',
    path: '/api/v1/finding-analyses/:analysis_id/findings',
    operation: 'FindingAnalysisFindingsList',
    surface: 'v1',
    result: 'findingAnalysis.findings',
    connection: true,
    variables: (req) => ({ id: req.path('analysis_id'), change: req.query('change'), ...pageArgs(req) }),
  },
  {
    method: 'GET',
    path: '/api/v1/findings',
    operation: 'FindingsList',
    surface: 'v1',
    result: 'findings',
    connection: true,
    variables: (req) => ({
      agentId: req.query('agent_id'),
      severity: req.query('severity'),
      category: req.query('category'),
      closed: req.queryBool('closed'),
      ...pageArgs(req),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/findings/:finding_id',
    operation: 'FindingGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('finding_id') }),
    result: 'finding',
  },
  {
    method: 'PATCH',
    path: '/api/v1/findings/:finding_id',
    operation: 'FindingUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('finding_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateFinding.finding',
  },
];
