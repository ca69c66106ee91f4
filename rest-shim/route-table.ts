// The pieces every rows file of the REST table shares (src/features/*/rest/*.ts, concatenated by routes.ts): what a
// row is (`Route`), what it reads a request through (`RouteRequest`), and the helpers several domains'
// rows use (page arguments, `If-Match`, label selectors, the rows of a revisioned kind).

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
  /** File name (without .graphql) and operation name in its feature's rest/operations/. */
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
   * The result is a Relay connection whose document selects `nodes` and `...NextPage` (the shared
   * fragment: `pageInfo { hasNextPage endCursor }`) with the route's `limit` and `cursor` passed as `first` and `after`: answered as a
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

export const pageArgs = (req: RouteRequest) => ({ limit: req.queryInt('limit'), cursor: req.query('cursor') });
export const headListArgs = (req: RouteRequest) => ({
  label: req.queryList('label'),
  q: req.query('q'),
  archived: req.queryBool('archived'),
  ...pageArgs(req),
});
/** The filters of a kind that can be switched off: labels, a text search and `enabled`. */
export const enabledHeadFilters = (req: RouteRequest) => ({
  label: req.queryList('label'),
  q: req.query('q'),
  enabled: req.queryBool('enabled'),
});
export const ifMatch = (req: RouteRequest) => ({ ifMatch: req.header('if-match') });
/** `label=key:value` query values as a labels map (null when none); a value without `:` is passed on for the service to refuse. */
export const labelMap = (values: string[] | null): Record<string, string> | string[] | null => {
  if (!values) return null;
  if (values.some((value) => !value.includes(':'))) return values;
  return Object.fromEntries(values.map((value) => [value.slice(0, value.indexOf(':')), value.slice(value.indexOf(':') + 1)]));
};

// The rows most kinds of resource have, written once. A row about one resource reads its id from the
// last parameter of its path (`/api/v1/memories/:memory_id/archive` → `$id` from `memory_id`).
const lastParam = (path: string): string => {
  const param = [...path.matchAll(/:([A-Za-z_]+)/g)].at(-1)?.[1];
  if (!param) throw new Error(`the route ${path} names no resource`);
  return param;
};
const idOf = (path: string) => {
  const param = lastParam(path);
  return (req: RouteRequest) => ({ id: req.path(param) });
};

/** `POST <collection>`: creates one from the JSON body as `$input`, answered 201. */
export const createRow = (path: string, operation: string, result: string, more: Partial<Route> = {}): Route => ({
  method: 'POST',
  path,
  operation,
  surface: 'v1',
  body: { input: 'input', required: true },
  result,
  status: 201,
  ...more,
});

/** `GET <collection>`: a page of the connection `result`, with the filters read from the query. */
export const listRow = (
  path: string,
  operation: string,
  result: string,
  filters: (req: RouteRequest) => Record<string, unknown> = () => ({}),
): Route => ({
  method: 'GET',
  path,
  operation,
  surface: 'v1',
  variables: (req) => ({ ...filters(req), ...pageArgs(req) }),
  result,
  connection: true,
});

/** `GET <resource>`: the resource as `result`. */
export const getRow = (path: string, operation: string, result: string, more: Partial<Route> = {}): Route => ({
  method: 'GET',
  path,
  operation,
  surface: 'v1',
  variables: idOf(path),
  result,
  ...more,
});

/** `PATCH <resource>`: changes it with the JSON body as `$input`, against its `If-Match` version. */
export const updateRow = (path: string, operation: string, result: string): Route => {
  const id = idOf(path);
  return {
    method: 'PATCH',
    path,
    operation,
    surface: 'v1',
    variables: (req) => ({ ...id(req), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result,
  };
};

/** `POST <resource>/<action>` (or `DELETE <resource>`) without a body: an action that needs no version. */
export const actionRow = (
  method: 'POST' | 'DELETE',
  path: string,
  operation: string,
  result: string,
  more: Partial<Route> = {},
): Route => ({ method, path, operation, surface: 'v1', variables: idOf(path), body: 'none', result, ...more });

/** An action without a body against the resource's `If-Match` version (archive, revoke). */
export const guardedActionRow = (
  method: 'POST' | 'DELETE',
  path: string,
  operation: string,
  result: string,
  more: Partial<Route> = {},
): Route => {
  const id = idOf(path);
  return actionRow(method, path, operation, result, { variables: (req) => ({ ...id(req), ...ifMatch(req) }), ...more });
};

const lowerFirst = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

const KIND_ROWS = ['create', 'list', 'get', 'update'] as const;
type KindRow = (typeof KIND_ROWS)[number];

export interface KindRowsOptions {
  /** The plural of the type name, when it is not the type name and `s`. */
  plural?: string;
  /** The query filters of the list, besides its page. */
  filters?: (req: RouteRequest) => Record<string, unknown>;
  /** Rows the kind does not have. */
  omit?: readonly KindRow[];
  /** Members the kind's create row has besides (or instead of) the usual ones. */
  create?: Partial<Route>;
  /** Members the kind's get row has besides the usual ones. */
  get?: Partial<Route>;
}

/**
 * The rows of a kind's collection `base` and of one of it, `base/:param`, named by the kind's GraphQL
 * type: for `Memory`, `POST` MemoryCreate → createMemory.memory, `GET` MemoriesList → memories,
 * `GET /:memory_id` MemoryGet → memory and `PATCH /:memory_id` MemoryUpdate → updateMemory.memory.
 */
export function kindRows(base: string, param: string, type: string, options: KindRowsOptions = {}): Route[] {
  const one = `${base}/:${param}`;
  const field = lowerFirst(type);
  const plural = options.plural ?? `${type}s`;
  const omit = new Set(options.omit ?? []);
  const rows: Record<KindRow, () => Route> = {
    create: () => createRow(base, `${type}Create`, `create${type}.${field}`, options.create),
    list: () => listRow(base, `${plural}List`, lowerFirst(plural), options.filters),
    get: () => getRow(one, `${type}Get`, field, options.get),
    update: () => updateRow(one, `${type}Update`, `update${type}.${field}`),
  };
  return KIND_ROWS.filter((name) => !omit.has(name)).map((name) => rows[name]());
}

/** The routes every revisioned kind (agents, skills) has, with its operation names. */
export function revisionedRoutes(
  base: string,
  param: string,
  op: string,
  idVar: string,
  extraListArgs: (req: RouteRequest) => Record<string, unknown> = () => ({}),
): Route[] {
  const head = `${base}/:${param}`;
  const id = (req: RouteRequest) => ({ [idVar]: req.path(param) });
  const mutationPrefix = lowerFirst(op);
  return [
    ...kindRows(base, param, op, { filters: (req) => ({ ...headListArgs(req), ...extraListArgs(req) }) }),
    guardedActionRow('POST', `${head}/archive`, `${op}Archive`, `archive${op}.${mutationPrefix}`),
    guardedActionRow('POST', `${head}/unarchive`, `${op}Unarchive`, `unarchive${op}.${mutationPrefix}`, { ifMatchOptional: true }),
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
    listRow(`${head}/revisions`, `${op}RevisionsList`, `${mutationPrefix}Revisions`, id),
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
