// One attempt of one run: the turn loop. It asks the model (through the AI SDK) with the thread's
// committed history, the agent's instructions and tools, streams what comes back as run items, and
// ends by sealing the run: completed (output), waiting (pending approvals, client calls or a
// question), failed, or cancelled. Nothing here talks GraphQL; callers see the result through the
// run row, run items and events.
import { jsonSchema, streamText, tool, type ModelMessage, type ToolSet } from 'ai';
import { APICallError } from '@ai-sdk/provider';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Run } from '../generated/prisma/client.js';
import { applyOverrides, type RunOptions } from '../agents/config-schema.js';
import { isAppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { Deps } from '../services/deps.js';
import type { CallContext } from '../services/call-context.js';
import { recordMemoryMounts, type PendingEntry, type SealOutcome } from '../services/run-lifecycle.js';
import { RunItemStream, type RunItemState } from './items.js';
import { callSettings, resolveModel } from './models.js';
import { takeSteerEntries } from '../services/inbox.js';
import { memoryTools, recall, resolveMounts } from './memory-tools.js';

export const ASK_USER_TOOL = 'ask_user';

interface ClientTool {
  name: string;
  description?: string;
  instruction?: string;
  parameters_json_schema?: Record<string, unknown>;
  permission?: string;
}

interface AgentConfig {
  model: string;
  model_settings?: Record<string, unknown>;
  instructions?: string;
  client_tools?: ClientTool[];
  user_questions?: boolean;
  output_spec?: {
    name?: string;
    description?: string;
    schema?: Record<string, unknown>;
    variants?: { name?: string; schema?: Record<string, unknown> }[];
  };
  retries?: { output?: number; tools?: number };
  memory_mounts?: { memory_id: string; name?: string; access?: string; recall?: boolean }[];
}

/** How an attempt ends: what the seal records, or another attempt. */
export type Outcome = SealOutcome | { kind: 'retry'; message: string };

export class UsageLimitExceeded extends Error {}

const ajv = new Ajv2020({ strict: false, allErrors: false });

function textOf(message: { content?: { type: string; text?: string }[] } | null | undefined): string {
  return (message?.content ?? [])
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');
}

function buildTools(config: AgentConfig): ToolSet {
  const tools: ToolSet = {};
  for (const client of config.client_tools ?? []) {
    tools[client.name] = tool({
      description: [client.description, client.instruction].filter(Boolean).join('\n\n') || client.name,
      inputSchema: jsonSchema((client.parameters_json_schema ?? { type: 'object', properties: {} }) as never),
    });
  }
  if (config.user_questions) {
    tools[ASK_USER_TOOL] = tool({
      description:
        'Ask the user a question and wait for the answer. Use it when you cannot continue without information only the user has.',
      inputSchema: jsonSchema({
        type: 'object',
        properties: { question: { type: 'string' }, choices: { type: 'array', items: { type: 'string' } } },
        required: ['question'],
      } as never),
    });
  }
  return tools;
}

/** Validates structured output against the output spec (any variant may match). */
function checkOutput(
  spec: NonNullable<AgentConfig['output_spec']>,
  text: string,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  let value: unknown;
  const trimmed = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/```\s*$/, '');
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { ok: false, problem: 'the output is not JSON' };
  }
  const schemas = [spec.schema, ...(spec.variants ?? []).map((variant) => variant.schema)].filter(
    (schema): schema is Record<string, unknown> => Boolean(schema),
  );
  if (schemas.length === 0) return { ok: true, value };
  const problems: string[] = [];
  for (const schema of schemas) {
    const validate = ajv.compile(schema);
    if (validate(value)) return { ok: true, value };
    problems.push(ajv.errorsText(validate.errors));
  }
  return { ok: false, problem: problems.join('; ') };
}

export interface ExecutionContext {
  deps: Deps;
  /** The run's call context (its principal, in its workspace): what the run does through services. */
  call: CallContext;
  run: Run;
  attempt: number;
  signal: AbortSignal;
  items: RunItemStream;
  /** The thread's committed history when the run was claimed (read again when absent). */
  history?: ModelMessage[];
}

// Revisions never change once published: their configurations are kept by id.
const revisionConfigs = new Map<string, Record<string, unknown>>();
const MAX_CACHED_REVISIONS = 2_000;

async function revisionConfig(deps: Deps, revisionId: string): Promise<Record<string, unknown>> {
  const cached = revisionConfigs.get(revisionId);
  if (cached) return cached;
  const revision = await deps.db.agentRevision.findUniqueOrThrow({ where: { id: revisionId }, select: { config: true } });
  if (revisionConfigs.size >= MAX_CACHED_REVISIONS) revisionConfigs.delete(revisionConfigs.keys().next().value!);
  revisionConfigs.set(revisionId, revision.config as Record<string, unknown>);
  return revision.config as Record<string, unknown>;
}

/**
 * The messages this run starts from: the thread's committed history, then what this run brings —
 * its input, or for a resume the answers to what its parent was waiting for.
 */
export function startingMessages(
  run: Run,
  history: ModelMessage[],
  parentPending: { approvals: PendingEntry[]; calls: PendingEntry[] } | null,
): { messages: ModelMessage[]; forwardedCalls: PendingEntry[] } {
  const messages: ModelMessage[] = [...history];
  const forwardedCalls: PendingEntry[] = [];
  if (run.trigger === 'resume' && parentPending) {
    const resume = (run.resume ?? {}) as {
      approvals?: Record<string, { action: string }>;
      calls?: Record<string, { status: string; value?: unknown }>;
    };
    const results: {
      type: 'tool-result';
      toolCallId: string;
      toolName: string;
      output: { type: 'json'; value: never } | { type: 'error-text'; value: string };
    }[] = [];
    for (const approval of parentPending.approvals) {
      const answer = resume.approvals?.[approval.tool_call_id];
      if (answer?.action === 'approve')
        forwardedCalls.push(approval); // approved client tools go to the client now
      else
        results.push({
          type: 'tool-result',
          toolCallId: approval.tool_call_id,
          toolName: approval.tool_name,
          output: { type: 'error-text', value: 'The user denied this tool call.' },
        });
    }
    for (const call of parentPending.calls) {
      const answer = resume.calls?.[call.tool_call_id];
      results.push({
        type: 'tool-result',
        toolCallId: call.tool_call_id,
        toolName: call.tool_name,
        output:
          answer?.status === 'returned'
            ? { type: 'json', value: (answer.value ?? null) as never }
            : { type: 'error-text', value: String((answer?.value as string | undefined) ?? 'the tool call failed') },
      });
    }
    if (results.length) messages.push({ role: 'tool', content: results });
  }
  const text = textOf(run.input as never);
  if (text) messages.push({ role: 'user', content: text });
  return { messages, forwardedCalls };
}

export async function executeAttempt(
  ctx: ExecutionContext,
): Promise<{ outcome: Outcome; newMessages: ModelMessage[]; usage: { requests: number; input_tokens: number; output_tokens: number } }> {
  const { deps, call, run, signal, items } = ctx;
  const options = run.options as RunOptions;
  const config = applyOverrides(await revisionConfig(deps, run.agentRevisionId), options.overrides) as unknown as AgentConfig;
  const history =
    ctx.history ??
    ((await deps.db.thread.findUniqueOrThrow({ where: { id: run.threadId }, select: { messageHistory: true } }))
      .messageHistory as unknown as ModelMessage[]) ??
    [];
  const parent = run.parentRunId ? await deps.db.run.findUnique({ where: { id: run.parentRunId } }) : null;
  const { messages: start, forwardedCalls } = startingMessages(run, history, parent ? (parent.pending as never) : null);
  const usage = { requests: 0, input_tokens: 0, output_tokens: 0 };
  const newMessages: ModelMessage[] = start.slice(history.length);

  const inputText = textOf(run.input as never);
  if (ctx.attempt === 1 && inputText)
    items.open('user_message', { role: 'user', content: (run.input as { content: unknown }).content }, 'completed');
  if (forwardedCalls.length) {
    for (const call of forwardedCalls)
      items.open('client_call', { tool_call_id: call.tool_call_id, tool_name: call.tool_name, arguments: call.arguments }, 'completed');
    return { outcome: { kind: 'waiting', reason: 'client_tool', approvals: [], calls: forwardedCalls }, newMessages, usage };
  }

  // Memory mounts: resolved once per run, recalled into the context, offered as server-side tools.
  const mounts = await resolveMounts(deps, run, config.memory_mounts ?? []);
  if (mounts.length && ctx.attempt === 1) {
    await recordMemoryMounts(deps.db, run.id, mounts);
  }
  const recalled = await recall(call, mounts, inputText);
  for (const result of recalled) {
    items.open('memory_recall', { memory_id: result.mount.memory_id, memory: result.mount.name, records: result.records }, 'completed');
  }
  const memory = memoryTools(call, run, mounts);
  const tools = { ...buildTools(config), ...memory.tools };
  const clientTools = new Map((config.client_tools ?? []).map((client) => [client.name, client]));
  const maxRequests = options.max_usage?.requests ?? Number.POSITIVE_INFINITY;
  let outputRetries = config.retries?.output ?? 0;
  let toolRetries = config.retries?.tools ?? 0;
  const messages = [...start];

  for (;;) {
    if (usage.requests >= maxRequests)
      return {
        outcome: { kind: 'failed', code: 'usage_limit_exceeded', message: `the run reached its limit of ${maxRequests} model requests` },
        newMessages,
        usage,
      };
    if (usage.requests > 0) {
      // Entries delivered with `steer` join the conversation at this model request.
      for (const steered of await takeSteerEntries(call, run, usage.requests)) {
        items.open('user_message', { role: 'user', content: steered.content, steered: true }, 'completed');
        const message: ModelMessage = { role: 'user', content: textOf(steered) };
        messages.push(message);
        newMessages.push(message);
      }
    }
    const model = await resolveModel(deps, run.workspaceId, config.model, config.model_settings ?? {});
    usage.requests += 1;
    const recallText = recalled
      .filter((r) => r.records.length)
      .map(
        (r) =>
          `Records from the memory "${r.mount.name}" that may help:\n${r.records.map((rec) => `- [${rec.id}] ${rec.text}`).join('\n')}`,
      )
      .join('\n\n');
    const system = [
      config.instructions,
      recallText,
      config.output_spec
        ? `Answer with JSON only${config.output_spec.schema ? `, matching this JSON Schema: ${JSON.stringify(config.output_spec.schema)}` : ''}.`
        : '',
    ]
      .filter(Boolean)
      .join('\n\n');
    // Errors arrive as stream parts and are handled below (onError only silences the SDK's own logging).
    const result = streamText({
      model: model.model,
      system: system || undefined,
      messages,
      tools,
      abortSignal: signal,
      maxRetries: 0,
      onError: () => undefined,
      ...callSettings(model.settings),
    });
    let text = '';
    let textItem: RunItemState | null = null;
    let reasoningItem: RunItemState | null = null;
    const toolCalls: { toolCallId: string; toolName: string; input: unknown; invalid?: string }[] = [];
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'text-delta':
          textItem ??= items.open('text_message', { role: 'assistant', text: '' });
          text += part.text;
          items.append(textItem, 'text', part.text);
          break;
        case 'reasoning-delta':
          reasoningItem ??= items.open('reasoning', { text: '' });
          items.append(reasoningItem, 'text', part.text);
          break;
        case 'tool-call':
          toolCalls.push({
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
            ...((part as { invalid?: boolean }).invalid
              ? { invalid: String((part as { error?: unknown }).error ?? 'invalid arguments') }
              : {}),
          });
          break;
        case 'tool-error':
          toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, invalid: String(part.error) });
          break;
        case 'finish-step':
          usage.input_tokens += part.usage.inputTokens ?? 0;
          usage.output_tokens += part.usage.outputTokens ?? 0;
          break;
        case 'abort':
          throw signal.reason ?? new Error('aborted');
        case 'error':
          throw part.error;
        default:
          break;
      }
    }
    if (textItem) items.complete(textItem);
    if (reasoningItem) items.complete(reasoningItem);
    const assistantContent: (
      { type: 'text'; text: string } | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
    )[] = [];
    if (text) assistantContent.push({ type: 'text', text });
    for (const call of toolCalls)
      assistantContent.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input ?? {} });
    const assistant: ModelMessage = {
      role: 'assistant',
      content: assistantContent.length ? assistantContent : [{ type: 'text', text: '' }],
    } as ModelMessage;
    messages.push(assistant);
    newMessages.push(assistant);

    if (toolCalls.length === 0) {
      if (config.output_spec) {
        const checked = checkOutput(config.output_spec, text);
        if (!checked.ok) {
          if (outputRetries <= 0)
            return {
              outcome: { kind: 'failed', code: 'output_invalid', message: `the output does not match the output spec: ${checked.problem}` },
              newMessages,
              usage,
            };
          outputRetries -= 1;
          items.open('error', { code: 'output_invalid', message: checked.problem, retrying: true }, 'completed');
          const correction: ModelMessage = {
            role: 'user',
            content: `Your answer did not match the required output: ${checked.problem}. Answer again with JSON only.`,
          };
          messages.push(correction);
          newMessages.push(correction);
          continue;
        }
        items.open('output', { value: checked.value as never }, 'completed');
        return { outcome: { kind: 'completed', output: checked.value }, newMessages, usage };
      }
      return { outcome: { kind: 'completed', output: text }, newMessages, usage };
    }

    const approvals: PendingEntry[] = [];
    const calls: PendingEntry[] = [];
    const immediate: { toolCallId: string; toolName: string; error: string }[] = [];
    // Server-side tools (memory mounts) run here; their results go back to the model.
    const serverResults: { toolCallId: string; toolName: string; value: unknown }[] = [];
    // (A write tool of a read-only mount is not offered; a call to it still gets the read-only answer.)
    const isServerCall = (c: { toolName: string; invalid?: string }) =>
      memory.handlers.has(c.toolName) && (!c.invalid || !(c.toolName in tools));
    for (const call of toolCalls.filter(isServerCall)) {
      const args = (call.input && typeof call.input === 'object' ? call.input : {}) as Record<string, unknown>;
      const item = items.open('tool_call', { tool_call_id: call.toolCallId, tool_name: call.toolName, arguments: args, server: true });
      try {
        const value = await memory.handlers.get(call.toolName)!.execute(args, call.toolCallId);
        items.complete(item, { result: value as never });
        serverResults.push({ toolCallId: call.toolCallId, toolName: call.toolName, value });
      } catch (error) {
        items.complete(item, { error: describeError(error) }, 'failed');
        immediate.push({ toolCallId: call.toolCallId, toolName: call.toolName, error: describeError(error) });
      }
    }
    if (serverResults.length) {
      const results: ModelMessage = {
        role: 'tool',
        content: serverResults.map((r) => ({
          type: 'tool-result' as const,
          toolCallId: r.toolCallId,
          toolName: r.toolName,
          output: { type: 'json' as const, value: (r.value ?? null) as never },
        })),
      };
      messages.push(results);
      newMessages.push(results);
    }
    for (const call of toolCalls.filter((c) => !isServerCall(c))) {
      const args = (call.input && typeof call.input === 'object' ? call.input : {}) as Record<string, unknown>;
      const client = clientTools.get(call.toolName);
      if (call.invalid || (!client && call.toolName !== ASK_USER_TOOL) || (call.toolName === ASK_USER_TOOL && !config.user_questions)) {
        immediate.push({
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          error: call.invalid ?? `there is no tool named ${call.toolName}`,
        });
        continue;
      }
      if (call.toolName === ASK_USER_TOOL) {
        calls.push({
          tool_call_id: call.toolCallId,
          tool_name: call.toolName,
          arguments: args,
          presentation: { kind: 'question', question: args.question ?? '', choices: args.choices ?? [] },
        });
        items.open('question', { tool_call_id: call.toolCallId, question: args.question ?? '', choices: args.choices ?? [] }, 'completed');
        continue;
      }
      const permission = client!.permission ?? 'inherit';
      if (permission === 'deny') {
        immediate.push({ toolCallId: call.toolCallId, toolName: call.toolName, error: 'this tool is not allowed for this agent' });
        continue;
      }
      const entry = {
        tool_call_id: call.toolCallId,
        tool_name: call.toolName,
        arguments: args,
        presentation: { kind: permission === 'ask' ? 'approval' : 'client_call', title: client!.description ?? client!.name },
      };
      if (permission === 'ask') {
        approvals.push(entry);
        items.open('approval_request', { tool_call_id: call.toolCallId, tool_name: call.toolName, arguments: args }, 'completed');
      } else {
        calls.push(entry);
        items.open('client_call', { tool_call_id: call.toolCallId, tool_name: call.toolName, arguments: args }, 'completed');
      }
    }
    if (immediate.length === 0 && serverResults.length && approvals.length === 0 && calls.length === 0) continue;
    if (immediate.length) {
      if (toolRetries <= 0 && approvals.length === 0 && calls.length === 0) {
        return {
          outcome: { kind: 'failed', code: 'tool_error', message: immediate.map((e) => `${e.toolName}: ${e.error}`).join('; ') },
          newMessages,
          usage,
        };
      }
      toolRetries -= 1;
      const results: ModelMessage = {
        role: 'tool',
        content: immediate.map((e) => ({
          type: 'tool-result' as const,
          toolCallId: e.toolCallId,
          toolName: e.toolName,
          output: { type: 'error-text' as const, value: e.error },
        })),
      };
      for (const e of immediate)
        items.open('tool_result', { tool_call_id: e.toolCallId, tool_name: e.toolName, error: e.error }, 'completed');
      if (approvals.length === 0 && calls.length === 0) {
        messages.push(results);
        newMessages.push(results);
        continue;
      }
      newMessages.push(results);
    }
    const reason = approvals.length ? 'approval' : calls.some((c) => c.tool_name !== ASK_USER_TOOL) ? 'client_tool' : 'user_question';
    return { outcome: { kind: 'waiting', reason, approvals, calls }, newMessages, usage };
  }
}

/** Whether a failed attempt deserves another one (provider said so: rate limits, 5xx, timeouts). */
export function isTransient(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.isRetryable;
  const code = (error as { code?: string }).code;
  return code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'ETIMEDOUT';
}

export function describeError(error: unknown): string {
  if (isAppError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

export const attemptId = () => newId('runAttempt');
