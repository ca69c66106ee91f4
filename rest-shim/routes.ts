// The REST contract as a table: method + path → a named GraphQL operation in operations/, with
// how the request maps onto its variables and how its result maps onto the response.
// Business rules never live here; the shim only translates.

import type { RouteDeprecation } from './deprecation.js';

export type Surface = 'v1' | 'support';

export interface RouteRequest {
  path(name: string): string;
  header(name: string): string | null;
  query(name: string): string | null;
  queryList(name: string): string[] | null;
  queryInt(name: string): number | null;
  queryBool(name: string): boolean | null;
  queryDate(name: string): string | null;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** File name (without .graphql) and operation name in operations/. */
  operation: string;
  surface: Surface;
  /** Variables from path, query and headers. */
  variables?: (req: RouteRequest) => Record<string, unknown>;
  /**
   * How the JSON body maps onto variables: `input` puts the whole object in that variable
   * (top-level keys snake_case → camelCase; values untouched), `fields` maps named keys to
   * variables. `none`: a body is refused.
   */
  body?: { input: string; required?: boolean } | { fields: Record<string, string>; required?: boolean } | 'none';
  /**
   * The field of `data` that is the response (a dotted path for nested fields; a step applied to a
   * list applies to each of its elements: `providerTypes.document` is every description's document).
   */
  result: string;
  status?: number;
  /** A binary body (e.g. an image): its bytes go base64-encoded into `content`, its media type into `mediaType`. */
  rawBody?: { content: string; mediaType: string };
  /** A binary response: the result's base64 `content` field is sent as bytes of its `mediaType` field. */
  binary?: { content: string; mediaType: string; etag?: string };
  /**
   * A file upload, streamed (never held in memory) to a temporary file up to the upload limit (larger:
   * 413), then passed to the operation as a `File` in `input.file`: the raw body with its
   * Content-Type, or the `file` part of a multipart/form-data body whose other parts are the
   * input's fields (snake_case; `json` names the ones whose values are JSON text). `check` names an
   * operation executed first, with `$sizeBytes` from Content-Length: its error is the answer, and the
   * body is never read.
   */
  upload?: { input: string; json: string[]; check?: string };
  /**
   * A download read through the operation a range at a time (its `$offset` and `$length`
   * variables): honours `Range` (one range; 206, or 416 outside the content), `If-Range` and
   * `If-None-Match` (304) against the ETag `"<etag field>"`.
   */
  download?: { content: string; mediaType: string; size: string; etag: string };
  /**
   * The result is a bare list: answer `{items: [...]}`; `'page'`: a list that is one whole page,
   * answered as a list page that ends there (`{items: [...], next_cursor: null}`).
   */
  wrapItems?: true | 'page';
  /**
   * The result is a Relay connection whose document selects `nodes` and `pageInfo { hasNextPage
   * endCursor }` with the route's `limit` and `cursor` passed as `first` and `after`: answered as a
   * list page, `{items: nodes, next_cursor: endCursor when hasNextPage, else null}`, and problems
   * with `first`/`after` named `limit`/`cursor`, as the caller sent them.
   */
  connection?: true;
  /** 204 without a body. */
  empty?: boolean;
  /**
   * Honours `Prefer: wait=N` (RFC 7240) by passing N as the operation's `$wait` variable and answering
   * `Preference-Applied: wait=N`; `applied` names a boolean result field that says whether the
   * operation applied it (the field is not sent).
   */
  wait?: true | { applied: string };
  /**
   * The route takes `If-Match` without needing it: a given one is checked (412 when stale), a missing
   * one is no refusal (no 428). Its OpenAPI description says so.
   */
  ifMatchOptional?: true;
  /**
   * Deprecated (docs/api/compatibility.md): every answer carries `Deprecation`, `Sunset` and the
   * successor's `Link`, and the OpenAPI description marks the operation `deprecated`.
   */
  deprecated?: RouteDeprecation;
}

const pageArgs = (req: RouteRequest) => ({ limit: req.queryInt('limit'), cursor: req.query('cursor') });
const headListArgs = (req: RouteRequest) => ({
  label: req.queryList('label'),
  q: req.query('q'),
  archived: req.queryBool('archived'),
  ...pageArgs(req),
});
const ifMatch = (req: RouteRequest) => ({ ifMatch: req.header('if-match') });
/** `label=key:value` query values as a labels map (null when none); a value without `:` is passed on for the service to refuse. */
const labelMap = (values: string[] | null): Record<string, string> | string[] | null => {
  if (!values) return null;
  if (values.some((value) => !value.includes(':'))) return values;
  return Object.fromEntries(values.map((value) => [value.slice(0, value.indexOf(':')), value.slice(value.indexOf(':') + 1)]));
};

/** The routes every revisioned kind (agents, skills) has, with its operation names. */
function revisionedRoutes(
  base: string,
  param: string,
  op: string,
  idVar: string,
  extraListArgs: (req: RouteRequest) => Record<string, unknown> = () => ({}),
): Route[] {
  const head = `${base}/:${param}`;
  const id = (req: RouteRequest) => ({ [idVar]: req.path(param) });
  const plural = op === 'Agent' ? 'Agents' : `${op}s`;
  const mutationPrefix = op.charAt(0).toLowerCase() + op.slice(1);
  return [
    {
      method: 'POST',
      path: base,
      operation: `${op}Create`,
      surface: 'v1',
      body: { input: 'input', required: true },
      result: `create${op}.${mutationPrefix}`,
      status: 201,
    },
    {
      method: 'GET',
      path: base,
      operation: `${plural}List`,
      surface: 'v1',
      variables: (req) => ({ ...headListArgs(req), ...extraListArgs(req) }),
      result: `${mutationPrefix}s`,
      connection: true,
    },
    {
      method: 'GET',
      path: head,
      operation: `${op}Get`,
      surface: 'v1',
      variables: (req) => ({ id: req.path(param) }),
      result: mutationPrefix,
    },
    {
      method: 'PATCH',
      path: head,
      operation: `${op}Update`,
      surface: 'v1',
      variables: (req) => ({ id: req.path(param), ...ifMatch(req) }),
      body: { input: 'input', required: true },
      result: `update${op}.${mutationPrefix}`,
    },
    {
      method: 'POST',
      path: `${head}/archive`,
      operation: `${op}Archive`,
      surface: 'v1',
      variables: (req) => ({ id: req.path(param), ...ifMatch(req) }),
      body: 'none',
      result: `archive${op}.${mutationPrefix}`,
    },
    {
      method: 'POST',
      path: `${head}/unarchive`,
      ifMatchOptional: true,
      operation: `${op}Unarchive`,
      surface: 'v1',
      variables: (req) => ({ id: req.path(param), ...ifMatch(req) }),
      body: 'none',
      result: `unarchive${op}.${mutationPrefix}`,
    },
    {
      method: 'POST',
      path: `${head}/revisions`,
      operation: `${op}RevisionCreate`,
      surface: 'v1',
      variables: (req) => ({ ...id(req), ...ifMatch(req) }),
      body: { input: 'input', required: true },
      result: `publish${op}Revision.revision`,
      status: 201,
    },
    {
      method: 'GET',
      path: `${head}/revisions`,
      operation: `${op}RevisionsList`,
      surface: 'v1',
      variables: (req) => ({ ...id(req), ...pageArgs(req) }),
      result: `${mutationPrefix}Revisions`,
      connection: true,
    },
    {
      method: 'GET',
      path: `${head}/revisions/:revision_id`,
      operation: `${op}RevisionGet`,
      surface: 'v1',
      variables: (req) => ({ ...id(req), revisionId: req.path('revision_id') }),
      result: `${mutationPrefix}Revision`,
    },
    {
      method: 'POST',
      path: `${head}/revisions/:revision_id/set-default`,
      operation: `${op}SetDefault`,
      surface: 'v1',
      variables: (req) => ({ ...id(req), revisionId: req.path('revision_id'), ...ifMatch(req) }),
      body: 'none',
      result: `setDefault${op}Revision.${mutationPrefix}`,
    },
  ];
}

export const routes: Route[] = [
  // ── authentication (support surface: validation failures answer 422) ──
  {
    method: 'POST',
    path: '/api/auth/login',
    operation: 'AuthLogin',
    surface: 'support',
    body: { fields: { email: 'email', password: 'password' }, required: true },
    result: 'login',
  },
  {
    method: 'POST',
    path: '/api/auth/logout',
    operation: 'AuthLogout',
    surface: 'support',
    body: 'none',
    result: 'logout.loggedOut',
    empty: true,
  },

  // ── the caller's workspace ──
  { method: 'GET', path: '/api/v1/workspace', operation: 'WorkspaceGet', surface: 'v1', result: 'workspace' },
  {
    method: 'PATCH',
    path: '/api/v1/workspace',
    operation: 'WorkspaceUpdate',
    surface: 'v1',
    variables: (req) => ({ ifMatch: req.header('if-match') }),
    body: { input: 'input', required: true },
    result: 'updateWorkspace.workspace',
  },

  // ── providers and models ──
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

  // ── connections ──
  {
    method: 'POST',
    path: '/api/v1/connections',
    operation: 'ConnectionCreate',
    surface: 'v1',
    body: { input: 'input', required: true },
    result: 'createConnection.connection',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/connections',
    operation: 'ConnectionsList',
    surface: 'v1',
    result: 'connections',
    connection: true,
    variables: (req) => ({
      label: req.queryList('label'),
      q: req.query('q'),
      enabled: req.queryBool('enabled'),
      providerId: req.query('provider_id'),
      ...pageArgs(req),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/connections/:connection_id',
    operation: 'ConnectionGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('connection_id') }),
    result: 'connection',
  },
  {
    method: 'PATCH',
    path: '/api/v1/connections/:connection_id',
    operation: 'ConnectionUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('connection_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateConnection.connection',
  },
  {
    method: 'POST',
    path: '/api/v1/connections/:connection_id/revoke',
    operation: 'ConnectionRevoke',
    surface: 'v1',
    variables: (req) => ({ id: req.path('connection_id'), ...ifMatch(req) }),
    body: 'none',
    result: 'revokeConnection.connection',
  },
  {
    method: 'POST',
    path: '/api/v1/connections/:connection_id/test',
    operation: 'ConnectionTest',
    surface: 'v1',
    variables: (req) => ({ id: req.path('connection_id') }),
    body: 'none',
    result: 'testConnection',
  },

  // ── finding analyses and findings ──
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

  // ── webhook event kinds (any authenticated caller) and subscriptions (every operation needs `admin`) ──
  {
    method: 'GET',
    path: '/api/v1/webhook-event-kinds',
    operation: 'WebhookEventKindsList',
    surface: 'v1',
    result: 'webhookEventKinds',
    wrapItems: true,
  },
  {
    method: 'POST',
    path: '/api/v1/webhook-subscriptions',
    operation: 'WebhookSubscriptionCreate',
    surface: 'v1',
    body: { input: 'input', required: true },
    result: 'createWebhookSubscription.webhookSubscription',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/webhook-subscriptions',
    operation: 'WebhookSubscriptionsList',
    surface: 'v1',
    result: 'webhookSubscriptions',
    connection: true,
    variables: (req) => ({ label: req.queryList('label'), q: req.query('q'), enabled: req.queryBool('enabled'), ...pageArgs(req) }),
  },
  {
    method: 'GET',
    path: '/api/v1/webhook-subscriptions/:subscription_id',
    operation: 'WebhookSubscriptionGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('subscription_id') }),
    result: 'webhookSubscription',
  },
  {
    method: 'PATCH',
    path: '/api/v1/webhook-subscriptions/:subscription_id',
    operation: 'WebhookSubscriptionUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('subscription_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateWebhookSubscription.webhookSubscription',
  },
  {
    method: 'DELETE',
    path: '/api/v1/webhook-subscriptions/:subscription_id',
    operation: 'WebhookSubscriptionDelete',
    ifMatchOptional: true,
    surface: 'v1',
    variables: (req) => ({ id: req.path('subscription_id'), ...ifMatch(req) }),
    body: 'none',
    result: 'deleteWebhookSubscription.deleted',
    empty: true,
  },
  {
    method: 'POST',
    path: '/api/v1/webhook-subscriptions/:subscription_id/rotate-secret',
    operation: 'WebhookSubscriptionRotateSecret',
    ifMatchOptional: true,
    surface: 'v1',
    variables: (req) => ({ id: req.path('subscription_id'), ...ifMatch(req) }),
    body: { input: 'input' },
    result: 'rotateWebhookSubscriptionSecret.webhookSubscription',
  },
  {
    method: 'POST',
    path: '/api/v1/webhook-subscriptions/:subscription_id/test',
    operation: 'WebhookSubscriptionTest',
    surface: 'v1',
    variables: (req) => ({ id: req.path('subscription_id') }),
    body: 'none',
    result: 'testWebhookSubscription.delivery',
    status: 202,
  },
  {
    method: 'GET',
    path: '/api/v1/webhook-subscriptions/:subscription_id/deliveries',
    operation: 'WebhookDeliveriesList',
    surface: 'v1',
    result: 'webhookDeliveries',
    connection: true,
    variables: (req) => ({ subscriptionId: req.path('subscription_id'), status: req.query('status'), ...pageArgs(req) }),
  },
  {
    method: 'GET',
    path: '/api/v1/webhook-subscriptions/:subscription_id/deliveries/:delivery_id',
    operation: 'WebhookDeliveryGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('delivery_id'), subscriptionId: req.path('subscription_id') }),
    result: 'webhookDelivery',
  },
  {
    method: 'POST',
    path: '/api/v1/webhook-subscriptions/:subscription_id/deliveries/:delivery_id/redeliver',
    operation: 'WebhookDeliveryRedeliver',
    surface: 'v1',
    variables: (req) => ({ id: req.path('delivery_id'), subscriptionId: req.path('subscription_id') }),
    body: 'none',
    result: 'redeliverWebhookDelivery.delivery',
    status: 202,
  },

  // ── agents and skills ──
  ...revisionedRoutes('/api/v1/agents', 'agent_id', 'Agent', 'agentId', (req) => ({
    source: req.query('source'),
    presetKind: req.query('preset_kind'),
    skillId: req.query('skill_id'),
    skillRevisionId: req.query('skill_revision_id'),
  })),
  {
    method: 'DELETE',
    path: '/api/v1/agents/:agent_id/avatar',
    operation: 'AgentAvatarDelete',
    ifMatchOptional: true,
    surface: 'v1',
    variables: (req) => ({ agentId: req.path('agent_id'), ...ifMatch(req) }),
    body: 'none',
    result: 'deleteAgentAvatar.agent',
  },
  {
    method: 'PUT',
    path: '/api/v1/agents/:agent_id/avatar',
    operation: 'AgentAvatarUpload',
    ifMatchOptional: true,
    surface: 'v1',
    variables: (req) => ({ agentId: req.path('agent_id'), ...ifMatch(req) }),
    rawBody: { content: 'contentBase64', mediaType: 'mediaType' },
    result: 'uploadAgentAvatar.agent',
  },

  // ── assets ──
  {
    method: 'POST',
    path: '/api/v1/assets',
    operation: 'AssetUpload',
    surface: 'v1',
    // A raw body names its view fields in the query (`label` repeated as key:value); a multipart body in its parts.
    variables: (req) => ({
      input: {
        name: req.query('name'),
        description: req.query('description'),
        labels: labelMap(req.queryList('label')),
        mediaType: req.query('media_type'),
      },
    }),
    // Asked before the body is read: no transfer for a caller who may not upload, or a file announced too large.
    upload: { input: 'input', json: ['labels'], check: 'AssetUploadCheck' },
    result: 'uploadAsset.asset',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/assets',
    operation: 'AssetsList',
    surface: 'v1',
    variables: (req) => ({
      label: req.queryList('label'),
      q: req.query('q'),
      mediaType: req.query('media_type'),
      retired: req.queryBool('retired'),
      ...pageArgs(req),
    }),
    result: 'assets',
    connection: true,
  },
  {
    method: 'GET',
    path: '/api/v1/assets/:asset_id',
    operation: 'AssetGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('asset_id') }),
    result: 'asset',
  },
  {
    method: 'DELETE',
    path: '/api/v1/assets/:asset_id',
    operation: 'AssetRetire',
    ifMatchOptional: true,
    surface: 'v1',
    variables: (req) => ({ id: req.path('asset_id'), ...ifMatch(req) }),
    body: 'none',
    result: 'retireAsset.asset',
  },
  {
    method: 'GET',
    path: '/api/v1/assets/:asset_id/content',
    operation: 'AssetContentGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('asset_id') }),
    result: 'asset',
    download: { content: 'contentBase64', mediaType: 'mediaType', size: 'sizeBytes', etag: 'sha256' },
  },
  {
    method: 'POST',
    path: '/api/v1/agent-composer',
    operation: 'AgentComposerPrepare',
    surface: 'v1',
    body: 'none',
    result: 'prepareAgentComposer.agent',
  },
  ...revisionedRoutes('/api/v1/skills', 'skill_id', 'Skill', 'skillId'),

  // ── sessions, threads, runs ──
  {
    method: 'POST',
    path: '/api/v1/sessions',
    operation: 'SessionCreate',
    surface: 'v1',
    body: { input: 'input' },
    result: 'createSession.session',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/sessions',
    operation: 'SessionsList',
    surface: 'v1',
    variables: (req) => ({ label: req.queryList('label'), ...pageArgs(req) }),
    result: 'sessions',
    connection: true,
  },
  {
    method: 'GET',
    path: '/api/v1/sessions/:session_id',
    operation: 'SessionGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('session_id') }),
    result: 'session',
  },
  {
    method: 'PATCH',
    path: '/api/v1/sessions/:session_id',
    operation: 'SessionUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('session_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateSession.session',
  },
  {
    method: 'POST',
    path: '/api/v1/threads',
    operation: 'ThreadCreate',
    surface: 'v1',
    body: { input: 'input' },
    result: 'createThread.thread',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/threads',
    operation: 'ThreadsList',
    surface: 'v1',
    result: 'threads',
    connection: true,
    variables: (req) => ({
      sessionId: req.query('session_id'),
      label: req.queryList('label'),
      archived: req.queryBool('archived'),
      ...pageArgs(req),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/threads/:thread_id',
    operation: 'ThreadGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('thread_id') }),
    result: 'thread',
  },
  {
    method: 'PATCH',
    path: '/api/v1/threads/:thread_id',
    operation: 'ThreadUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('thread_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateThread.thread',
  },
  {
    method: 'POST',
    path: '/api/v1/threads/:thread_id/archive',
    operation: 'ThreadArchive',
    surface: 'v1',
    variables: (req) => ({ id: req.path('thread_id'), ...ifMatch(req) }),
    body: 'none',
    result: 'archiveThread.thread',
  },
  {
    method: 'POST',
    path: '/api/v1/runs',
    operation: 'RunStart',
    surface: 'v1',
    body: { input: 'input', required: true },
    result: 'startRun.run',
    status: 201,
    wait: true,
  },
  {
    method: 'GET',
    path: '/api/v1/runs',
    operation: 'RunsList',
    surface: 'v1',
    result: 'runs',
    connection: true,
    variables: (req) => ({
      agentId: req.query('agent_id'),
      sessionId: req.query('session_id'),
      threadId: req.query('thread_id'),
      principalId: req.query('principal_id'),
      status: req.queryList('status')?.flatMap((value) => value.split(',')) ?? null,
      createdAfter: req.queryDate('created_after'),
      createdBefore: req.queryDate('created_before'),
      label: req.queryList('label'),
      ...pageArgs(req),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/runs/:run_id',
    operation: 'RunGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('run_id') }),
    result: 'run',
    wait: true,
  },
  {
    method: 'PATCH',
    path: '/api/v1/runs/:run_id',
    operation: 'RunUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('run_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateRun.run',
  },
  {
    method: 'POST',
    path: '/api/v1/runs/:run_id/cancel',
    operation: 'RunCancel',
    surface: 'v1',
    variables: (req) => ({ id: req.path('run_id') }),
    body: 'none',
    result: 'cancelRun.run',
  },
  {
    method: 'POST',
    path: '/api/v1/runs/:run_id/resume',
    operation: 'RunResume',
    surface: 'v1',
    result: 'resumeRun.run',
    variables: (req) => ({ runId: req.path('run_id'), idempotencyKey: req.header('idempotency-key') }),
    body: { fields: { approvals: 'approvals', calls: 'calls', input: 'input' }, required: true },
    wait: true,
  },
  {
    method: 'POST',
    path: '/api/v1/runs/:run_id/fork',
    operation: 'RunFork',
    surface: 'v1',
    result: 'forkRun',
    status: 201,
    variables: (req) => ({ runId: req.path('run_id'), idempotencyKey: req.header('idempotency-key') }),
    body: { input: 'input', required: true },
    wait: { applied: 'waited' },
  },
  {
    method: 'POST',
    path: '/api/v1/threads/:thread_id/inbox',
    operation: 'InboxDeliver',
    surface: 'v1',
    result: 'deliverToInbox',
    status: 201,
    variables: (req) => ({ threadId: req.path('thread_id'), idempotencyKey: req.header('idempotency-key') }),
    body: { input: 'input', required: true },
    wait: { applied: 'waited' },
  },
  {
    method: 'GET',
    path: '/api/v1/threads/:thread_id/inbox',
    operation: 'InboxList',
    surface: 'v1',
    result: 'inboxEntries',
    connection: true,
    variables: (req) => ({
      threadId: req.path('thread_id'),
      status: req.queryList('status')?.flatMap((v) => v.split(',')) ?? null,
      ...pageArgs(req),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/threads/:thread_id/inbox/:entry_id',
    operation: 'InboxEntryGet',
    surface: 'v1',
    result: 'inboxEntry',
    variables: (req) => ({ threadId: req.path('thread_id'), entryId: req.path('entry_id') }),
  },
  {
    method: 'PATCH',
    path: '/api/v1/threads/:thread_id/inbox/:entry_id',
    operation: 'InboxEntryUpdate',
    surface: 'v1',
    result: 'updateInboxEntry',
    variables: (req) => ({ threadId: req.path('thread_id'), entryId: req.path('entry_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
  },
  {
    method: 'GET',
    path: '/api/v1/runs/:run_id/lineage',
    operation: 'RunLineage',
    surface: 'v1',
    variables: (req) => ({ runId: req.path('run_id'), ...pageArgs(req) }),
    result: 'runLineage',
    connection: true,
  },
  {
    method: 'GET',
    path: '/api/v1/runs/:run_id/trace',
    operation: 'RunTrace',
    surface: 'v1',
    variables: (req) => ({ runId: req.path('run_id') }),
    result: 'runTrace',
  },
  {
    method: 'GET',
    path: '/api/v1/runs/:run_id/items',
    operation: 'RunItemsList',
    surface: 'v1',
    result: 'runItems',
    variables: (req) => ({
      runId: req.path('run_id'),
      before: req.queryInt('before'),
      after: req.queryInt('after'),
      limit: req.queryInt('limit'),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/content-refs/:ref_id',
    operation: 'RunItemContentGet',
    surface: 'v1',
    variables: (req) => ({ ref: req.path('ref_id'), offset: req.queryInt('offset'), limit: req.queryInt('limit') }),
    result: 'runItemContent',
  },
  {
    method: 'GET',
    path: '/api/v1/runs/:run_id/agent',
    operation: 'RunAgent',
    surface: 'v1',
    variables: (req) => ({ runId: req.path('run_id') }),
    result: 'runAgent',
  },

  // ── memories ──
  {
    method: 'POST',
    path: '/api/v1/memories',
    operation: 'MemoryCreate',
    surface: 'v1',
    body: { input: 'input', required: true },
    result: 'createMemory.memory',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/memories',
    operation: 'MemoriesList',
    surface: 'v1',
    variables: (req) => ({ label: req.queryList('label'), q: req.query('q'), ...pageArgs(req) }),
    result: 'memories',
    connection: true,
  },
  {
    method: 'GET',
    path: '/api/v1/memories/:memory_id',
    operation: 'MemoryGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('memory_id') }),
    result: 'memory',
  },
  {
    method: 'PATCH',
    path: '/api/v1/memories/:memory_id',
    operation: 'MemoryUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('memory_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateMemory.memory',
  },
  {
    method: 'GET',
    path: '/api/v1/memories/:memory_id/records',
    operation: 'MemoryRecordsList',
    surface: 'v1',
    variables: (req) => ({ memoryId: req.path('memory_id'), ...pageArgs(req) }),
    result: 'memoryRecords',
    connection: true,
  },
  {
    method: 'POST',
    path: '/api/v1/memories/:memory_id/records',
    operation: 'MemoryRecordAdd',
    surface: 'v1',
    variables: (req) => ({ memoryId: req.path('memory_id') }),
    body: { fields: { text: 'text' }, required: true },
    result: 'addMemoryRecord.record',
    status: 201,
  },
  {
    method: 'PUT',
    path: '/api/v1/memories/:memory_id/records/:record_id',
    operation: 'MemoryRecordReplace',
    surface: 'v1',
    variables: (req) => ({ memoryId: req.path('memory_id'), recordId: req.path('record_id') }),
    body: { fields: { text: 'text' }, required: true },
    result: 'replaceMemoryRecord.record',
  },
  {
    method: 'POST',
    path: '/api/v1/memories/:memory_id/records/search',
    operation: 'MemoryRecordsSearch',
    surface: 'v1',
    variables: (req) => ({ memoryId: req.path('memory_id') }),
    body: { fields: { query: 'query', limit: 'limit', min_score: 'minScore' }, required: true },
    result: 'searchMemoryRecords.records',
    wrapItems: 'page',
  },

  // ── environment templates and environments ──
  {
    method: 'POST',
    path: '/api/v1/environment-templates',
    operation: 'EnvironmentTemplateCreate',
    surface: 'v1',
    body: { input: 'input', required: true },
    result: 'createEnvironmentTemplate.environmentTemplate',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/environment-templates',
    operation: 'EnvironmentTemplatesList',
    surface: 'v1',
    variables: (req) => ({ label: req.queryList('label'), q: req.query('q'), enabled: req.queryBool('enabled'), ...pageArgs(req) }),
    result: 'environmentTemplates',
    connection: true,
  },
  {
    method: 'GET',
    path: '/api/v1/environment-templates/:template_id',
    operation: 'EnvironmentTemplateGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('template_id') }),
    result: 'environmentTemplate',
  },
  {
    method: 'PATCH',
    path: '/api/v1/environment-templates/:template_id',
    operation: 'EnvironmentTemplateUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('template_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateEnvironmentTemplate.environmentTemplate',
  },
  {
    method: 'POST',
    path: '/api/v1/environments',
    operation: 'EnvironmentCreate',
    surface: 'v1',
    body: { input: 'input', required: true },
    result: 'createEnvironment.environment',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/environments',
    operation: 'EnvironmentsList',
    surface: 'v1',
    variables: (req) => ({
      label: req.queryList('label'),
      status: req.query('status'),
      templateId: req.query('template_id'),
      ...pageArgs(req),
    }),
    result: 'environments',
    connection: true,
  },
  {
    method: 'GET',
    path: '/api/v1/environments/:environment_id',
    operation: 'EnvironmentGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('environment_id') }),
    result: 'environment',
  },
  {
    method: 'POST',
    path: '/api/v1/environments/:environment_id/stop',
    operation: 'EnvironmentStop',
    surface: 'v1',
    variables: (req) => ({ id: req.path('environment_id') }),
    body: 'none',
    result: 'stopEnvironment.environment',
  },
  {
    method: 'POST',
    path: '/api/v1/environments/:environment_id/start',
    operation: 'EnvironmentStart',
    surface: 'v1',
    variables: (req) => ({ id: req.path('environment_id') }),
    body: 'none',
    result: 'startEnvironment.environment',
  },
  {
    method: 'DELETE',
    path: '/api/v1/environments/:environment_id',
    operation: 'EnvironmentDestroy',
    surface: 'v1',
    variables: (req) => ({ id: req.path('environment_id') }),
    body: 'none',
    result: 'destroyEnvironment.environment',
  },

  // ── audit trail ──
  {
    method: 'GET',
    path: '/api/v1/audit-events',
    operation: 'AuditEventsList',
    surface: 'v1',
    result: 'auditEvents',
    connection: true,
    variables: (req) => ({
      resourceId: req.query('resource_id'),
      resourceKind: req.query('resource_kind'),
      principalId: req.query('principal_id'),
      action: req.query('action'),
      createdAfter: req.queryDate('created_after'),
      createdBefore: req.queryDate('created_before'),
      ...pageArgs(req),
    }),
  },

  // ── support API under /api (UI): web push, status, presence, pairing, devices ──
  { method: 'GET', path: '/api/push/configuration', operation: 'PushConfigurationGet', surface: 'support', result: 'pushConfiguration' },
  {
    method: 'PUT',
    path: '/api/push/subscription',
    operation: 'PushSubscriptionUpsert',
    surface: 'support',
    body: { input: 'input', required: true },
    result: 'upsertPushSubscription.subscription',
  },
  {
    method: 'DELETE',
    path: '/api/push/subscriptions/:subscriptionId',
    operation: 'PushSubscriptionDelete',
    surface: 'support',
    variables: (req) => ({ id: req.path('subscriptionId') }),
    body: 'none',
    result: 'deletePushSubscription.deleted',
    empty: true,
  },
  {
    method: 'POST',
    path: '/api/push/subscriptions/:subscriptionId/activity',
    operation: 'PushSubscriptionActivity',
    surface: 'support',
    variables: (req) => ({ id: req.path('subscriptionId') }),
    body: 'none',
    result: 'recordPushActivity.recorded',
    empty: true,
  },
  {
    method: 'POST',
    path: '/api/push/subscriptions/:subscriptionId/test',
    operation: 'PushSubscriptionTest',
    surface: 'support',
    variables: (req) => ({ id: req.path('subscriptionId') }),
    body: 'none',
    result: 'testPushSubscription',
  },
  { method: 'GET', path: '/api/status', operation: 'ListenerStatusGet', surface: 'support', result: 'listenerStatus' },
  {
    method: 'GET',
    path: '/api/presence',
    operation: 'PresenceTouch',
    surface: 'support',
    variables: (req) => ({ participantId: req.query('participant_id') }),
    result: 'touchPresence.presence',
  },
  {
    method: 'DELETE',
    path: '/api/presence',
    operation: 'PresenceLeave',
    surface: 'support',
    variables: (req) => ({ participantId: req.query('participant_id') }),
    body: 'none',
    result: 'leavePresence.left',
    empty: true,
  },
  {
    method: 'GET',
    path: '/api/push/subscriptions',
    operation: 'PushSubscriptionsList',
    surface: 'support',
    result: 'pushSubscriptions',
    wrapItems: true,
  },
  // Open (no credential) and rate-limited: a daemon asks to pair, then polls with its poll secret.
  {
    method: 'POST',
    path: '/api/envd/pair',
    operation: 'DevicePairingRequest',
    surface: 'support',
    body: { input: 'input', required: true },
    result: 'requestDevicePairing',
  },
  {
    method: 'POST',
    path: '/api/envd/pair/poll',
    operation: 'DevicePairingPoll',
    surface: 'support',
    body: { fields: { poll_secret: 'pollSecret' }, required: true },
    result: 'pollDevicePairing',
  },
  {
    method: 'GET',
    path: '/api/device-pairings',
    operation: 'DevicePairingsList',
    surface: 'support',
    variables: (req) => ({ userCode: req.query('user_code') }),
    result: 'devicePairings',
  },
  {
    method: 'POST',
    path: '/api/device-pairings/:pairingId/approve',
    operation: 'DevicePairingApprove',
    surface: 'support',
    variables: (req) => ({ id: req.path('pairingId') }),
    body: 'none',
    result: 'approveDevicePairing.device',
  },
  {
    method: 'POST',
    path: '/api/device-pairings/:pairingId/reject',
    operation: 'DevicePairingReject',
    surface: 'support',
    variables: (req) => ({ id: req.path('pairingId') }),
    body: 'none',
    result: 'rejectDevicePairing.rejected',
    empty: true,
  },
  { method: 'GET', path: '/api/devices', operation: 'DevicesList', surface: 'support', result: 'devices' },
  {
    method: 'GET',
    path: '/api/devices/:deviceId',
    operation: 'DeviceGet',
    surface: 'support',
    variables: (req) => ({ id: req.path('deviceId') }),
    result: 'device',
  },
  {
    method: 'POST',
    path: '/api/devices/:deviceId/revoke',
    operation: 'DeviceRevoke',
    surface: 'support',
    variables: (req) => ({ id: req.path('deviceId') }),
    body: 'none',
    result: 'revokeDevice.device',
  },
  {
    method: 'GET',
    path: '/api/devices/:deviceId/directories',
    operation: 'DeviceDirectories',
    surface: 'support',
    variables: (req) => ({ id: req.path('deviceId'), path: req.query('path') }),
    result: 'deviceDirectories',
  },
];
