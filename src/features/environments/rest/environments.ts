// REST rows — Environment templates and environments.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { actionRow, enabledHeadFilters, kindRows, type Route } from '../../../../rest-shim/route-table.js';

export const environmentRoutes: Route[] = [
  ...kindRows('/api/v1/environment-templates', 'template_id', 'EnvironmentTemplate', { filters: enabledHeadFilters }),
  ...kindRows('/api/v1/environments', 'environment_id', 'Environment', {
    omit: ['update'],
    filters: (req) => ({ label: req.queryList('label'), status: req.query('status'), templateId: req.query('template_id') }),
  }),
  actionRow('POST', '/api/v1/environments/:environment_id/stop', 'EnvironmentStop', 'stopEnvironment.environment'),
  actionRow('POST', '/api/v1/environments/:environment_id/start', 'EnvironmentStart', 'startEnvironment.environment'),
  actionRow('DELETE', '/api/v1/environments/:environment_id', 'EnvironmentDestroy', 'destroyEnvironment.environment'),
];
