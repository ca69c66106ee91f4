// REST rows — Finding analyses and findings.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { kindRows, listRow, pageArgs, type Route } from '../../../../rest-shim/route-table.js';

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
  listRow('/api/v1/finding-analyses', 'FindingAnalysesList', 'findingAnalyses'),
  {
    method: 'GET',
    path: '/api/v1/finding-analyses/:analysis_id/findings',
    operation: 'FindingAnalysisFindingsList',
    surface: 'v1',
    result: 'findingAnalysis.findings',
    connection: true,
    variables: (req) => ({ id: req.path('analysis_id'), change: req.query('change'), ...pageArgs(req) }),
  },
  ...kindRows('/api/v1/findings', 'finding_id', 'Finding', {
    omit: ['create'],
    filters: (req) => ({
      agentId: req.query('agent_id'),
      severity: req.query('severity'),
      category: req.query('category'),
      closed: req.queryBool('closed'),
    }),
  }),
];
