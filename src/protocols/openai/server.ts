// OpenAI-compatible endpoints under /openai/v1: the Responses API, Chat Completions and the model list,
// over the workspace's agents and runs (docs/protocols/openai.md). A model is an agent; a response is
// a run; `previous_response_id` continues that run's thread, or — with `function_call_output` items —
// answers the client tool calls the run waits for. Everything goes through GraphQL operations
// (graphql.ts), so a run started here is the same run everywhere: listed, subscribable, traced, audited.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { randomUUID } from 'node:crypto';
import type { RequestCredentials } from '../../graphql/context.js';
import type { Logger } from '../../lib/logger.js';
import { BadRequest, isBadRequest, openAIErrorBody, sendOpenAIError } from './errors.js';
import {
  OpenAiAgentDocument,
  OpenAiAgentInstructionsDocument,
  OpenAiAgentsDocument,
  OpenAiAgentsNamedDocument,
  OpenAiRunItemsDocument,
  ProtocolCancelRunDocument,
  ProtocolResumeRunDocument,
  ProtocolRunDocument,
  ProtocolRunItemEventsDocument,
  ProtocolStartRunDocument,
  type OpenAiAgentFieldsFragment,
  type OpenAiAgentPageFragment,
} from '../../generated/protocol-documents.js';
import {
  isOperationProblem,
  operationRunner,
  requestCredentials,
  type EnvelopedGraphQL,
  type OperationRunner,
} from '../operation-runner.js';
import { ResponseEventSequencer, responseObject, SETTLED, type ItemView, type RunView, type StreamEvent } from './responses.js';
import { chatCompletion, chatInput, ChatStreamer, parseCallId } from './chat.js';
import { parseResponsesRequest, type ResponsesRequest } from './requests.js';
import { openAIOpenApiDocument } from './openapi.js';

export interface OpenAIEndpointOptions {
  logger: Logger;
  maxBodyBytes: number;
}

/** The `wait` of a run read while waiting for it to settle: under the GraphQL execution deadline's default. */
const WAIT_SECONDS = 20;
/** Agents read at most (pages of 100) to find one by name or to list the models. */
const MAX_AGENT_PAGES = 10;

type AgentView = OpenAiAgentFieldsFragment;

export function createOpenAIEndpoint(yoga: EnvelopedGraphQL, options: OpenAIEndpointOptions): { router: Router } {
  const ops: OperationRunner = operationRunner(yoga, 'OpenAI adapter');

  const credentialsOf = (req: Request, res: Response): RequestCredentials => {
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    return { ...requestCredentials(req), signal: gone.signal };
  };

  async function listAgents(credentials: RequestCredentials, q?: string): Promise<AgentView[]> {
    const agents: AgentView[] = [];
    let after: string | null = null;
    for (let page = 0; page < MAX_AGENT_PAGES; page++) {
      const { agents: found }: { agents: OpenAiAgentPageFragment } =
        q === undefined
          ? await ops.execute(credentials, OpenAiAgentsDocument, { after })
          : await ops.execute(credentials, OpenAiAgentsNamedDocument, { q, after });
      agents.push(...found.nodes);
      if (!found.pageInfo.hasNextPage) break;
      after = found.pageInfo.endCursor;
    }
    return agents;
  }

  /** `model`: an agent's id, or its name (the oldest agent of that name when several share it). */
  async function resolveAgent(credentials: RequestCredentials, model: string): Promise<AgentView> {
    if (/^agt_[A-Za-z0-9]+$/.test(model)) {
      try {
        const { agent } = await ops.execute(credentials, OpenAiAgentDocument, { id: model });
        if (!agent.archivedAt) return agent;
      } catch (error) {
        if (isOperationProblem(error) && error.code === 'invalid_argument') throw new BadRequest(error.message, 'model');
        if (!isOperationProblem(error) || error.code !== 'not_found') throw error;
      }
    } else {
      const found = await listAgents(credentials, model).catch((error: unknown) => {
        // The input rules refuse some text (NUL, lone surrogates): named as the caller sent it.
        throw isOperationProblem(error) && error.code === 'invalid_argument' ? new BadRequest(error.message, 'model') : error;
      });
      const named = found.filter((agent) => agent.name === model).sort((a, b) => (a.id < b.id ? -1 : 1));
      if (named.length) return named[0]!;
    }
    throw new BadRequest(`The model ${JSON.stringify(model.slice(0, 200))} does not exist`, 'model', 'model_not_found', 404);
  }

  async function readRun(credentials: RequestCredentials, id: string, param: string | null, wait?: number): Promise<RunView> {
    try {
      return (await ops.execute(credentials, ProtocolRunDocument, { id, ...(wait ? { wait } : {}) })).run;
    } catch (error) {
      if (isOperationProblem(error) && error.code === 'not_found')
        throw new BadRequest(`No response found with id ${JSON.stringify(id.slice(0, 200))}`, param, 'not_found', 404);
      if (isOperationProblem(error) && error.code === 'invalid_argument') throw new BadRequest(error.message, param);
      throw error;
    }
  }

  async function readItems(credentials: RequestCredentials, runId: string): Promise<ItemView[]> {
    const items: ItemView[] = [];
    for (;;) {
      const page = (await ops.execute(credentials, OpenAiRunItemsDocument, { runId, after: items.at(-1)?.ordinal ?? 0 })).runItems.items;
      items.push(...page);
      if (page.length < 500) return items;
    }
  }

  /** Waits (in bounded reads) until the run is sealed or waiting; null when the client went away. */
  async function settle(credentials: RequestCredentials, run: RunView): Promise<RunView | null> {
    while (!SETTLED.has(run.status)) {
      if (credentials.signal?.aborted) return null;
      run = await readRun(credentials, run.id, null, WAIT_SECONDS);
    }
    return run;
  }

  /** The agent's own instructions with the request's added after them (a run option `overrides.instructions`). */
  async function instructionOptions(credentials: RequestCredentials, agentId: string, extra: string | null) {
    if (!extra) return {};
    const { agent } = await ops.execute(credentials, OpenAiAgentInstructionsDocument, { id: agentId });
    const own = agent.defaultRevision?.config.instructions ?? '';
    return { options: { overrides: { instructions: own ? `${own}\n\n${extra}` : extra } } };
  }

  async function startRun(
    credentials: RequestCredentials,
    agentId: string,
    text: string,
    threadId: string | null,
    instructions: string | null,
  ) {
    const input = {
      agentId,
      input: { content: [{ type: 'text', text }] },
      ...(threadId ? { threadId } : {}),
      ...(await instructionOptions(credentials, agentId, instructions)),
    };
    return (await ops.execute(credentials, ProtocolStartRunDocument, { input })).startRun.run;
  }

  async function resume(
    credentials: RequestCredentials,
    waiting: RunView,
    answers: Map<string, string>,
    text: string | null,
    param: string,
  ) {
    if (waiting.status !== 'waiting' || waiting.resumedById) {
      throw new BadRequest(`Response ${waiting.id} is not waiting for function call outputs`, param);
    }
    if (waiting.pending.approvals.length) {
      throw new BadRequest(
        `Response ${waiting.id} waits for an approval, which this endpoint cannot give (use POST /api/v1/runs/{id}/resume)`,
        param,
        'approval_required',
      );
    }
    const calls: Record<string, unknown> = {};
    for (const [callId, output] of answers) calls[callId] = { status: 'returned', value: output };
    const data = await ops.execute(credentials, ProtocolResumeRunDocument, {
      runId: waiting.id,
      input: { calls, ...(text ? { input: { content: [{ type: 'text', text }] } } : {}) },
      // Each request is one answer: a retried request is a new one of the client's (and is refused
      // once the run has been resumed).
      idempotencyKey: `openai-${randomUUID()}`,
    });
    return data.resumeRun.run;
  }

  /** Starts (or resumes) the run a Responses request asks for. */
  async function createResponse(credentials: RequestCredentials, request: ResponsesRequest): Promise<RunView> {
    const agent = await resolveAgent(credentials, request.model);
    const previous = request.previousResponseId ? await readRun(credentials, request.previousResponseId, 'previous_response_id') : null;
    if (request.outputs.size) {
      if (!previous)
        throw new BadRequest('function_call_output items answer a response: give its id as previous_response_id', 'previous_response_id');
      return resume(credentials, previous, request.outputs, request.text, 'previous_response_id');
    }
    if (!request.text) throw new BadRequest('input has no user message', 'input');
    if (previous && previous.status === 'waiting' && !previous.resumedById && previous.pending.calls.length) {
      const ids = previous.pending.calls.map((call) => call.toolCallId);
      throw new BadRequest(`Response ${previous.id} waits for function_call_output items for call_id ${ids.join(', ')}`, 'input');
    }
    return startRun(credentials, agent.id, request.text, previous?.threadId ?? null, request.instructions);
  }

  /** Streams a response's events after `startingAfter` until the run settles. */
  async function streamResponse(
    credentials: RequestCredentials,
    res: Response,
    run: RunView,
    startingAfter: number,
    background: boolean | null,
  ) {
    openEventStream(res);
    const signal = credentials.signal!;
    const send = (events: StreamEvent[]) => {
      for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    };
    const sequencer = new ResponseEventSequencer(startingAfter);
    send(sequencer.opening(responseObject(run, [], { background })));
    try {
      for await (const { runItemEvents: event } of ops.subscribe(credentials, ProtocolRunItemEventsDocument, { runId: run.id }, signal)) {
        send(event.__typename === 'RunItemTextDelta' ? sequencer.append(event) : sequencer.snapshot(event));
      }
      const settled = await settle(credentials, run);
      if (!settled) return;
      // The stored items close anything the live feed left open (their sequence numbers are the same).
      const items = await readItems(credentials, run.id);
      for (const item of items) send(sequencer.snapshot(item));
      send(sequencer.terminal(responseObject(settled, items, { background })));
    } catch (error) {
      if (signal.aborted) return;
      options.logger.warn({ err: error, runId: run.id }, 'OpenAI adapter: a response stream failed');
      const problem = isOperationProblem(error)
        ? { code: error.code, message: error.message }
        : { code: 'internal', message: 'internal error' };
      res.write(`event: error\ndata: ${JSON.stringify({ ...openAIErrorBody(problem).body.error, type: 'error' })}\n\n`);
    }
    res.end();
  }

  const router = express.Router();
  // The contract of these routes, public like the REST surfaces' documents.
  const contract = openAIOpenApiDocument();
  router.get('/openapi.json', (_req, res) => {
    res.json(contract);
  });
  router.use(express.json({ limit: options.maxBodyBytes, strict: true, type: () => true }));

  const handle =
    (fn: (req: Request, res: Response, credentials: RequestCredentials) => Promise<void>) => async (req: Request, res: Response) => {
      const credentials = credentialsOf(req, res);
      try {
        await fn(req, res, credentials);
      } catch (error) {
        if (res.headersSent) {
          if (!res.writableEnded) res.end();
          return;
        }
        if (isBadRequest(error))
          return sendOpenAIError(res, { code: error.code, message: error.message, param: error.param, status: error.status });
        if (isOperationProblem(error)) {
          const field = typeof error.details?.field === 'string' ? error.details.field : null;
          return sendOpenAIError(res, { code: error.code, message: error.message, param: field });
        }
        options.logger.error({ err: error }, 'OpenAI adapter failed');
        sendOpenAIError(res, { code: 'internal', message: 'internal error' });
      }
    };

  router.get(
    '/models',
    handle(async (_req, res, credentials) => {
      const agents = await listAgents(credentials);
      res.json({ object: 'list', data: agents.map(modelObject) });
    }),
  );
  router.get(
    '/models/:model',
    handle(async (req, res, credentials) => {
      res.json(modelObject(await resolveAgent(credentials, String(req.params.model))));
    }),
  );

  router.post(
    '/responses',
    handle(async (req, res, credentials) => {
      const request = parseResponsesRequest(req.body);
      const run = await createResponse(credentials, request);
      if (request.background && !request.stream) {
        res.json(responseObject(run, [], { background: true }));
        return;
      }
      if (request.stream) return streamResponse(credentials, res, run, -1, request.background);
      const settled = await settle(credentials, run);
      if (!settled) return;
      res.json(responseObject(settled, await readItems(credentials, run.id), { background: false }));
    }),
  );
  router.get(
    '/responses/:id',
    handle(async (req, res, credentials) => {
      const stream = queryFlag(req, 'stream');
      const startingAfter = queryInteger(req, 'starting_after');
      if (startingAfter !== null && !stream) throw new BadRequest('starting_after is only for stream=true', 'starting_after');
      const run = await readRun(credentials, String(req.params.id), 'response_id');
      if (stream) return streamResponse(credentials, res, run, startingAfter ?? -1, null);
      res.json(responseObject(run, await readItems(credentials, run.id)));
    }),
  );
  router.post(
    '/responses/:id/cancel',
    handle(async (req, res, credentials) => {
      const id = String(req.params.id);
      await readRun(credentials, id, 'response_id');
      const run = (await ops.execute(credentials, ProtocolCancelRunDocument, { id })).cancelRun.run;
      res.json(responseObject(run, await readItems(credentials, run.id)));
    }),
  );

  router.post(
    '/chat/completions',
    handle(async (req, res, credentials) => {
      const request = chatInput(req.body);
      const agent = await resolveAgent(credentials, request.model);
      let run: RunView;
      if (request.toolOutputs.size) {
        // The tool call ids this endpoint gave name the waiting run (parseCallId), so a client that
        // sends the conversation back with its tool results resumes that run.
        const runIds = new Set([...request.toolOutputs.keys()].map((id) => parseCallId(id)?.runId ?? ''));
        if (runIds.size !== 1 || runIds.has(''))
          throw new BadRequest('tool messages must answer the tool_calls of one earlier answer of this endpoint', 'messages');
        const runId = [...runIds][0]!;
        const waiting = await readRun(credentials, runId, 'messages');
        const answers = new Map([...request.toolOutputs].map(([id, output]) => [parseCallId(id)!.toolCallId, output]));
        run = await resume(credentials, waiting, answers, request.followUp, 'messages');
      } else {
        run = await startRun(credentials, agent.id, request.text, null, request.instructions);
      }
      if (request.stream) {
        openEventStream(res);
        const streamer = new ChatStreamer(run, request.includeUsage);
        const write = (chunks: unknown[]) => {
          for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        };
        try {
          write(streamer.opening());
          for await (const { runItemEvents: event } of ops.subscribe(
            credentials,
            ProtocolRunItemEventsDocument,
            { runId: run.id },
            credentials.signal!,
          )) {
            write(event.__typename === 'RunItemTextDelta' ? streamer.append(event) : streamer.snapshot(event));
          }
          const settled = await settle(credentials, run);
          if (!settled) return;
          for (const item of await readItems(credentials, run.id)) write(streamer.snapshot(item));
          if (settled.status === 'failed' || settled.status === 'cancelled') {
            const { body } = openAIErrorBody({
              code: settled.failure?.code ?? settled.status,
              message: settled.failure?.message ?? `the run was ${settled.status}`,
              status: 500,
            });
            write([body]);
          } else write(streamer.closing(settled));
          res.write('data: [DONE]\n\n');
        } catch (error) {
          if (!credentials.signal!.aborted) {
            options.logger.warn({ err: error, runId: run.id }, 'OpenAI adapter: a chat completion stream failed');
            const problem = isOperationProblem(error)
              ? { code: error.code, message: error.message }
              : { code: 'internal', message: 'internal error' };
            write([openAIErrorBody(problem).body]);
          }
        }
        res.end();
        return;
      }
      const settled = await settle(credentials, run);
      if (!settled) return;
      if (settled.status === 'failed' || settled.status === 'cancelled') {
        // The run could not answer: the caller sees why, as a server-side failure of the completion.
        return sendOpenAIError(res, {
          code: settled.failure?.code ?? settled.status,
          message: settled.failure?.message ?? `the run was ${settled.status}`,
          status: 500,
        });
      }
      res.json(chatCompletion(settled, await readItems(credentials, run.id)));
    }),
  );

  router.use((req: Request, res: Response) =>
    sendOpenAIError(res, { code: 'not_found', message: `Unknown request URL: ${req.method} ${req.originalUrl.slice(0, 200)}` }),
  );
  // A body that is not JSON, or too large: OpenAI's error shape too.
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: number }).status;
    if (status === 413)
      sendOpenAIError(res, { code: 'payload_too_large', message: `the request body is larger than ${options.maxBodyBytes} bytes` });
    else sendOpenAIError(res, { code: 'invalid_argument', message: 'We could not parse the JSON body of your request.' });
  });
  return { router };
}

function modelObject(agent: AgentView) {
  return {
    id: agent.id,
    object: 'model',
    created: Math.floor(Date.parse(agent.createdAt) / 1000),
    owned_by: 'workspace',
    // Beyond OpenAI's model object: what an agent picker shows (clients may also name the agent as the model).
    name: agent.name,
    description: agent.description,
  };
}

function openEventStream(res: Response) {
  res.status(200).set({
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
}

function querySingle(req: Request, name: string): string | null {
  const value = req.query[name];
  if (value === undefined) return null;
  if (typeof value !== 'string') throw new BadRequest(`${name} may appear once`, name);
  return value;
}

function queryFlag(req: Request, name: string): boolean {
  const value = querySingle(req, name);
  if (value === null) return false;
  if (value !== 'true' && value !== 'false') throw new BadRequest(`${name} must be true or false`, name);
  return value === 'true';
}

function queryInteger(req: Request, name: string): number | null {
  const value = querySingle(req, name);
  if (value === null) return null;
  if (!/^-?\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) throw new BadRequest(`${name} must be an integer`, name);
  return Number(value);
}
