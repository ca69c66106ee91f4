// Serves the REST table (routes.ts) by executing its GraphQL operations through the same Yoga
// instance (its enveloped pipeline, `yoga.getEnveloped`), so REST callers get exactly the GraphQL
// plugins, context, auth, services and error codes. This file knows HTTP and GraphQL documents, nothing of the domain.
import express, { type Request, type Response, type Router } from 'express';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Kind,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  getNamedType,
  isInputObjectType,
  typeFromAST,
  type NamedTypeNode,
} from 'graphql';
import { v1ValidationRules } from '../src/graphql/json-variables.js';
import { REST_PAGE_ARGUMENTS, renamePageProblem } from '../src/lib/cursor.js';
import { isAppError, invalidArgument, quoteInput, MAX_ECHO_CHARS, retryAfterFor, statusForCode } from '../src/lib/errors.js';
import { unavailableFromError } from '../src/lib/unavailable.js';
import { checkId, checkText } from '../src/lib/input-rules.js';
import { parsePreferWait } from '../src/lib/prefer-wait.js';
import { CLIENT_ADDRESS_HEADER } from '../src/graphql/context.js';
import { routes as defaultRoutes, type Route, type RouteRequest, type Surface } from './routes.js';
import { spoolUpload, type SpooledUpload, type UploadLimits } from './uploads.js';
import { deprecationHeaders } from './deprecation.js';

// Each feature keeps the REST operations it serves in its own folder (src/features/<feature>/rest/operations,
// fragments beside them in fragments/); the fragments every feature shares stay in operations/fragments here.
const SHARED_FRAGMENTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'operations', 'fragments');
const FEATURES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'features');

/** The folders holding REST operation documents: one per feature that serves REST routes. */
function featureOperationDirs(): string[] {
  return readdirSync(FEATURES_DIR)
    .map((feature) => join(FEATURES_DIR, feature, 'rest', 'operations'))
    .filter((dir) => existsSync(dir));
}

const graphqlFiles = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.graphql'))
        .map((f) => join(dir, f))
    : [];

export interface EnvelopedGraphQL {
  getEnveloped(initial: Record<string, unknown>): {
    schema: GraphQLSchema;
    contextFactory(): Promise<unknown> | unknown;
    execute(args: {
      schema: GraphQLSchema;
      document: DocumentNode;
      operationName?: string;
      variableValues?: Record<string, unknown>;
      contextValue: unknown;
    }): unknown;
  };
}

interface CompiledOperation {
  text: string;
  document: DocumentNode;
  /** Where the operation's document is, relative to the repository (for the API reference). */
  source: string;
}

const REPOSITORY_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const snakeToCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const camelToSnake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Loads every feature's operations (`<Name>.graphql`, named as the route names them), appending the
 * fragments each one uses (and only those). Two operations or fragments of one name are an error.
 */
export function loadOperations(dirs = featureOperationDirs()): Map<string, CompiledOperation> {
  const fragments = new Map<string, string>();
  for (const file of [SHARED_FRAGMENTS_DIR, ...dirs.map((dir) => join(dir, 'fragments'))].flatMap(graphqlFiles)) {
    const text = readFileSync(file, 'utf8');
    for (const definition of parse(text).definitions) {
      if (definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
      if (fragments.has(definition.name.value)) throw new Error(`fragment ${definition.name.value} is defined twice (${file})`);
      fragments.set(definition.name.value, text);
    }
  }
  const spreads = (text: string) =>
    [...text.matchAll(/\.\.\.\s*([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!).filter((name) => name !== 'on');
  const operations = new Map<string, CompiledOperation>();
  for (const path of dirs.flatMap(graphqlFiles)) {
    const file = basename(path);
    const own = readFileSync(path, 'utf8');
    const included = new Set<string>();
    const queue = spreads(own);
    while (queue.length) {
      const name = queue.shift()!;
      const fragment = fragments.get(name);
      if (!fragment || included.has(fragment)) continue;
      included.add(fragment);
      queue.push(...spreads(fragment));
    }
    const text = [own, ...included].join('\n');
    const name = file.replace(/\.graphql$/, '');
    if (operations.has(name)) throw new Error(`operation ${name} is defined twice (${path})`);
    operations.set(name, { text, document: parse(text), source: relative(REPOSITORY_ROOT, path) });
  }
  return operations;
}

/**
 * Reads path, query and header values for a route's variables. Each value passes the shared input
 * rules (src/lib/input-rules.ts) here, where its REST name is known, so a problem is named as the
 * caller sent it (`agent_id`, `q`, `If-Match`); the GraphQL pipeline checks everything again.
 */
function requestHelper(req: Request): RouteRequest {
  const single = (name: string): string | null => {
    const value = req.query[name];
    if (value === undefined) return null;
    if (Array.isArray(value)) throw invalidArgument(`query parameter ${name} may appear only once`, name);
    if (typeof value !== 'string') throw invalidArgument(`query parameter ${name} must be a single value`, name);
    checkText(value, name);
    return value;
  };
  return {
    path: (name) => {
      const value = String(req.params[name] ?? '');
      checkId(value, name);
      return value;
    },
    header: (name) => {
      const value = req.get(name) ?? null;
      if (value !== null) checkText(value, headerName(name));
      return value;
    },
    query: single,
    queryList: (name) => {
      const value = req.query[name];
      if (value === undefined) return null;
      const values = Array.isArray(value) ? value : [value];
      // `label[a]=b` parses (extended query parser) to an object: not a list of strings.
      if (values.some((item) => typeof item !== 'string')) throw invalidArgument(`query parameter ${name} must be a list of values`, name);
      for (const item of values as string[]) checkText(item, name);
      return values as string[];
    },
    queryInt: (name) => {
      const value = single(name);
      if (value === null) return null;
      if (!/^-?\d+$/.test(value)) throw invalidArgument(`${name} must be an integer`, name);
      return Number(value);
    },
    queryBool: (name) => {
      const value = single(name);
      if (value === null) return null;
      if (value !== 'true' && value !== 'false') throw invalidArgument(`${name} must be true or false`, name);
      return value === 'true';
    },
    // Timestamps are checked by the DateTime scalar (src/lib/timestamps.ts), one rule for both surfaces.
    queryDate: (name) => single(name),
  };
}

/** `if-match` → `If-Match`, as callers write header names. */
const headerName = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase()).replace(/^X-Workspace-Id$/, 'X-Workspace-ID');

const inputFieldsCache = new WeakMap<DocumentNode, Map<string, Set<string> | null>>();

/** The fields a body may carry, from the GraphQL input type of the variable it fills (worked out once per document). */
function inputFields(schema: GraphQLSchema, document: DocumentNode, variable: string): Set<string> | null {
  let perDocument = inputFieldsCache.get(document);
  if (!perDocument) inputFieldsCache.set(document, (perDocument = new Map()));
  if (!perDocument.has(variable)) perDocument.set(variable, declaredInputFields(schema, document, variable));
  return perDocument.get(variable)!;
}

function declaredInputFields(schema: GraphQLSchema, document: DocumentNode, variable: string): Set<string> | null {
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const declared = definition.variableDefinitions?.find((v) => v.variable.name.value === variable);
    if (!declared) continue;
    const type = typeFromAST(schema, declared.type as NamedTypeNode);
    const named = type ? getNamedType(type) : null;
    if (named && isInputObjectType(named)) return new Set(Object.keys(named.getFields()));
  }
  return null;
}

/** A caller's unknown key named in `details.field`: at most MAX_ECHO_CHARS characters of it. */
const boundedKey = (key: string) => (key.length > MAX_ECHO_CHARS ? `${key.slice(0, MAX_ECHO_CHARS)}…` : key);

function mapBody(route: Route, body: unknown, schema: GraphQLSchema, document: DocumentNode): Record<string, unknown> {
  const spec = route.body;
  if (spec === undefined || spec === 'none') {
    // Nothing, or an empty object (what some clients send by default); `[]` is not an object.
    if (body !== undefined && !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)) {
      throw invalidArgument('this endpoint takes no request body', 'body');
    }
    return {};
  }
  if (body === undefined) {
    if (spec.required) throw invalidArgument('a JSON object body is required', 'body');
    return 'input' in spec ? { [spec.input]: {} } : {};
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidArgument('the request body must be a JSON object', 'body');
  const entries = Object.entries(body as Record<string, unknown>);
  if ('input' in spec) {
    const allowed = inputFields(schema, document, spec.input);
    const input: Record<string, unknown> = {};
    for (const [key, value] of entries) {
      const camel = snakeToCamel(key);
      if (key !== camelToSnake(camel) || (allowed && !allowed.has(camel)))
        throw invalidArgument(`unknown field ${quoteInput(key)}`, boundedKey(key));
      input[camel] = value;
    }
    return { [spec.input]: input };
  }
  const variables: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    const variable = spec.fields[key];
    if (!variable) throw invalidArgument(`unknown field ${quoteInput(key)}`, boundedKey(key));
    variables[variable] = value;
  }
  return variables;
}

interface ErrorPayload {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

function sendError(
  res: Response,
  surface: Surface,
  error: ErrorPayload,
  location: 'body' | 'query' | 'header' | 'path' = 'body',
  req?: Request,
) {
  const status = statusForCode(error.code);
  const raw = typeof error.details?.field === 'string' ? (error.details.field as string) : undefined;
  // GraphQL names fields in camelCase; REST callers sent snake_case. Header names stay as they are.
  // Only the first segment is a schema field name; what follows may be user data (label keys).
  const field = raw && /^[a-z][A-Za-z0-9_]*(\.|$)/.test(raw) ? raw.replace(/^[^.]+/, camelToSnake) : raw;
  const details = error.details ? { ...error.details, ...(field ? { field } : {}) } : undefined;
  if (req && field && location === 'body') {
    // Name where the offending value came from: a query parameter, a path parameter, or the body.
    const first = field.split('.')[0]!;
    if (req.query && first in (req.query as Record<string, unknown>)) location = 'query';
    else if (req.params && first in req.params) location = 'path';
    else if (/^[A-Z][A-Za-z0-9]*(-[A-Za-z0-9]+)*$/.test(first)) location = 'header'; // Authorization, X-Workspace-ID
  }
  if (surface === 'support' && error.code === 'invalid_argument') {
    // The support API answers validation failures with 422 and a validation error object.
    res.status(422).json({
      detail: [
        { loc: field && field !== location ? [location, ...field.split('.')] : [location], msg: error.message, type: 'value_error' },
      ],
    });
    return;
  }
  // A dependency that cannot be reached: the caller may try again after this many seconds.
  const retryAfter = retryAfterFor(error.code);
  if (retryAfter) res.setHeader('Retry-After', retryAfter);
  res.status(status).json({ error: { code: error.code, message: error.message, ...(details ? { details } : {}) } });
}

/** One step of a route's `result` path: a member of an object, or that member of each element of a list. */
function resultStep(node: unknown, key: string): unknown {
  if (Array.isArray(node)) return node.map((element) => resultStep(element, key));
  return node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
}

/** What a connection route's document selects (see `Route.connection`). */
interface SelectedConnection {
  nodes: Record<string, unknown>[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/**
 * A connection as a REST list page: the nodes as `items` (views without their ETags, which are for
 * single reads), and `next_cursor` the last edge's cursor when there is a next page.
 */
function listPage(connection: SelectedConnection) {
  return {
    items: connection.nodes.map(({ etag: _etag, ...item }) => item),
    next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
  };
}

/** An operation's error, carried to the handler's answer as it is. */
class Problem extends Error {
  constructor(readonly problem: ErrorPayload) {
    super(problem.message);
  }
}
const isProblem = (error: unknown): error is Problem => error instanceof Problem;

/**
 * An upload's variables: the route's own (from the query), overridden by the parts of a multipart
 * body (snake_case names of the input's fields; `json` ones parsed), and the file.
 */
function uploadVariables(
  route: Route,
  spec: NonNullable<Route['upload']>,
  helper: RouteRequest,
  spooled: SpooledUpload,
  schema: GraphQLSchema,
  document: DocumentNode,
): Record<string, unknown> {
  const fromQuery = route.variables?.(helper) ?? {};
  const input: Record<string, unknown> = { ...((fromQuery[spec.input] as Record<string, unknown> | undefined) ?? {}) };
  const allowed = inputFields(schema, document, spec.input);
  for (const [key, value] of Object.entries(spooled.fields)) {
    const camel = snakeToCamel(key);
    if (key !== camelToSnake(camel) || camel === 'file' || (allowed && !allowed.has(camel)))
      throw invalidArgument(`unknown part ${quoteInput(key)}`, boundedKey(key));
    checkText(value, key);
    if (spec.json.includes(key)) {
      try {
        input[camel] = JSON.parse(value);
      } catch {
        throw invalidArgument(`the part ${key} must be JSON`, key);
      }
    } else input[camel] = value;
  }
  input.file = spooled.file;
  return { ...fromQuery, [spec.input]: input };
}

/** Resolves when the response can take more, or is gone (a client that leaves never leaves the download waiting). */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** How many bytes one execution of a download's operation reads. */
const DOWNLOAD_CHUNK_BYTES = 1024 * 1024;

/**
 * Serves a download route (see `Route.download`): the first execution reads the view (and the first
 * chunk, without a Range), later ones read on, a chunk at a time, as the response is written.
 */
async function serveDownload(
  req: Request,
  res: Response,
  route: Route,
  spec: NonNullable<Route['download']>,
  read: (variables: { offset: number; length: number }) => Promise<Record<string, unknown>>,
) {
  const ranged = req.get('range') !== undefined;
  const first = await read({ offset: 0, length: ranged ? 0 : DOWNLOAD_CHUNK_BYTES });
  const size = Number(first[spec.size]);
  const etag = `"${String(first[spec.etag])}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
  res.setHeader('Accept-Ranges', 'bytes');
  // Uploaded content is served as stored, never run: a browser opening an HTML or SVG asset gets no
  // scripts, no sniffing and no access to the service's origin.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  const noneMatch = req.get('if-none-match');
  if (noneMatch && noneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
    res.status(304).end();
    return;
  }
  let start = 0;
  let end = size - 1;
  let status = 200;
  const ifRange = req.get('if-range');
  if (ranged && (!ifRange || ifRange === etag)) {
    const ranges = req.range(size, { combine: true });
    if (ranges === -1) {
      res.setHeader('Content-Range', `bytes */${size}`);
      sendError(res, route.surface, {
        code: 'range_not_satisfiable',
        message: `the range is outside the content (${size} bytes)`,
        details: { field: 'Range', size_bytes: size },
      });
      return;
    }
    // One range is served; a malformed header or several ranges get the whole content (RFC 9110 allows both).
    if (Array.isArray(ranges) && ranges.length === 1 && ranges.type === 'bytes') {
      start = ranges[0]!.start;
      end = ranges[0]!.end;
      status = 206;
      res.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
    }
  }
  res.status(status);
  res.setHeader('Content-Type', String(first[spec.mediaType] || 'application/octet-stream'));
  res.setHeader('Content-Length', String(Math.max(0, end - start + 1)));
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  let offset = start;
  if (!ranged) {
    const bytes = Buffer.from(String(first[spec.content] ?? ''), 'base64');
    offset += bytes.length;
    if (!res.write(bytes)) await drained(res);
  }
  while (offset <= end && !res.destroyed) {
    const chunk = await read({ offset, length: Math.min(DOWNLOAD_CHUNK_BYTES, end - offset + 1) });
    const bytes = Buffer.from(String(chunk[spec.content] ?? ''), 'base64');
    // The content is immutable: a chunk that is not what the first read promised means it is gone.
    if (bytes.length === 0 || `"${String(chunk[spec.etag])}"` !== etag) throw new Error('the content changed while it was read');
    offset += bytes.length;
    if (!res.write(bytes)) await drained(res);
  }
  res.end();
}

export function errorFromUnknown(error: unknown): ErrorPayload {
  error = isAppError(error) ? error : (unavailableFromError(error) ?? error);
  if (isAppError(error)) return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  return { code: 'internal', message: 'internal error' };
}

export function createRestRouter(
  yoga: EnvelopedGraphQL,
  options: { maxBodyBytes: number; routes?: Route[]; logger?: { error(obj: unknown, msg: string): void }; upload?: UploadLimits },
): Router {
  const router = express.Router();
  const operations = loadOperations();
  const schema = yoga.getEnveloped({}).schema;
  for (const [name, operation] of operations) {
    // The service's rules: a document may declare a document scalar's variable JSON (json-variables.ts).
    const errors = validate(schema, operation.document, v1ValidationRules);
    if (errors.length) throw new Error(`REST operation ${name} does not validate: ${errors.map((e) => e.message).join('; ')}`);
  }
  const table = options.routes ?? defaultRoutes;

  /** Executes a route's operation through Yoga's enveloped pipeline: its data, or its first error as a problem. */
  async function execute(
    route: Route,
    document: DocumentNode,
    req: Request,
    variables: Record<string, unknown>,
    signal: AbortSignal | null,
  ) {
    const enveloped = yoga.getEnveloped({
      restCredentials: {
        authorization: req.get('authorization') ?? null,
        workspaceHeader: req.get('x-workspace-id') ?? null,
        requestId: req.get('x-request-id') ?? null,
        clientAddress: req.socket.remoteAddress ?? 'unknown',
        signal,
      },
    });
    const result = (await enveloped.execute({
      schema: enveloped.schema,
      document,
      operationName: route.operation,
      variableValues: variables,
      contextValue: await enveloped.contextFactory(),
    })) as { data?: Record<string, unknown> | null; errors?: readonly { message: string; extensions?: Record<string, unknown> }[] };
    if (!result.errors?.length) return { data: result.data, problem: null };
    const first = result.errors[0]!;
    const code = typeof first.extensions?.code === 'string' ? first.extensions.code : 'internal';
    return {
      data: null,
      problem: new Problem({ code, message: first.message, details: first.extensions?.details as Record<string, unknown> | undefined }),
    };
  }

  for (const route of table) {
    const operation = operations.get(route.operation);
    if (!operation) throw new Error(`route ${route.method} ${route.path} names missing operation ${route.operation}`);
    // Worked out (and checked against the policy) at start-up: a malformed deprecation stops the service.
    const deprecation = route.deprecated ? Object.entries(deprecationHeaders(route.deprecated)) : [];
    const handler = async (req: Request, res: Response) => {
      let spooled: SpooledUpload | null = null;
      for (const [name, value] of deprecation) res.setHeader(name, value);
      try {
        const helper = requestHelper(req);
        if (route.download) {
          await serveDownload(req, res, route, route.download, async (extra) => {
            const outcome = await execute(route, operation.document, req, { ...(route.variables?.(helper) ?? {}), ...extra }, null);
            if (outcome.problem) throw outcome.problem;
            return route.result.split('.').reduce<unknown>(resultStep, outcome.data) as Record<string, unknown>;
          });
          return;
        }
        let bodyVariables: Record<string, unknown>;
        if (route.upload) {
          if (!options.upload) throw new Error('upload routes need the upload limits');
          if (route.upload.check) {
            const check = operations.get(route.upload.check);
            if (!check) throw new Error(`route ${route.method} ${route.path} names missing operation ${route.upload.check}`);
            const length = Number(req.get('content-length') ?? NaN);
            const checked = await execute(
              { ...route, operation: route.upload.check },
              check.document,
              req,
              {
                sizeBytes: Number.isFinite(length) && !/multipart/i.test(req.get('content-type') ?? '') ? length : null,
              },
              null,
            );
            if (checked.problem) throw checked.problem;
          }
          spooled = await spoolUpload(req, options.upload);
          bodyVariables = uploadVariables(route, route.upload, helper, spooled, schema, operation.document);
        } else if (route.rawBody) {
          if (!Buffer.isBuffer(req.body) || req.body.length === 0)
            throw invalidArgument('send the file as the request body with its Content-Type', 'body');
          bodyVariables = {
            [route.rawBody.content]: req.body.toString('base64'),
            [route.rawBody.mediaType]: req.get('content-type') ?? '',
          };
        } else {
          if (Buffer.isBuffer(req.body)) throw invalidArgument('this endpoint takes a JSON body', 'Content-Type');
          bodyVariables = mapBody(route, req.body, schema, operation.document);
        }
        const variables: Record<string, unknown> = { ...(route.upload ? {} : (route.variables?.(helper) ?? {})), ...bodyVariables };
        // `Prefer: wait=N` becomes the operation's `wait` argument (a value that is not one is ignored, RFC 7240).
        const wait = route.wait ? parsePreferWait(helper.header('prefer')) : null;
        if (wait !== null) variables.wait = wait;
        // Released when the client goes away: a waiting operation stops waiting.
        const gone = wait ? new AbortController() : null;
        if (gone) res.once('close', () => gone.abort());
        // Executed through Yoga's enveloped pipeline (the same plugins, context and error masking
        // as HTTP and graphql-ws), with the document parsed and validated once at start-up.
        const enveloped = yoga.getEnveloped({
          restCredentials: {
            authorization: req.get('authorization') ?? null,
            workspaceHeader: req.get('x-workspace-id') ?? null,
            requestId: req.get('x-request-id') ?? null,
            clientAddress: req.socket.remoteAddress ?? 'unknown',
            signal: gone?.signal ?? null,
          },
        });
        const result = (await enveloped.execute({
          schema: enveloped.schema,
          document: operation.document,
          operationName: route.operation,
          variableValues: variables,
          contextValue: await enveloped.contextFactory(),
        })) as { data?: Record<string, unknown> | null; errors?: readonly { message: string; extensions?: Record<string, unknown> }[] };
        // The operation has read the upload: its temporary file goes before the answer does.
        if (spooled) {
          await spooled.remove();
          spooled = null;
        }
        if (result.errors?.length) {
          const first = result.errors[0]!;
          const code = typeof first.extensions?.code === 'string' ? first.extensions.code : 'internal';
          const problem = { code, message: first.message, details: first.extensions?.details as Record<string, unknown> | undefined };
          // A connection's `first`/`after` are the route's `limit`/`cursor`: named as the caller sent them.
          sendError(res, route.surface, route.connection ? renamePageProblem(problem, REST_PAGE_ARGUMENTS) : problem, 'body', req);
          return;
        }
        const value = route.result.split('.').reduce<unknown>(resultStep, result.data);
        if (route.wait) {
          let applied = wait !== null;
          if (route.wait !== true && value && typeof value === 'object') {
            const fields = value as Record<string, unknown>;
            applied &&= fields[route.wait.applied] === true;
            delete fields[route.wait.applied];
          }
          if (applied) res.setHeader('Preference-Applied', `wait=${wait}`);
          res.vary('Prefer');
        }
        if (route.wrapItems) {
          res.status(route.status ?? 200).json({ items: value ?? [], ...(route.wrapItems === 'page' ? { next_cursor: null } : {}) });
          return;
        }
        if (route.connection) {
          res.status(route.status ?? 200).json(listPage(value as SelectedConnection));
          return;
        }
        if (route.binary && value && typeof value === 'object') {
          const file = value as Record<string, string>;
          if (route.binary.etag) res.setHeader('ETag', `"${file[route.binary.etag]}"`);
          res.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
          res
            .status(200)
            .type(file[route.binary.mediaType] ?? 'application/octet-stream')
            .send(Buffer.from(file[route.binary.content] ?? '', 'base64'));
          return;
        }
        if (route.empty) {
          res.status(204).end();
          return;
        }
        if (value && typeof value === 'object' && !Array.isArray(value) && 'etag' in value) {
          const { etag, ...rest } = value as Record<string, unknown>;
          if (typeof etag === 'string') res.setHeader('ETag', etag);
          res.status(route.status ?? 200).json(rest);
          return;
        }
        if (value && typeof value === 'object' && Array.isArray((value as { items?: unknown }).items)) {
          // List items are views too: their ETags are for single reads, not for bodies.
          const page = value as { items: Record<string, unknown>[] };
          res.status(route.status ?? 200).json({ ...page, items: page.items.map(({ etag: _etag, ...item }) => item) });
          return;
        }
        res.status(route.status ?? 200).json(value ?? null);
      } catch (error) {
        if (!isAppError(error) && !isProblem(error) && !unavailableFromError(error))
          options.logger?.error({ err: error, route: `${route.method} ${route.path}` }, 'REST shim failed');
        // A refused upload's temporary file goes before the answer too, as after the operation.
        if (spooled) {
          await spooled.remove();
          spooled = null;
        }
        if (res.headersSent) {
          // A download failed part-way: the client sees a cut-short body, never a wrong one.
          res.destroy();
          return;
        }
        // An upload refused before its end: the connection closes after the answer, so the rest is not read.
        if (route.upload && !req.readableEnded) res.setHeader('Connection', 'close');
        sendError(res, route.surface, isProblem(error) ? error.problem : errorFromUnknown(error), 'body', req);
      } finally {
        await spooled?.remove();
      }
    };
    router[route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](route.path, handler);
  }

  // A known path with a method it does not serve answers 405 and lists the methods it does. One path
  // can match several rows (`/records/search` is also a `/records/:record_id`), so Allow names every
  // method of every row whose path matches the request, not only the first row's.
  const byPath = new Map<string, Set<string>>();
  for (const route of table) byPath.set(route.path, (byPath.get(route.path) ?? new Set()).add(route.method));
  const patterns = [...byPath].map(([path, methods]) => ({ test: pathMatcher(path), methods }));
  const allowedFor = (requestPath: string) =>
    [...new Set(patterns.filter((pattern) => pattern.test(requestPath)).flatMap((pattern) => [...pattern.methods]))].sort();
  for (const path of byPath.keys()) {
    router.all(path, (req, res) => {
      const methods = allowedFor(req.path);
      res.setHeader('Allow', methods.join(', '));
      const surface: Surface = path.startsWith('/api/v1/') ? 'v1' : 'support';
      sendError(res, surface, {
        code: 'method_not_allowed',
        message: `${req.method} is not an operation of ${path}; allowed: ${methods.join(', ')}`,
      });
    });
  }
  return router;
}

/**
 * A test of a request path against a table path, as express matches it: `:name` is one segment,
 * letters in any case, an optional trailing slash.
 */
function pathMatcher(path: string): (requestPath: string) => boolean {
  const escaped = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const pattern = new RegExp(`^${escaped}/?$`, 'i');
  return (requestPath) => pattern.test(requestPath);
}

/**
 * Whether `req` is for an upload route of the table (its body is streamed by the route, so the body
 * parsers must leave it alone). Upload routes have fixed paths; express matches them case-insensitively
 * and with or without a trailing slash.
 */
export function uploadRequestMatcher(table: Route[] = defaultRoutes): (req: { method: string; originalUrl: string }) => boolean {
  const uploads = new Set(table.filter((route) => route.upload).map((route) => `${route.method} ${route.path.toLowerCase()}`));
  for (const key of uploads) if (key.includes(':')) throw new Error(`upload route ${key} must have a fixed path`);
  return (req) => {
    // originalUrl: under a mount, req.path is only the part after it.
    const path = req.originalUrl.split('?')[0]!.toLowerCase().replace(/\/+$/, '');
    return uploads.has(`${req.method} ${path}`);
  };
}

export { sendError, CLIENT_ADDRESS_HEADER };
