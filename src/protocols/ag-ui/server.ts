// AG-UI at /ag-ui/{agent_id}: a front-end POSTs a RunAgentInput and reads the run as an SSE stream of
// AG-UI events. Like the REST shim and the MCP server it executes GraphQL documents
// (src/protocols/operations/) through Yoga's enveloped pipeline with the caller's own credentials, so AG-UI
// callers get the same auth, permissions, tenancy, audit and error codes as every other surface; it
// never reaches a service or the database itself. Mappings and support: docs/protocols/ag-ui.md.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';

import { EventType, PROTOCOL_VERSION, type BaseEvent, type Message, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import type { RequestCredentials } from '../../graphql/context.js';
import { statusForCode } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import {
  AgUiAgentDocument,
  ProtocolCreateThreadDocument,
  AgUiThreadByKeyDocument,
  ProtocolCancelRunDocument,
  ProtocolResumeRunDocument,
  ProtocolRunDocument,
  ProtocolRunItemEventsDocument,
  ProtocolStartRunDocument,
  ProtocolThreadDocument,
  type AgUiAgentQuery,
  type ProtocolRunViewFragment as RunView,
  type ProtocolThreadRefFragment,
} from '../../generated/protocol-documents.js';
import { OperationProblem, operationRunner, requestCredentials, type EnvelopedGraphQL } from '../operation-runner.js';
import { clientToolsOf, EventTranslator, frontEndCalls, interruptsOf } from './events.js';

export interface AgUiEndpointOptions {
  logger: Logger;
  maxBodyBytes: number;
}

/** The agent as `AgUiAgent` reads it: its default revision's client tools are kept beside the front-end's. */
type AgentView = AgUiAgentQuery['agent'];

/** The `wait` of a run read while confirming how it settled: under the GraphQL execution deadline's default. */
const WAIT_SECONDS = 20;
const SETTLED = new Set(['completed', 'failed', 'cancelled', 'waiting']);
/** The label that keeps a front-end's own thread id on the service's thread it stands for. */
export const THREAD_KEY_LABEL = 'ag-ui-thread';
/** A label value's longest (the thread key is the front-end's threadId). */
const MAX_THREAD_KEY = 200;
/** The service's own thread ids: one of these must name a thread of the workspace. */
const SERVICE_THREAD_ID = /^thr_/;

export function createAgUiEndpoint(yoga: EnvelopedGraphQL, options: AgUiEndpointOptions): { router: Router } {
  const operations = operationRunner(yoga, 'AG-UI');
  const execute = operations.execute;

  async function resolveThread(credentials: RequestCredentials, threadId: string): Promise<ProtocolThreadRefFragment> {
    if (SERVICE_THREAD_ID.test(threadId)) return (await execute(credentials, ProtocolThreadDocument, { id: threadId })).thread;
    if (threadId.length > MAX_THREAD_KEY)
      throw new OperationProblem('invalid_argument', `threadId is longer than ${MAX_THREAD_KEY} characters`, { field: 'threadId' });
    const found = (await execute(credentials, AgUiThreadByKeyDocument, { label: [`${THREAD_KEY_LABEL}:${threadId}`] })).threads.nodes;
    if (found[0]) return found[0];
    return (await execute(credentials, ProtocolCreateThreadDocument, { input: { labels: { [THREAD_KEY_LABEL]: threadId } } })).createThread
      .thread;
  }

  /**
   * The run this request stands for: the waiting run resumed with the front-end's tool results and
   * resume entries, or a new run with the newest user message.
   */
  async function startOrResume(
    credentials: RequestCredentials,
    agent: AgentView,
    input: RunAgentInput,
    threadId: string,
  ): Promise<RunView> {
    const thread = await resolveThread(credentials, threadId);
    const last = thread.lastRunId ? (await execute(credentials, ProtocolRunDocument, { id: thread.lastRunId })).run : null;
    if (last && last.status === 'waiting' && !last.resumedById) {
      const answers = answersFor(last, input);
      // A new turn while the run waits for its interrupts would queue behind it and never stream:
      // the front-end answers them first (HttpAgent insists on it too).
      if (!answers)
        throw new OperationProblem(
          'conflict',
          "the thread's run waits for answers: send tool messages for its pending tool calls and resume entries for its interrupts",
          { run_id: last.id, pending: [...last.pending.approvals, ...last.pending.calls].map((call) => call.toolCallId) },
        );
      const data = await execute(credentials, ProtocolResumeRunDocument, {
        runId: last.id,
        input: answers,
        // Each AG-UI run is one answer: its runId keys the resume, so a retried request resumes once.
        idempotencyKey: `ag-ui-${input.runId}`.slice(0, 200),
      });
      return data.resumeRun.run;
    }
    const text = lastUserText(input.messages);
    if (text === null)
      throw new OperationProblem(
        'invalid_argument',
        'the last message must be a user message with text (or tool results for the waiting run)',
        {
          field: 'messages',
        },
      );
    const options = input.tools.length ? { overrides: { client_tools: mergedTools(agent, input) } } : undefined;
    const data = await execute(credentials, ProtocolStartRunDocument, {
      input: { agentId: agent.id, threadId: thread.id, input: { content: [{ type: 'text', text }] }, ...(options ? { options } : {}) },
    });
    return data.startRun.run;
  }

  /** Follows the run's items, writing each as AG-UI events, until the run is sealed or waiting. */
  async function follow(
    credentials: RequestCredentials,
    runId: string,
    signal: AbortSignal,
    translator: EventTranslator,
    write: (event: BaseEvent) => void,
  ) {
    for await (const data of operations.subscribe(credentials, ProtocolRunItemEventsDocument, { runId }, signal)) {
      for (const event of translator.translate(data.runItemEvents)) write(event);
    }
    for (const event of translator.close()) write(event);
    // The stream completes when the run is sealed or waiting; the read confirms it (and waits, should
    // the stream have ended early).
    while (!signal.aborted) {
      const { run: view } = await execute({ ...credentials, signal }, ProtocolRunDocument, { id: runId, wait: WAIT_SECONDS });
      if (SETTLED.has(view.status)) return view;
    }
    return null;
  }

  const router = express.Router();
  router.use(express.json({ limit: options.maxBodyBytes, strict: true, type: () => true }));
  router.post('/:agentId', async (req: Request, res: Response) => {
    const credentials = requestCredentials(req);
    const agentId = String(req.params.agentId);
    let run: RunView;
    let input: RunAgentInput;
    try {
      // The agent first: a bad key answers 401, an agent of another workspace 404, before the body is judged.
      const { agent } = await execute(credentials, AgUiAgentDocument, { id: agentId });
      const parsed = RunAgentInputSchema.safeParse(req.body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new OperationProblem('invalid_argument', `invalid RunAgentInput: ${issue.path.join('.') || 'body'}: ${issue.message}`, {
          field: issue.path.join('.') || 'body',
        });
      }
      input = parsed.data as RunAgentInput;
      run = await startOrResume(credentials, agent, input, input.threadId);
    } catch (error) {
      answerError(res, error, options.logger);
      return;
    }

    // From here on the stream has started: errors are RUN_ERROR events.
    const encoder = new EventEncoder({ accept: req.get('accept') ?? undefined });
    const binary = encoder.getContentType() !== 'text/event-stream';
    res.status(200).setHeader('Content-Type', encoder.getContentType());
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    const write = (event: BaseEvent) => {
      const stamped = { ...event, timestamp: Date.now() } as BaseEvent;
      if (binary) res.write(encoder.encodeBinary(stamped));
      else res.write(encoder.encodeSSE(stamped));
    };
    // The front-end closing the stream (HttpAgent's abortRun) cancels the run, as an MCP cancellation does.
    const gone = new AbortController();
    let finished = false;
    res.on('close', () => {
      if (finished) return;
      gone.abort();
      execute(credentials, ProtocolCancelRunDocument, { id: run.id }).catch((error) =>
        options.logger.warn({ err: error, runId: run.id }, 'AG-UI: cancelling the run failed'),
      );
    });
    const ids = { run_id: run.id, thread_id: run.threadId };
    write({
      type: EventType.RUN_STARTED,
      threadId: input.threadId,
      runId: input.runId,
      protocolVersion: PROTOCOL_VERSION,
      metadata: ids,
    } as BaseEvent);
    try {
      const translator = new EventTranslator();
      const settled = await follow(credentials, run.id, gone.signal, translator, write);
      if (!settled) return;
      // A call the run waits on that this stream has not shown (an approved call goes to the client
      // in the successor, which waits for it at once): announced, so the front-end can answer it.
      if (settled.status === 'waiting')
        for (const call of settled.pending.calls) for (const event of translator.pending(call)) write(event);
      if (settled.status === 'failed') {
        const failure = settled.failure ?? { code: 'internal', message: 'the run failed' };
        write({ type: EventType.RUN_ERROR, code: failure.code, message: failure.message, metadata: ids } as BaseEvent);
      } else {
        const interrupts = settled.status === 'waiting' ? interruptsOf(settled) : [];
        const outcome =
          settled.status === 'cancelled'
            ? { type: 'cancelled' }
            : interrupts.length
              ? { type: 'interrupt', interrupts }
              : {
                  type: 'success',
                  ...(settled.status === 'waiting' ? { pendingToolCallIds: frontEndCalls(settled).map((call) => call.toolCallId) } : {}),
                };
        write({
          type: EventType.RUN_FINISHED,
          threadId: input.threadId,
          runId: input.runId,
          ...(settled.status === 'completed' && settled.output != null ? { result: settled.output } : {}),
          outcome,
          metadata: { ...ids, status: settled.status, ...(settled.waitReason ? { wait_reason: settled.waitReason } : {}) },
        } as BaseEvent);
      }
    } catch (error) {
      const problem = error instanceof OperationProblem ? error : null;
      if (!problem) options.logger.error({ err: error, runId: run.id }, 'AG-UI stream failed');
      if (!gone.signal.aborted)
        write({
          type: EventType.RUN_ERROR,
          code: problem?.code ?? 'internal',
          message: problem?.message ?? 'internal error',
          metadata: ids,
        } as BaseEvent);
    } finally {
      finished = true;
      res.end();
    }
  });
  // A body that is not JSON, or too large: the same error shape as the endpoint's other refusals.
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: number }).status;
    if (status === 413)
      sendProblem(res, new OperationProblem('payload_too_large', `the request body is larger than ${options.maxBodyBytes} bytes`), 413);
    else sendProblem(res, new OperationProblem('invalid_argument', 'the body must be a JSON RunAgentInput', { field: 'body' }));
  });
  return { router };
}

/**
 * What the front-end answers of a waiting run: `tool` messages for its pending calls (by toolCallId)
 * and `resume` entries for its interrupts (approvals, questions). A newest message from the user goes
 * with the answers as the successor's input; front-end calls it leaves unanswered are answered with an
 * error (the user moved on, as AG-UI lets an application do). Null when nothing is answered.
 */
export function answersFor(
  run: RunView,
  input: RunAgentInput,
): {
  calls?: Record<string, unknown>;
  approvals?: Record<string, unknown>;
  input?: { content: Array<{ type: string; text: string }> };
} | null {
  const calls: Record<string, unknown> = {};
  const approvals: Record<string, unknown> = {};
  const pendingCalls = new Set(run.pending.calls.map((call) => call.toolCallId));
  const pendingApprovals = new Set(run.pending.approvals.map((call) => call.toolCallId));
  for (const message of input.messages) {
    if (message.role !== 'tool' || !pendingCalls.has(message.toolCallId)) continue;
    const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    calls[message.toolCallId] = message.error
      ? { status: 'error', value: message.error }
      : { status: 'returned', value: parsedOrText(content) };
  }
  for (const entry of input.resume ?? []) {
    if (pendingApprovals.has(entry.interruptId)) {
      const denied =
        entry.status === 'cancelled' || entry.payload === false || (entry.payload as { action?: unknown } | null)?.action === 'deny';
      approvals[entry.interruptId] = { action: denied ? 'deny' : 'approve' };
    } else if (pendingCalls.has(entry.interruptId)) {
      const payload = entry.payload as unknown;
      calls[entry.interruptId] =
        entry.status === 'cancelled'
          ? { status: 'error', value: 'the user did not answer' }
          : {
              status: 'returned',
              value: typeof payload === 'string' ? payload : ((payload as { answer?: unknown } | null)?.answer ?? payload ?? ''),
            };
    } else {
      // An answer to an interrupt the run does not have: the resume operation names it (details.unknown).
      calls[entry.interruptId] = { status: 'returned', value: entry.payload ?? null };
    }
  }
  const text = lastUserText(input.messages);
  if (text !== null)
    for (const call of frontEndCalls(run))
      calls[call.toolCallId] ??= { status: 'error', value: 'The user did not run this tool: they sent a new message instead.' };
  const answered = { ...(Object.keys(calls).length ? { calls } : {}), ...(Object.keys(approvals).length ? { approvals } : {}) };
  if (!Object.keys(answered).length) return null;
  return text === null ? answered : { ...answered, input: { content: [{ type: 'text', text }] } };
}

/** A tool message's content: JSON when it is JSON (what front-end tools usually return), else the text. */
function parsedOrText(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

/** The newest message's text when it is a user message (AG-UI clients send the whole history; the thread keeps it). */
function lastUserText(messages: Message[]): string | null {
  const last = messages.at(-1);
  if (!last || last.role !== 'user') return null;
  const text =
    typeof last.content === 'string' ? last.content : last.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return text.trim() === '' ? null : text;
}

/** The agent's own client tools, with the front-end's tools added (a front-end tool of the same name wins). */
function mergedTools(agent: AgentView, input: RunAgentInput) {
  const frontEnd = clientToolsOf(input.tools);
  const names = new Set(frontEnd.map((tool) => tool.name));
  const own = (agent.defaultRevision?.config.clientTools ?? [])
    .filter((tool) => !names.has(tool.name))
    .map((tool) => ({
      name: tool.name,
      ...(tool.description != null ? { description: tool.description } : {}),
      ...(tool.instruction != null ? { instruction: tool.instruction } : {}),
      ...(tool.metadata != null ? { metadata: tool.metadata } : {}),
      ...(tool.parametersJsonSchema != null ? { parameters_json_schema: tool.parametersJsonSchema } : {}),
      ...(tool.permission != null ? { permission: tool.permission } : {}),
    }));
  return [...own, ...frontEnd];
}

function answerError(res: Response, error: unknown, logger: Logger) {
  if (error instanceof OperationProblem) {
    sendProblem(res, error);
    return;
  }
  logger.error({ err: error }, 'AG-UI endpoint failed');
  sendProblem(res, new OperationProblem('internal', 'internal error'));
}

/** Before the stream starts: the HTTP status of the service's code and the REST API's error body. */
function sendProblem(res: Response, problem: OperationProblem, status = statusForCode(problem.code)) {
  if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="workspace-agent-service"');
  res
    .status(status)
    .json({ error: { code: problem.code, message: problem.message, ...(problem.details ? { details: problem.details } : {}) } });
}
