// The MCP server at /mcp (streamable HTTP, as @modelcontextprotocol/sdk serves it): every agent of the
// caller's workspace is a tool. Like the REST shim it executes GraphQL documents (src/protocols/operations/)
// through Yoga's enveloped pipeline with the caller's own credentials, so MCP callers get the same
// auth, permissions, tenancy, audit and error codes as every other surface; it never reaches a
// service or the database itself.
//
// Sessions are stateful and kept in this process (an `Mcp-Session-Id` per client): a client's
// `notifications/cancelled` arrives as a request of its own and must reach the process that holds the
// call it cancels. Behind a load balancer, route by that header; a request for a session this process
// does not know answers 404, on which the MCP client starts a new session (docs/protocols/mcp.md).
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { createHash, randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestCredentials } from '../../graphql/context.js';
import { statusForCode } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import {
  McpAgentsDocument,
  McpRunItemsDocument,
  McpViewerDocument,
  ProtocolCancelRunDocument,
  ProtocolResumeRunDocument,
  ProtocolRunDocument,
  ProtocolStartRunDocument,
  ProtocolThreadDocument,
  type McpAgentsQuery,
} from '../../generated/protocol-documents.js';
import { OperationProblem, operationRunner, requestCredentials, type EnvelopedGraphQL } from '../operation-runner.js';
import {
  INPUT_SCHEMA,
  OUTPUT_SCHEMA,
  resultText,
  resumeInput,
  structuredResult,
  toolDescription,
  toolNames,
  type AgentSummary,
  type RunView,
} from './tools.js';

export interface McpEndpointOptions {
  /** `key:value`: only agents carrying this label are tools (MCP_AGENT_LABEL); null: every agent. */
  agentLabel: string | null;
  logger: Logger;
  /** The service's version, as the server announces it in `initialize`. */
  version: string;
  maxBodyBytes: number;
  /** Sessions idle (no request under way) this long are closed. */
  sessionIdleMs?: number;
  /** At most this many sessions per process: the one idle longest goes to make room. */
  maxSessions?: number;
}

const SERVER_NAME = 'workspace-agent-service';
const DEFAULT_IDLE_MS = 30 * 60_000;
const DEFAULT_MAX_SESSIONS = 10_000;
/** The `wait` of a run read while following it: under the GraphQL execution deadline's default. */
const WAIT_SECONDS = 20;
/** Agents listed as tools at most (pages of 100): a workspace with more names the rest by label. */
const MAX_AGENT_PAGES = 10;
const SETTLED = new Set(['completed', 'failed', 'cancelled', 'waiting']);

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** Which credential opened the session: another one may not use it. */
  credentialDigest: string;
  lastSeen: number;
  /** Requests under way: a session is not idle while a call runs. */
  active: number;
}

/** The credentials a request carries, kept in the MCP request's AuthInfo for its handlers. */
interface CallerInfo extends Record<string, unknown> {
  credentials: RequestCredentials;
}

const digestOf = (credentials: RequestCredentials) =>
  createHash('sha256')
    .update(`${credentials.authorization ?? ''}\n${credentials.workspaceHeader ?? ''}`)
    .digest('hex');

export function createMcpEndpoint(yoga: EnvelopedGraphQL, options: McpEndpointOptions): { router: Router; close(): Promise<void> } {
  const operations = operationRunner(yoga, 'MCP');
  const execute = operations.execute;

  const sessions = new Map<string, Session>();
  const idleMs = options.sessionIdleMs ?? DEFAULT_IDLE_MS;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;

  async function listAgents(credentials: RequestCredentials): Promise<Map<string, AgentSummary>> {
    const agents: AgentSummary[] = [];
    let after: string | null = null;
    for (let page = 0; page < MAX_AGENT_PAGES; page++) {
      const data: McpAgentsQuery = await execute(credentials, McpAgentsDocument, {
        after,
        label: options.agentLabel ? [options.agentLabel] : null,
      });
      agents.push(...data.agents.nodes);
      if (!data.agents.pageInfo.hasNextPage) break;
      after = data.agents.pageInfo.endCursor;
    }
    return toolNames(agents);
  }

  /**
   * Follows a run until it is sealed or waiting: its items through the `runItems` subscription (each
   * one a progress notification when the client asked for progress), then the run itself. Stops
   * early when `signal` aborts.
   */
  async function follow(
    credentials: RequestCredentials,
    runId: string,
    signal: AbortSignal,
    onItem: (item: { ordinal: number; kind: string; state: string }) => Promise<void>,
  ): Promise<RunView | null> {
    for await (const data of operations.subscribe(credentials, McpRunItemsDocument, { runId }, signal)) await onItem(data.runItems);
    // The stream completes when the run is sealed or waiting; the read confirms it (and waits, should
    // the stream have ended early).
    while (!signal.aborted) {
      const { run: view } = await execute({ ...credentials, signal }, ProtocolRunDocument, { id: runId, wait: WAIT_SECONDS });
      if (SETTLED.has(view.status)) return view;
    }
    return null;
  }

  async function callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    credentials: RequestCredentials,
    signal: AbortSignal,
    progress: ((message: string) => Promise<void>) | null,
  ): Promise<CallToolResult> {
    const tools = await listAgents(credentials);
    const agent = tools.get(name);
    if (!agent) throw new McpError(ErrorCode.InvalidParams, `no tool ${JSON.stringify(name.slice(0, 200))}`);
    const message = args?.message;
    const threadId = args?.thread_id;
    const unknown = Object.keys(args ?? {}).filter((key) => key !== 'message' && key !== 'thread_id');
    if (typeof message !== 'string' || message.trim() === '') return refusal('invalid_argument', 'message must be a non-empty string');
    if (threadId !== undefined && (typeof threadId !== 'string' || threadId === ''))
      return refusal('invalid_argument', 'thread_id must be a string');
    if (unknown.length) return refusal('invalid_argument', `unknown argument ${JSON.stringify(unknown[0]!.slice(0, 100))}`);

    let started: RunView;
    try {
      started = await startOrAnswer(credentials, agent, message, threadId as string | undefined);
    } catch (error) {
      if (error instanceof OperationProblem) return refusal(error.code, error.message);
      if (error instanceof AnswerNeeded) return refusal('invalid_argument', error.message);
      throw error;
    }
    // Cancelling the MCP request cancels the run (`notifications/cancelled` aborts the handler's signal).
    let cancelled: Promise<unknown> | null = null;
    const cancel = () => {
      cancelled = execute(credentials, ProtocolCancelRunDocument, { id: started.id }).catch((error) =>
        options.logger.warn({ err: error, runId: started.id }, 'MCP: cancelling the run failed'),
      );
    };
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    try {
      const settled = SETTLED.has(started.status)
        ? started
        : await follow(
            credentials,
            started.id,
            signal,
            (item) => progress?.(`item ${item.ordinal} ${item.kind} ${item.state}`) ?? Promise.resolve(),
          );
      if (!settled) {
        await cancelled;
        // No answer goes out for a cancelled request (the SDK drops it): this one is for the record.
        return refusal('cancelled', 'the request was cancelled; the run was cancelled');
      }
      return {
        content: [{ type: 'text', text: resultText(settled) }],
        structuredContent: structuredResult(settled),
        ...(settled.status === 'failed' || settled.status === 'cancelled' ? { isError: true } : {}),
      };
    } catch (error) {
      if (error instanceof OperationProblem) return refusal(error.code, error.message);
      throw error;
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /** A new run of the agent, or — on a thread whose last run waits for an answer — the answer. */
  async function startOrAnswer(credentials: RequestCredentials, agent: AgentSummary, message: string, threadId: string | undefined) {
    const input = { content: [{ type: 'text', text: message }] };
    if (threadId !== undefined) {
      const { thread } = await execute(credentials, ProtocolThreadDocument, { id: threadId });
      if (thread.lastRunId) {
        const { run: last } = await execute(credentials, ProtocolRunDocument, { id: thread.lastRunId });
        if (last.status === 'waiting' && !last.resumedById) {
          const answers = resumeInput(last, message);
          if (!answers) throw new AnswerNeeded('the run waits for an approval: answer "approve" or "deny"');
          const data = await execute(credentials, ProtocolResumeRunDocument, {
            runId: last.id,
            input: answers,
            // Each tool call is one answer: a retried call is a new request of the client's.
            idempotencyKey: `mcp-${randomUUID()}`,
          });
          return data.resumeRun.run;
        }
      }
    }
    const data = await execute(credentials, ProtocolStartRunDocument, {
      input: { agentId: agent.id, input, ...(threadId ? { threadId } : {}) },
    });
    return data.startRun.run;
  }

  function newSession(credentialDigest: string): Session {
    const server = new Server(
      { name: SERVER_NAME, version: options.version },
      {
        capabilities: { tools: { listChanged: false } },
        instructions:
          'Each tool is an agent of the workspace. Call it with a message; pass the thread_id of a result to continue that conversation or to answer a paused run.',
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      const credentials = callerOf(extra.authInfo);
      const tools = await listAgents(credentials).catch(rethrowAsMcp);
      return {
        tools: [...tools].map(([name, agent]) => ({
          name,
          title: agent.name,
          description: toolDescription(agent),
          inputSchema: INPUT_SCHEMA,
          outputSchema: OUTPUT_SCHEMA,
          annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
          _meta: { agent_id: agent.id },
        })),
      };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const credentials = callerOf(extra.authInfo);
      const token = request.params._meta?.progressToken;
      let count = 0;
      const progress =
        token === undefined
          ? null
          : async (message: string) => {
              count += 1;
              const notification: ServerNotification = {
                method: 'notifications/progress',
                params: { progressToken: token, progress: count, message },
              };
              await extra.sendNotification(notification).catch(() => undefined);
            };
      const session = extra.sessionId ? sessions.get(extra.sessionId) : undefined;
      if (session) session.active += 1;
      try {
        return await callTool(request.params.name, request.params.arguments, credentials, extra.signal, progress).catch(rethrowAsMcp);
      } finally {
        if (session) {
          session.active -= 1;
          session.lastSeen = Date.now();
        }
      }
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        makeRoom();
        sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const session: Session = { transport, server, credentialDigest, lastSeen: Date.now(), active: 0 };
    return session;
  }

  function makeRoom() {
    if (sessions.size < maxSessions) return;
    let oldest: [string, Session] | null = null;
    for (const entry of sessions) if (entry[1].active === 0 && (!oldest || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
    if (oldest) closeSession(oldest[0], oldest[1]);
  }

  function closeSession(id: string, session: Session) {
    sessions.delete(id);
    void session.server.close().catch(() => undefined);
  }

  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) if (session.active === 0 && now - session.lastSeen > idleMs) closeSession(id, session);
    },
    Math.min(idleMs, 60_000),
  );
  sweeper.unref();

  const router = express.Router();
  router.use(express.json({ limit: options.maxBodyBytes, strict: true, type: () => true }));
  router.all('/', async (req: Request, res: Response) => {
    const credentials = requestCredentials(req);
    try {
      // Every request authenticates, as every REST request does (a revoked key stops at once).
      const { viewer } = await execute(credentials, McpViewerDocument, {});
      const digest = digestOf(credentials);
      const sessionId = req.get('mcp-session-id');
      let session: Session | undefined;
      if (sessionId) {
        session = sessions.get(sessionId);
        // Another credential's session is as unknown as a closed one.
        if (!session || session.credentialDigest !== digest) {
          jsonRpcError(res, 404, -32001, 'Session not found: start a new session with initialize');
          return;
        }
      } else if (req.method === 'POST' && isInitializeRequest(req.body)) {
        session = newSession(digest);
        await session.server.connect(session.transport);
      } else {
        jsonRpcError(res, 400, ErrorCode.InvalidRequest, 'Bad Request: no Mcp-Session-Id; start a session with initialize');
        return;
      }
      session.lastSeen = Date.now();
      const auth: AuthInfo = {
        token: credentials.authorization ?? '',
        clientId: viewer.principalId,
        scopes: viewer.permissions,
        extra: { credentials } satisfies CallerInfo,
      };
      await session.transport.handleRequest(Object.assign(req, { auth }), res, req.body);
    } catch (error) {
      if (res.headersSent) return;
      if (error instanceof OperationProblem) {
        answerProblem(res, error);
        return;
      }
      options.logger.error({ err: error }, 'MCP endpoint failed');
      jsonRpcError(res, 500, ErrorCode.InternalError, 'internal error');
    }
  });
  // A body that is not JSON: JSON-RPC's parse error, not the REST error shape.
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: number }).status;
    if (status === 413) jsonRpcError(res, 413, ErrorCode.InvalidRequest, `the request body is larger than ${options.maxBodyBytes} bytes`);
    else jsonRpcError(res, 400, ErrorCode.ParseError, 'Parse error: the body must be JSON');
  });

  return {
    router,
    async close() {
      clearInterval(sweeper);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.server.close().catch(() => undefined)));
    },
  };
}

/** A tool call the service refused: an error result the calling model can read and act on. */
function refusal(code: string, message: string): CallToolResult {
  return { content: [{ type: 'text', text: `${code}: ${message}` }], isError: true };
}

class AnswerNeeded extends Error {}

function callerOf(auth: AuthInfo | undefined): RequestCredentials {
  const credentials = (auth?.extra as CallerInfo | undefined)?.credentials;
  // The endpoint authenticates before the transport sees a request: a handler without a caller is a bug.
  if (!credentials) throw new McpError(ErrorCode.InternalError, 'no caller');
  return credentials;
}

/** A service error outside a tool call (listing tools) as a JSON-RPC error: the service's code in `data.code`. */
function rethrowAsMcp(error: unknown): never {
  if (error instanceof OperationProblem) {
    const rpc =
      error.code === 'invalid_argument' || error.code === 'not_found'
        ? ErrorCode.InvalidParams
        : error.code === 'internal'
          ? ErrorCode.InternalError
          : ErrorCode.InvalidRequest;
    throw new McpError(rpc, error.message, { code: error.code, ...(error.details ? { details: error.details } : {}) });
  }
  throw error;
}

function jsonRpcError(res: Response, status: number, code: number, message: string, data?: Record<string, unknown>) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null });
}

/**
 * A refused credential: 401 with a Bearer challenge (RFC 6750, as the MCP authorization
 * specification asks of a protected resource); other problems with their status from the error table.
 */
function answerProblem(res: Response, problem: OperationProblem) {
  const status = statusForCode(problem.code);
  if (status === 401) {
    const presented = Boolean(res.req.get('authorization'));
    res.setHeader(
      'WWW-Authenticate',
      presented
        ? `Bearer realm="${SERVER_NAME}", error="invalid_token", error_description="the workspace API key is not valid"`
        : `Bearer realm="${SERVER_NAME}"`,
    );
  }
  const rpc = status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest;
  jsonRpcError(res, status, rpc, problem.message, { code: problem.code, ...(problem.details ? { details: problem.details } : {}) });
}
