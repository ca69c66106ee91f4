// What the Responses API shows of a run: the response object and its stream events. Pure functions of
// what the GraphQL operations answered.
//
// A response is a run. Its output items are the run's items that a Responses client can read: text
// messages (`message` items) and the calls the run waits for the client to answer (`function_call`
// items: client tools and the `ask_user` question). Server-side tool calls, reasoning and the rest stay
// in the run (GET /api/v1/runs/{id}/items).
//
// Stream sequence numbers are positions in the run, not a counter of what one connection sent, so a
// stream resumed with `starting_after` continues exactly where the client stopped — no gap, no
// duplicate — whichever process serves it and however the text was chunked the first time:
//   0, 1                        response.created, response.in_progress
//   ordinal·2³² + 0, + 1        output_item.added, content_part.added (of the item with that ordinal)
//   ordinal·2³² + 2 + n         the text (or arguments) delta that ends at UTF-16 offset n
//   ordinal·2³² + 2³² − 4 … −2  output_text.done / function_call_arguments.done, content_part.done, output_item.done
//   (last ordinal + 1)·2³²      the terminal event (response.completed, .failed or .incomplete)
// Numbers grow through the stream but are not contiguous (docs/protocols/openai.md).
import type { ProtocolRunItemFragment, ProtocolRunViewFragment } from '../../generated/protocol-documents.js';
import { contentOf, itemText } from '../run-items.js';

// The answers' types are generated from the documents (src/protocols/operations/*.graphql).
export type RunView = ProtocolRunViewFragment;
export type ItemView = ProtocolRunItemFragment;

export const SPAN = 2 ** 32;
const TEXT_START = 2;
const TEXT_DONE = SPAN - 4;
const PART_DONE = SPAN - 3;
const ITEM_DONE = SPAN - 2;

export const SETTLED = new Set(['completed', 'failed', 'cancelled', 'waiting']);

/** The run's status as a response status. A run waiting for client answers has completed its turn. */
export function responseStatus(run: Pick<RunView, 'status' | 'waitReason'>): string {
  switch (run.status) {
    case 'accepted':
      return 'queued';
    case 'running':
      return 'in_progress';
    case 'waiting':
      return run.waitReason === 'approval' ? 'incomplete' : 'completed';
    default:
      return run.status; // completed, failed, cancelled
  }
}

/** An item as a Responses output item, or null when it is not one a Responses client reads. */
export function outputItem(item: ItemView): Record<string, unknown> | null {
  const status = item.state === 'in_progress' ? 'in_progress' : 'completed';
  if (item.kind === 'text_message') {
    const text = itemText(item);
    return {
      type: 'message',
      id: item.id,
      status,
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    };
  }
  const call = functionCall(item);
  if (call) return { type: 'function_call', id: item.id, call_id: call.callId, name: call.name, arguments: call.arguments, status };
  return null;
}

function functionCall(item: ItemView): { callId: string; name: string; arguments: string } | null {
  const content = contentOf(item);
  if (item.kind === 'client_call') {
    return {
      callId: String(content.tool_call_id ?? ''),
      name: String(content.tool_name ?? ''),
      arguments: JSON.stringify(content.arguments ?? {}),
    };
  }
  if (item.kind === 'question') {
    const choices = Array.isArray(content.choices) && content.choices.length ? { choices: content.choices } : {};
    return {
      callId: String(content.tool_call_id ?? ''),
      name: 'ask_user',
      arguments: JSON.stringify({ question: content.question ?? '', ...choices }),
    };
  }
  return null;
}

export function responseObject(
  run: RunView,
  items: readonly ItemView[],
  extra: { background?: boolean | null } = {},
): Record<string, unknown> {
  const status = responseStatus(run);
  const output = items.flatMap((item) => outputItem(item) ?? []);
  const usage = run.usageAtSeal
    ? {
        input_tokens: run.usageAtSeal.inputTokens,
        input_tokens_details: { cached_tokens: run.usageAtSeal.cachedInputTokens },
        output_tokens: run.usageAtSeal.outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: run.usageAtSeal.inputTokens + run.usageAtSeal.outputTokens,
      }
    : null;
  return {
    id: run.id,
    object: 'response',
    created_at: Math.floor(Date.parse(run.createdAt) / 1000),
    status,
    background: extra.background ?? null,
    error:
      run.status === 'failed' || run.status === 'cancelled'
        ? { code: run.failure?.code ?? run.status, message: run.failure?.message ?? `the run was ${run.status}` }
        : null,
    incomplete_details: status === 'incomplete' ? { reason: 'approval_required' } : null,
    instructions: null,
    max_output_tokens: null,
    metadata: { thread_id: run.threadId },
    model: run.agentId,
    output,
    parallel_tool_calls: true,
    previous_response_id: run.parentRunId,
    temperature: null,
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage,
  };
}

export interface StreamEvent {
  type: string;
  sequence_number: number;
  [key: string]: unknown;
}

/**
 * Turns item states (snapshots and text appends, in the order the run produced them) into Responses
 * stream events, sending only those after `startingAfter`. The same states give the same sequence
 * numbers whether they arrive live or replayed, which is what makes resumption exact.
 */
export class ResponseEventSequencer {
  /** Per item ordinal: the highest sequence number the client holds for it. */
  private readonly at = new Map<number, number>();
  private readonly texts = new Map<number, ItemView>();
  private readonly outputIndex = new Map<number, number>();
  private lastOrdinal = 0;

  constructor(private readonly startingAfter: number) {}

  /** response.created and response.in_progress (those the client lacks). */
  opening(response: Record<string, unknown>): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (this.startingAfter < 0) events.push({ type: 'response.created', sequence_number: 0, response });
    if (this.startingAfter < 1)
      events.push({ type: 'response.in_progress', sequence_number: 1, response: { ...response, status: 'in_progress' } });
    return events;
  }

  /** A snapshot of an item (its whole state). */
  snapshot(item: ItemView): StreamEvent[] {
    this.lastOrdinal = Math.max(this.lastOrdinal, item.ordinal);
    if (!outputItem(item)) return [];
    this.texts.set(item.ordinal, item);
    return this.advance(item);
  }

  /** Text appended to an item's member at `offset`; null when the adapter lacks the state before it (a snapshot follows). */
  append(delta: { ordinal: number; member: string; offset: number; text: string }): StreamEvent[] {
    const item = this.texts.get(delta.ordinal);
    if (!item || item.kind !== 'text_message' || delta.member !== 'text') return [];
    const text = itemText(item);
    if (delta.offset !== text.length) return [];
    const next = { ...item, content: { ...contentOf(item), text: text + delta.text } };
    this.texts.set(delta.ordinal, next);
    return this.advance(next);
  }

  /** The terminal event: after every item of the run (its position is fixed once the run has settled). */
  terminal(response: Record<string, unknown>): StreamEvent[] {
    const sequence = (this.lastOrdinal + 1) * SPAN;
    if (sequence <= this.startingAfter) return [];
    const type =
      response.status === 'completed' ? 'response.completed' : response.status === 'incomplete' ? 'response.incomplete' : 'response.failed';
    return [{ type, sequence_number: sequence, response }];
  }

  private index(ordinal: number): number {
    let index = this.outputIndex.get(ordinal);
    if (index === undefined) this.outputIndex.set(ordinal, (index = this.outputIndex.size));
    return index;
  }

  private advance(item: ItemView): StreamEvent[] {
    const base = item.ordinal * SPAN;
    const output = outputItem(item)!;
    const outputIndex = this.index(item.ordinal);
    const message = item.kind === 'text_message';
    const body = message ? itemText(item) : String(output.arguments);
    const events: StreamEvent[] = [];
    let at = this.at.get(item.ordinal) ?? this.startingAfter;
    const emit = (offset: number, event: Omit<StreamEvent, 'sequence_number'>) => {
      if (base + offset <= at) return;
      at = base + offset;
      events.push({ ...event, sequence_number: at } as StreamEvent);
    };
    const opened = message ? { ...output, status: 'in_progress', content: [] } : { ...output, status: 'in_progress', arguments: '' };
    emit(0, { type: 'response.output_item.added', output_index: outputIndex, item: opened });
    if (message)
      emit(1, {
        type: 'response.content_part.added',
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
    // What the client holds of the text: everything up to the offset its position names.
    const held = Math.max(0, Math.min(body.length, at - base - TEXT_START));
    if (body.length > held && at < base + TEXT_DONE) {
      emit(TEXT_START + body.length, {
        type: message ? 'response.output_text.delta' : 'response.function_call_arguments.delta',
        item_id: item.id,
        output_index: outputIndex,
        ...(message ? { content_index: 0, logprobs: [] } : {}),
        delta: body.slice(held),
      });
    }
    if (item.state !== 'in_progress') {
      if (message) {
        emit(TEXT_DONE, {
          type: 'response.output_text.done',
          item_id: item.id,
          output_index: outputIndex,
          content_index: 0,
          text: body,
          logprobs: [],
        });
        emit(PART_DONE, {
          type: 'response.content_part.done',
          item_id: item.id,
          output_index: outputIndex,
          content_index: 0,
          part: { type: 'output_text', text: body, annotations: [], logprobs: [] },
        });
      } else {
        emit(TEXT_DONE, {
          type: 'response.function_call_arguments.done',
          item_id: item.id,
          output_index: outputIndex,
          name: output.name,
          arguments: body,
        });
      }
      emit(ITEM_DONE, { type: 'response.output_item.done', output_index: outputIndex, item: output });
    }
    this.at.set(item.ordinal, at);
    return events;
  }
}
