// Chat Completions over runs. Each request is a new run on a new thread: the last user message is the
// input, earlier user and assistant messages come before it as a transcript (the service keeps no
// conversation the client does not send back), and system/developer messages are added to the agent's
// instructions. A client tool call is a `tool_calls` entry whose id names the waiting run
// (`<run id>.<tool call id>`), so the `tool` messages of the next request resume that run.
import { BadRequest } from './errors.js';
import { contentText, object, optionalBoolean, requiredModel } from './requests.js';
import { itemText } from '../run-items.js';
import type { ItemView, RunView } from './responses.js';

export interface ChatRequest {
  model: string;
  text: string;
  instructions: string | null;
  /** tool_call_id → content, from the trailing `tool` messages. */
  toolOutputs: Map<string, string>;
  /** A user message after the tool messages, passed with the answers. */
  followUp: string | null;
  stream: boolean;
  includeUsage: boolean;
}

const IGNORED = new Set([
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'user',
  'store',
  'metadata',
  'seed',
  'stop',
  'logit_bias',
  'response_format',
  'reasoning_effort',
  'service_tier',
  'safety_identifier',
  'prompt_cache_key',
]);
const KNOWN = new Set(['model', 'messages', 'stream', 'stream_options', 'n']);

export function parseCallId(id: string): { runId: string; toolCallId: string } | null {
  const match = /^(run_[A-Za-z0-9]+)\.(.+)$/s.exec(id);
  return match ? { runId: match[1]!, toolCallId: match[2]! } : null;
}

export function chatInput(raw: unknown): ChatRequest {
  const body = object(raw, 'body');
  for (const key of Object.keys(body)) {
    if (!KNOWN.has(key) && !IGNORED.has(key))
      throw new BadRequest(`unsupported parameter ${JSON.stringify(key.slice(0, 100))}`, key.slice(0, 100), 'unsupported_parameter');
  }
  const model = requiredModel(body);
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw new BadRequest('n must be 1: a run gives one answer', 'n');
  const stream = optionalBoolean(body, 'stream');
  const streamOptions =
    body.stream_options === undefined || body.stream_options === null ? {} : object(body.stream_options, 'stream_options');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw new BadRequest('messages must be a non-empty list', 'messages');
  const instructions: string[] = [];
  const turns: { role: string; text: string }[] = [];
  const toolOutputs = new Map<string, string>();
  let afterTools: string | null = null;
  body.messages.forEach((entry, index) => {
    const param = `messages[${index}]`;
    const message = object(entry, param);
    const role = message.role;
    if (role === 'system' || role === 'developer') instructions.push(contentText(message.content, `${param}.content`));
    else if (role === 'tool') {
      if (typeof message.tool_call_id !== 'string') throw new BadRequest(`${param}.tool_call_id must be a string`, `${param}.tool_call_id`);
      toolOutputs.set(message.tool_call_id, contentText(message.content, `${param}.content`));
    } else if (role === 'user' || role === 'assistant') {
      const text = message.content === null || message.content === undefined ? '' : contentText(message.content, `${param}.content`);
      // Tool results answer only the calls of the latest answer: earlier ones were answered before.
      if (role === 'assistant' && Array.isArray(message.tool_calls)) toolOutputs.clear();
      if (role === 'user' && toolOutputs.size) afterTools = text;
      else turns.push({ role, text });
    } else throw new BadRequest(`${param}.role must be system, developer, user, assistant or tool`, `${param}.role`);
  });
  // Tool results answer a waiting run only when they close the conversation (a later user turn may follow).
  const last = body.messages.at(-1) as { role?: string };
  if (toolOutputs.size && last.role !== 'tool' && afterTools === null) toolOutputs.clear();
  const lastUser = turns.findLastIndex((turn) => turn.role === 'user');
  if (!toolOutputs.size && (lastUser === -1 || turns[lastUser]!.text.trim() === ''))
    throw new BadRequest('messages must end with a user message', 'messages');
  const earlier = turns.slice(0, lastUser).filter((turn) => turn.text.trim() !== '');
  const text = earlier.length
    ? `The conversation so far:\n${earlier.map((turn) => `${turn.role}: ${turn.text}`).join('\n')}\n\nThe user's new message:\n${turns[lastUser]!.text}`
    : (turns[lastUser]?.text ?? '');
  return {
    model,
    text,
    instructions: instructions.length ? instructions.join('\n\n') : null,
    toolOutputs,
    followUp: afterTools,
    stream,
    includeUsage: streamOptions.include_usage === true,
  };
}

function toolCalls(run: RunView) {
  return run.status === 'waiting' && !run.resumedById
    ? run.pending.calls.map((call) => ({
        id: `${run.id}.${call.toolCallId}`,
        type: 'function' as const,
        function: { name: call.toolName, arguments: JSON.stringify(call.arguments ?? {}) },
      }))
    : [];
}

const usageOf = (run: RunView) =>
  run.usageAtSeal
    ? {
        prompt_tokens: run.usageAtSeal.inputTokens,
        completion_tokens: run.usageAtSeal.outputTokens,
        total_tokens: run.usageAtSeal.inputTokens + run.usageAtSeal.outputTokens,
        prompt_tokens_details: { cached_tokens: run.usageAtSeal.cachedInputTokens },
      }
    : { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

const created = (run: RunView) => Math.floor(Date.parse(run.createdAt) / 1000);

export function chatCompletion(run: RunView, items: readonly ItemView[]) {
  const text = items
    .filter((item) => item.kind === 'text_message')
    .map(itemText)
    .join('');
  const calls = toolCalls(run);
  return {
    id: `chatcmpl-${run.id}`,
    object: 'chat.completion',
    created: created(run),
    model: run.agentId,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text || (calls.length ? null : ''),
          refusal: null,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        finish_reason: calls.length ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: usageOf(run),
  };
}

/** Chunks of a streamed completion: each text item's text as it grows, in item order. */
export class ChatStreamer {
  private readonly sent = new Map<number, string>();

  constructor(
    private readonly run: RunView,
    private readonly includeUsage: boolean,
  ) {}

  private chunk(delta: Record<string, unknown>, finish: string | null = null) {
    return {
      id: `chatcmpl-${this.run.id}`,
      object: 'chat.completion.chunk',
      created: created(this.run),
      model: this.run.agentId,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      ...(this.includeUsage ? { usage: null } : {}),
    };
  }

  opening() {
    return [this.chunk({ role: 'assistant', content: '' })];
  }

  snapshot(item: ItemView) {
    if (item.kind !== 'text_message') return [];
    return this.grow(item.ordinal, itemText(item));
  }

  append(delta: { ordinal: number; member: string; offset: number; text: string }) {
    const sent = this.sent.get(delta.ordinal);
    if (sent === undefined || delta.member !== 'text' || delta.offset !== sent.length) return [];
    return this.grow(delta.ordinal, sent + delta.text);
  }

  private grow(ordinal: number, text: string) {
    const sent = this.sent.get(ordinal) ?? '';
    this.sent.set(ordinal, text.length > sent.length ? text : sent);
    return text.length > sent.length ? [this.chunk({ content: text.slice(sent.length) })] : [];
  }

  closing(run: RunView) {
    const calls = toolCalls(run);
    const chunks: unknown[] = [];
    if (calls.length) chunks.push(this.chunk({ tool_calls: calls.map((call, index) => ({ index, ...call })) }));
    chunks.push(this.chunk({}, calls.length ? 'tool_calls' : 'stop'));
    if (this.includeUsage) chunks.push({ ...this.chunk({}), choices: [], usage: usageOf(run) });
    return chunks;
  }
}
