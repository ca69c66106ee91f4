// A2A at /a2a/{agent_id}: another agent (an A2A client) sends messages to one of the workspace's agents
// and follows the tasks they start, over A2A's JSON-RPC binding. The binding itself (envelopes, method
// names, server-sent events, error envelopes) is @a2a-js/sdk's transport; the request handler below
// implements its operations by executing GraphQL documents (src/protocols/operations/a2a.graphql) through Yoga's
// enveloped pipeline with the caller's own credentials, as the other adapters do: A2A callers get the
// same auth, permissions, tenancy, audit and error codes as every other surface. A task is a run (and
// the runs that resume it), a context a thread. Mappings and support: docs/protocols/a2a.md.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { A2A_PROTOCOL_VERSION, AgentCard, type Message, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  A2AError,
  A2A_ERROR_CODE,
  ERROR_INFO_TYPE,
  JsonRpcUnsupportedOperationError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  ExtendedAgentCardNotConfiguredError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext, User } from '@a2a-js/sdk/server';
import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { A2A_LEGACY_PROTOCOL_VERSION, duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { legacyAgentCardRouter } from '@a2a-js/sdk/compat/v0_3/server/express';
import {
  A2aAgentDocument,
  ProtocolCancelRunDocument,
  ProtocolCreateThreadDocument,
  ProtocolResumeRunDocument,
  ProtocolRunDocument,
  ProtocolRunItemEventsDocument,
  A2aRunItemsDocument,
  ProtocolStartRunDocument,
  ProtocolThreadDocument,
} from '../../generated/protocol-documents.js';
import type { RequestCredentials } from '../../graphql/context.js';
import { statusForCode } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { isOperationProblem, OperationProblem, operationRunner, type EnvelopedGraphQL } from '../operation-runner.js';
import {
  answersFor,
  ArtifactStream,
  metadataOf,
  SETTLED,
  statusMessageOf,
  taskOf,
  taskStateOf,
  TERMINAL,
  textOf,
  type ItemEvent,
  type ItemView,
  type RunView,
} from './tasks.js';

export interface A2aEndpointOptions {
  logger: Logger;
  maxBodyBytes: number;
  /** The service's version, the agent card's `version`. */
  version: string;
}

interface AgentView {
  id: string;
  name: string;
  description: string;
}

/** The caller of one request, as the endpoint resolved it before the JSON-RPC transport saw the request. */
class Caller implements User {
  constructor(
    readonly credentials: RequestCredentials,
    readonly agent: AgentView,
    /** Aborted when the client goes away: a stream it no longer reads stops following the run. */
    readonly signal: AbortSignal,
  ) {}
  get isAuthenticated() {
    return true;
  }
  get userName() {
    return this.agent.id;
  }
}

/** The `wait` of a run read while waiting for it to settle: under the GraphQL execution deadline's default. */
const WAIT_SECONDS = 20;
/** The service's own thread ids: a contextId must be one of the workspace's threads. */
const SERVICE_THREAD_ID = /^thr_/;
/** A task's runs are followed through the runs that resume it: a bound on that chain, against a cycle. */
const MAX_RESUMES = 100;
const REALM = 'workspace-agent-service';

export function createA2aEndpoint(yoga: EnvelopedGraphQL, options: A2aEndpointOptions): { router: Router } {
  const operations = operationRunner(yoga, 'A2A');
  const execute = operations.execute;

  const runOf = async (caller: Caller, id: string, wait?: number) =>
    (await execute({ ...caller.credentials, signal: caller.signal }, ProtocolRunDocument, { id, ...(wait ? { wait } : {}) }))
      .run as RunView;

  /** The task's runs: the run `taskId` and each that resumed the one before. Another agent's run is no task here. */
  async function runsOf(caller: Caller, taskId: string): Promise<RunView[]> {
    let run: RunView;
    try {
      run = await runOf(caller, taskId);
    } catch (error) {
      if (isOperationProblem(error) && (error.code === 'not_found' || error.code === 'invalid_argument'))
        throw new TaskNotFoundError(`task ${taskId} not found`);
      throw error;
    }
    if (run.agentId !== caller.agent.id) throw new TaskNotFoundError(`task ${taskId} not found`);
    const runs = [run];
    while (run.resumedById && runs.length < MAX_RESUMES) {
      run = await runOf(caller, run.resumedById);
      runs.push(run);
    }
    return runs;
  }

  async function taskView(caller: Caller, taskId: string, runs: RunView[], historyLength?: number): Promise<Task> {
    const withItems = await Promise.all(
      runs.map(async (run) => {
        const data = await execute(caller.credentials, A2aRunItemsDocument, { id: run.id });
        return { run, items: data.run.items.nodes as ItemView[] };
      }),
    );
    return taskOf(taskId, withItems, historyLength);
  }

  /** Waits until the run is settled (completed, failed, cancelled or input-required). */
  async function settled(caller: Caller, run: RunView): Promise<RunView> {
    while (!SETTLED.has(run.status) && !caller.signal.aborted) run = await runOf(caller, run.id, WAIT_SECONDS);
    return run;
  }

  /**
   * The task a message stands for and its runs, the last one the run the message started: the task's
   * waiting run resumed with the message's answers (a message naming its task), or a new run in the
   * message's context (a new thread without one).
   */
  async function startOrResume(caller: Caller, message: Message): Promise<{ taskId: string; runs: RunView[] }> {
    if (message.taskId) {
      const runs = await runsOf(caller, message.taskId);
      const last = runs.at(-1)!;
      if (message.contextId && message.contextId !== last.threadId)
        throw new RequestMalformedError(`task ${message.taskId} belongs to context ${last.threadId}, not ${message.contextId}`);
      if (last.status !== 'waiting')
        throw new UnsupportedOperationError(
          TERMINAL.has(last.status)
            ? `task ${message.taskId} is ${last.status === 'cancelled' ? 'canceled' : last.status}: send a new message without its taskId`
            : `task ${message.taskId} is working: only an input-required task takes a message`,
        );
      const data = await execute(caller.credentials, ProtocolResumeRunDocument, {
        runId: last.id,
        input: answersFor(last, message),
        // The message's id keys the resume: a retried message resumes the run once.
        idempotencyKey: `a2a-${message.messageId}`.slice(0, 200),
      });
      return { taskId: message.taskId, runs: [...runs, data.resumeRun.run as RunView] };
    }
    const text = textOf(message);
    if (text === '') throw new RequestMalformedError('the message has no text part');
    const threadId = await threadFor(caller, message.contextId);
    const data = await execute(caller.credentials, ProtocolStartRunDocument, {
      input: { agentId: caller.agent.id, threadId, input: { content: [{ type: 'text', text }] } },
    });
    const run = data.startRun.run as RunView;
    return { taskId: run.id, runs: [run] };
  }

  /** The thread of a message's context: the workspace's thread it names, or a new one. */
  async function threadFor(caller: Caller, contextId: string): Promise<string> {
    if (!contextId) return (await execute(caller.credentials, ProtocolCreateThreadDocument, { input: {} })).createThread.thread.id;
    if (!SERVICE_THREAD_ID.test(contextId))
      throw new RequestMalformedError(`contextId ${contextId.slice(0, 200)} is not a context of this service: omit it to start one`);
    const thread = (await execute(caller.credentials, ProtocolThreadDocument, { id: contextId })).thread as {
      id: string;
      lastRunId: string | null;
    };
    // A new task while the context's task waits for input would queue behind it and never start.
    if (thread.lastRunId) {
      const last = await runOf(caller, thread.lastRunId);
      if (last.status === 'waiting' && !last.resumedById)
        throw new UnsupportedOperationError(
          `a task of context ${contextId} is input-required (run ${last.id}): answer it with its taskId first`,
        );
    }
    return thread.id;
  }

  /**
   * A task's events from its current run (the last of `runs`) on: the task itself, its answers as
   * artifact updates while the run goes on, and a last status update when the run is settled (the
   * stream ends there).
   */
  async function* follow(caller: Caller, taskId: string, runs: RunView[]): AsyncGenerator<StreamResponse> {
    const run = runs.at(-1)!;
    yield { payload: { $case: 'task', value: await taskView(caller, taskId, runs) } };
    const artifacts = new ArtifactStream(taskId, run.threadId);
    let working = run.status === 'running';
    for await (const data of operations.subscribe(caller.credentials, ProtocolRunItemEventsDocument, { runId: run.id }, caller.signal)) {
      if (!working) {
        working = true;
        yield statusUpdate(taskId, { ...run, status: 'running' });
      }
      for (const update of artifacts.translate(data.runItemEvents as ItemEvent))
        yield { payload: { $case: 'artifactUpdate', value: update } };
    }
    if (caller.signal.aborted) return;
    yield statusUpdate(taskId, await settled(caller, await runOf(caller, run.id)));
  }

  const handler: A2ARequestHandler = {
    // The JSON-RPC transport reads the card only for the protocol versions it declares.
    getAgentCard: async () => cardOf({ id: '', name: '', description: '' }, '', options.version),
    async getAuthenticatedExtendedAgentCard() {
      throw new ExtendedAgentCardNotConfiguredError('this agent has no extended card');
    },
    sendMessage: (params, context) =>
      guarded(async () => {
        const caller = callerOf(context);
        const { taskId, runs } = await startOrResume(caller, requireMessage(params));
        const run = runs.at(-1)!;
        const now = params.configuration?.returnImmediately ? run : await settled(caller, run);
        return taskView(caller, taskId, [...runs.slice(0, -1), now], params.configuration?.historyLength);
      }),
    async *sendMessageStream(params, context) {
      const caller = callerOf(context);
      const { taskId, runs } = await guarded(() => startOrResume(caller, requireMessage(params)));
      yield* guardedStream(follow(caller, taskId, runs));
    },
    getTask: (params, context) =>
      guarded(async () => {
        const caller = callerOf(context);
        return taskView(caller, params.id, await runsOf(caller, params.id), params.historyLength);
      }),
    cancelTask: (params, context) =>
      guarded(async () => {
        const caller = callerOf(context);
        const runs = await runsOf(caller, params.id);
        const last = runs.at(-1)!;
        if (TERMINAL.has(last.status)) throw new TaskNotCancelableError(`task ${params.id} is ${last.status}`);
        const cancelled = (await execute(caller.credentials, ProtocolCancelRunDocument, { id: last.id })).cancelRun.run as RunView;
        // A running run stops at its next step: the answer waits (briefly) for the cancellation to land.
        const now = await settled(caller, cancelled);
        return taskView(caller, params.id, [...runs.slice(0, -1), now]);
      }),
    async *resubscribe(params, context) {
      const caller = callerOf(context);
      const runs = await guarded(() => runsOf(caller, params.id));
      const last = runs.at(-1)!;
      if (TERMINAL.has(last.status)) throw new UnsupportedOperationError(`task ${params.id} is ${last.status}: read it with GetTask`);
      yield* guardedStream(follow(caller, params.id, runs));
    },
    async listTasks() {
      throw new UnsupportedOperationError('listing tasks is not supported: list runs with GET /api/v1/runs');
    },
    async createTaskPushNotificationConfig() {
      throw new PushNotificationNotSupportedError('push notifications are not supported: use the service webhooks');
    },
    async getTaskPushNotificationConfig() {
      throw new PushNotificationNotSupportedError('push notifications are not supported');
    },
    async listTaskPushNotificationConfigs() {
      throw new PushNotificationNotSupportedError('push notifications are not supported');
    },
    async deleteTaskPushNotificationConfig() {
      throw new PushNotificationNotSupportedError('push notifications are not supported');
    },
  };

  const rpc = jsonRpcHandler({
    requestHandler: handler,
    // v0.3 peers (`message/send`, `tasks/get`, … and v0.3 shapes), told apart by their A2A-Version
    // header (none means 0.3): the SDK translates them to the same handler.
    legacyCompat: { enabled: true },
    // The endpoint has resolved the caller (below) before the transport sees the request.
    userBuilder: async (req) => (req.res!.locals as { a2aCaller: Caller }).a2aCaller,
  });

  const credentialsOf = (req: Request): RequestCredentials => ({
    authorization: req.get('authorization') ?? null,
    workspaceHeader: req.get('x-workspace-id') ?? null,
    requestId: req.get('x-request-id') ?? null,
    clientAddress: req.socket.remoteAddress ?? 'unknown',
  });
  /** The agent of the path, read with the caller's key: a bad key answers 401, another workspace's agent 404. */
  const agentOf = async (req: Request) =>
    (await execute(credentialsOf(req), A2aAgentDocument, { id: String(req.params.agentId) })).agent as AgentView;

  const router = express.Router();
  router.get('/:agentId/.well-known/agent-card.json', async (req: Request, res: Response) => {
    try {
      const agent = await agentOf(req);
      const card = cardOf(agent, `${req.protocol}://${req.get('host')}${req.baseUrl}/${agent.id}`, options.version);
      res.setHeader('Cache-Control', 'private, no-cache');
      if (isLegacyRequest(req)) {
        // The v0.3 card (`url`, `protocolVersion`, `kind`-tagged shapes), as the SDK translates it.
        req.url = '/';
        legacyAgentCardRouter({ agentCardProvider: async () => card, cache: { maxAge: 0 } })(req, res, () =>
          answerProblem(res, new OperationProblem('internal', 'the v0.3 agent card could not be made'), options.logger),
        );
        return;
      }
      res.json(AgentCard.toJSON(card));
    } catch (error) {
      answerProblem(res, error, options.logger);
    }
  });
  router.use('/:agentId', express.json({ limit: options.maxBodyBytes, strict: true, type: () => true }));
  router.post('/:agentId', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const agent = await agentOf(req);
      const gone = new AbortController();
      res.on('close', () => gone.abort());
      res.locals.a2aCaller = new Caller(credentialsOf(req), agent, gone.signal);
    } catch (error) {
      answerProblem(res, error, options.logger);
      return;
    }
    // The SDK's transport routes its own path ("/"): the agent's address is this router's.
    req.url = '/';
    rpc(req, res, next);
  });
  // A body that is not JSON, or too large: JSON-RPC's own errors, as the transport answers the rest.
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: number }).status;
    if (status === 413)
      jsonRpcError(res, 413, A2A_ERROR_CODE.INVALID_REQUEST, `the request body is larger than ${options.maxBodyBytes} bytes`, {
        code: 'payload_too_large',
      });
    else jsonRpcError(res, 400, A2A_ERROR_CODE.PARSE_ERROR, 'Parse error: the body must be JSON');
  });
  return { router };
}

/** A v0.3 peer: an A2A-Version in [0.3, 1.0), or none (the protocol's rule for a request without one). */
function isLegacyRequest(req: Request): boolean {
  const version = (req.get('a2a-version') ?? A2A_LEGACY_PROTOCOL_VERSION).trim() || A2A_LEGACY_PROTOCOL_VERSION;
  const [major, minor] = version.split('.').map(Number);
  return major === 0 && (minor ?? 0) >= 3;
}

function callerOf(context: ServerCallContext): Caller {
  const user = context.user;
  // The endpoint resolves the caller before the transport sees a request: a handler without one is a bug.
  if (!(user instanceof Caller)) throw new Error('A2A: no caller');
  return user;
}

function requireMessage(params: SendMessageRequest): Message {
  if (!params.message) throw new RequestMalformedError('params.message is required');
  return params.message;
}

function statusUpdate(taskId: string, run: RunView): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: {
        taskId,
        contextId: run.threadId,
        status: { state: taskStateOf(run), message: statusMessageOf(taskId, run), timestamp: run.updatedAt },
        metadata: metadataOf(run),
      },
    },
  };
}

/** The card of one agent: what it is, where it answers, how to authenticate. */
function cardOf(agent: AgentView, url: string, version: string): AgentCard {
  const modes = ['text/plain', 'application/json'];
  return {
    name: agent.name,
    description: agent.description || agent.name,
    supportedInterfaces: duplicateInterfacesForLegacy(
      [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
      ['JSONRPC'],
    ),
    provider: undefined,
    version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      apiKey: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { description: 'a workspace API key: Authorization: Bearer <key>', scheme: 'Bearer', bearerFormat: '' },
        },
      },
    },
    securityRequirements: [{ schemes: { apiKey: { list: [] } } }],
    defaultInputModes: modes,
    defaultOutputModes: modes,
    skills: [
      {
        id: agent.id,
        name: agent.name,
        description: agent.description || agent.name,
        tags: [],
        examples: [],
        inputModes: modes,
        outputModes: modes,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/**
 * A service error as the A2A error the binding answers: `not_found` is "task not found", bad input
 * "invalid params", other refusals (a key without `write`, a budget spent, a conflict) a JSON-RPC
 * server error (-32000) whose `data` names the service's code, as the other surfaces do.
 */
function a2aErrorOf(problem: OperationProblem): A2AError {
  if (problem.code === 'not_found') return new TaskNotFoundError(problem.message);
  if (problem.code === 'invalid_argument') return new ServiceError(problem, A2A_ERROR_CODE.INVALID_PARAMS);
  return new ServiceError(problem, problem.code === 'internal' ? A2A_ERROR_CODE.INTERNAL_ERROR : -32000);
}

/**
 * A refusal of the service in the JSON-RPC binding. The SDK's transport serializes a JSON-RPC error
 * class with its code and its `toErrorInfo()` as `data`: this one's ErrorInfo carries the service's
 * error code as `reason` (upper case) and `metadata.code`.
 */
class ServiceError extends JsonRpcUnsupportedOperationError {
  constructor(
    private readonly problem: OperationProblem,
    code: number,
  ) {
    super({ message: problem.message, envelopeCode: code });
  }
  override toErrorInfo() {
    const details = this.problem.details ? { details: JSON.stringify(this.problem.details) } : {};
    return {
      '@type': ERROR_INFO_TYPE,
      reason: this.problem.code.toUpperCase(),
      domain: REALM,
      metadata: { code: this.problem.code, ...details },
    } as unknown as ReturnType<A2AError['toErrorInfo']>;
  }
}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isOperationProblem(error) ? a2aErrorOf(error) : error;
  }
}

async function* guardedStream<T>(stream: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* stream;
  } catch (error) {
    throw isOperationProblem(error) ? a2aErrorOf(error) : error;
  }
}

function jsonRpcError(res: Response, status: number, code: number, message: string, data?: Record<string, unknown>) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null });
}

/** Before the JSON-RPC transport: the service's status (401 with a Bearer challenge) and a JSON-RPC error naming its code. */
function answerProblem(res: Response, error: unknown, logger: Logger) {
  if (!isOperationProblem(error)) {
    logger.error({ err: error }, 'A2A endpoint failed');
    jsonRpcError(res, 500, A2A_ERROR_CODE.INTERNAL_ERROR, 'internal error', { code: 'internal' });
    return;
  }
  const status = statusForCode(error.code);
  if (status === 401) res.setHeader('WWW-Authenticate', `Bearer realm="${REALM}"`);
  jsonRpcError(res, status, status >= 500 ? A2A_ERROR_CODE.INTERNAL_ERROR : -32000, error.message, {
    code: error.code,
    ...(error.details ? { details: error.details } : {}),
  });
}
