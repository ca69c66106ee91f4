// REST rows — Provider types, the providers of each kind, and models.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { pageArgs, ifMatch, type Route } from '../../../../rest-shim/route-table.js';

export const providerRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/provider-types/:kind',
    operation: 'ProviderTypesList',
    surface: 'v1',
    variables: (req) => ({ kind: req.path('kind') }),
    // Each description's `document`: the REST view leaves out the members a type does not have.
    result: 'providerTypes.document',
    wrapItems: true,
  },
  ...(['model', 'web', 'environment', 'connector', 'memory'] as const).flatMap((kind): Route[] => {
    const base = `/api/v1/${kind}-providers`;
    return [
      {
        method: 'POST',
        path: base,
        operation: 'ProviderCreate',
        surface: 'v1',
        variables: () => ({ kind }),
        body: { input: 'input', required: true },
        result: 'createProvider.provider',
        status: 201,
      },
      {
        method: 'GET',
        path: base,
        operation: 'ProvidersList',
        surface: 'v1',
        result: 'providers',
        connection: true,
        variables: (req) => ({
          kind,
          type: req.query('type'),
          enabled: req.queryBool('enabled'),
          q: req.query('q'),
          label: req.queryList('label'),
          ...pageArgs(req),
        }),
      },
      {
        method: 'GET',
        path: `${base}/:provider_id`,
        operation: 'ProviderGet',
        surface: 'v1',
        variables: (req) => ({ kind, id: req.path('provider_id') }),
        result: 'provider',
      },
      {
        method: 'PATCH',
        path: `${base}/:provider_id`,
        operation: 'ProviderUpdate',
        surface: 'v1',
        variables: (req) => ({ kind, id: req.path('provider_id'), ...ifMatch(req) }),
        body: { input: 'input', required: true },
        result: 'updateProvider.provider',
      },
      {
        method: 'POST',
        path: `${base}/:provider_id/test`,
        operation: 'ProviderTest',
        surface: 'v1',
        variables: (req) => ({ kind, id: req.path('provider_id') }),
        body: 'none',
        result: 'testProvider',
      },
    ];
  }),
  {
    method: 'POST',
    path: '/api/v1/models',
    operation: 'ModelCreate',
    surface: 'v1',
    body: { input: 'input', required: true },
    result: 'createModel.model',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/models',
    operation: 'ModelsList',
    surface: 'v1',
    result: 'models',
    connection: true,
    variables: (req) => ({
      providerId: req.query('provider_id'),
      enabled: req.queryBool('enabled'),
      q: req.query('q'),
      label: req.queryList('label'),
      ...pageArgs(req),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/models/:model_key',
    operation: 'ModelGet',
    surface: 'v1',
    variables: (req) => ({ key: req.path('model_key') }),
    result: 'model',
  },
  {
    method: 'PATCH',
    path: '/api/v1/models/:model_key',
    operation: 'ModelUpdate',
    surface: 'v1',
    variables: (req) => ({ key: req.path('model_key'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateModel.model',
  },
];
