// REST rows — Environment templates and environments.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { actionRow, createRow, getRow, listRow, updateRow, type Route } from '../../../../rest-shim/route-table.js';

export const environmentRoutes: Route[] = [
  createRow('/api/v1/environment-templates', 'EnvironmentTemplateCreate', 'createEnvironmentTemplate.environmentTemplate'),
  listRow('/api/v1/environment-templates', 'EnvironmentTemplatesList', 'environmentTemplates', (req) => ({
    label: req.queryList('label'),
    q: req.query('q'),
    enabled: req.queryBool('enabled'),
  })),
  getRow('/api/v1/environment-templates/:template_id', 'EnvironmentTemplateGet', 'environmentTemplate'),
  updateRow('/api/v1/environment-templates/:template_id', 'EnvironmentTemplateUpdate', 'updateEnvironmentTemplate.environmentTemplate'),
  createRow('/api/v1/environments', 'EnvironmentCreate', 'createEnvironment.environment'),
  listRow('/api/v1/environments', 'EnvironmentsList', 'environments', (req) => ({
    label: req.queryList('label'),
    status: req.query('status'),
    templateId: req.query('template_id'),
  })),
  getRow('/api/v1/environments/:environment_id', 'EnvironmentGet', 'environment'),
  actionRow('POST', '/api/v1/environments/:environment_id/stop', 'EnvironmentStop', 'stopEnvironment.environment'),
  actionRow('POST', '/api/v1/environments/:environment_id/start', 'EnvironmentStart', 'startEnvironment.environment'),
  actionRow('DELETE', '/api/v1/environments/:environment_id', 'EnvironmentDestroy', 'destroyEnvironment.environment'),
];
