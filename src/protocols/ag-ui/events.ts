// Run items (the `runItemEvents` subscription) as AG-UI events. A pure translator: it holds what it
// has already said about each item, so a snapshot after deltas (or a replayed item) says only what is
// new, and every START has its END before the stream closes.
import { EventType, type BaseEvent, type Interrupt, type Tool } from '@ag-ui/core';
// The answers' types are generated from the documents (src/protocols/operations/*.graphql).
import type {
  ProtocolPendingCallFragment,
  ProtocolRunItemEventsSubscription,
  ProtocolRunViewFragment,
} from '../../generated/protocol-documents.js';
import { contentOf, itemText } from '../run-items.js';

/** A run item event as the subscription answers it: a snapshot of an item, or a delta of its text. */
export type ItemEvent = ProtocolRunItemEventsSubscription['runItemEvents'];
type RunItemSnapshot = Extract<ItemEvent, { __typename: 'RunItem' }>;
type PendingCall = ProtocolPendingCallFragment;
type RunView = ProtocolRunViewFragment;

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

export class EventTranslator {
  /** Text messages open: how much of each one's text the client has. */
  private readonly texts = new Map<string, number>();
  /** Server tool calls whose step is open (by the tool_call item's id): the step's name. */
  private readonly steps = new Map<string, string>();
  /** Tool calls announced (TOOL_CALL_START … END), by tool_call_id. */
  private readonly calls = new Set<string>();

  /** The AG-UI events one run item event stands for (none for kinds AG-UI has no event for). */
  translate(event: ItemEvent): BaseEvent[] {
    if (event.__typename === 'RunItemTextDelta') {
      const sent = this.texts.get(event.itemId);
      // Deltas of other members, or of items that are not text messages (reasoning), say nothing here.
      if (sent === undefined || event.member !== 'text') return [];
      return this.appendText(event.itemId, sent, event.offset, event.text);
    }
    switch (event.kind) {
      case 'text_message':
        return this.textMessage(event);
      case 'tool_call':
        return this.serverToolCall(event);
      // A client tool's call, and one that waits for an approval first (its interrupt names the call).
      case 'client_call':
      case 'approval_request':
        return this.announceCall(contentOf(event));
      case 'tool_result':
        return this.toolResult(event);
      default:
        return [];
    }
  }

  /** A front-end call the run waits on, announced unless this stream already has (questions are interrupts). */
  pending(call: PendingCall): BaseEvent[] {
    if (call.presentation.kind === 'question') return [];
    return this.announceCall({ tool_call_id: call.toolCallId, tool_name: call.toolName, arguments: call.arguments });
  }

  /** Closes what is still open (a run that ended while an item was in progress). */
  close(): BaseEvent[] {
    const events: BaseEvent[] = [];
    for (const id of this.texts.keys()) events.push({ type: EventType.TEXT_MESSAGE_END, messageId: id } as BaseEvent);
    this.texts.clear();
    for (const name of this.steps.values()) events.push({ type: EventType.STEP_FINISHED, stepName: name } as BaseEvent);
    this.steps.clear();
    return events;
  }

  private textMessage(item: RunItemSnapshot): BaseEvent[] {
    const events: BaseEvent[] = [];
    let sent = this.texts.get(item.id);
    if (sent === undefined) {
      if (this.ended.has(item.id)) return [];
      events.push({ type: EventType.TEXT_MESSAGE_START, messageId: item.id, role: 'assistant' } as BaseEvent);
      sent = 0;
      this.texts.set(item.id, 0);
    }
    events.push(...this.appendText(item.id, sent, 0, itemText(item)));
    if (item.state !== 'in_progress') {
      events.push({ type: EventType.TEXT_MESSAGE_END, messageId: item.id } as BaseEvent);
      this.texts.delete(item.id);
      this.ended.add(item.id);
    }
    return events;
  }

  /** Text messages already ended: a later snapshot of one (a replay) says nothing. */
  private readonly ended = new Set<string>();

  /** `text` starts at `offset` of the item's text; the client has its first `sent` characters. */
  private appendText(messageId: string, sent: number, offset: number, text: string): BaseEvent[] {
    const end = offset + text.length;
    if (end <= sent || offset > sent) return [];
    const delta = text.slice(sent - offset);
    this.texts.set(messageId, end);
    return delta ? [{ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta } as BaseEvent] : [];
  }

  /** A server tool's execution is a step; its call is announced as it starts. */
  private serverToolCall(item: RunItemSnapshot): BaseEvent[] {
    const events: BaseEvent[] = [];
    const content = contentOf(item);
    const name = asText(content.tool_name);
    if (!this.steps.has(item.id) && !this.calls.has(asText(content.tool_call_id))) {
      this.steps.set(item.id, `tool:${name}`);
      events.push({ type: EventType.STEP_STARTED, stepName: `tool:${name}` } as BaseEvent);
      events.push(...this.announceCall(content));
    }
    if (item.state !== 'in_progress' && this.steps.has(item.id)) {
      events.push({ type: EventType.STEP_FINISHED, stepName: this.steps.get(item.id)! } as BaseEvent);
      this.steps.delete(item.id);
    }
    return events;
  }

  private announceCall(content: Record<string, unknown>): BaseEvent[] {
    const toolCallId = asText(content.tool_call_id);
    if (this.calls.has(toolCallId)) return [];
    this.calls.add(toolCallId);
    return [
      { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: asText(content.tool_name) } as BaseEvent,
      { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(content.arguments ?? {}) } as BaseEvent,
      { type: EventType.TOOL_CALL_END, toolCallId } as BaseEvent,
    ];
  }

  /** A server tool's result (or its refusal): the calls the front-end answers have none here. */
  private toolResult(item: RunItemSnapshot): BaseEvent[] {
    const result = contentOf(item);
    const toolCallId = asText(result.tool_call_id);
    if (!this.calls.has(toolCallId) || item.state === 'in_progress') return [];
    const content = 'error' in result ? `error: ${asText(result.error)}` : asText(result.result ?? result.value);
    return [{ type: EventType.TOOL_CALL_RESULT, messageId: item.id, toolCallId, content, role: 'tool' } as BaseEvent];
  }
}

/** The approvals and questions a waiting run asks for, as AG-UI interrupts (answered by `resume` entries). */
export function interruptsOf(run: RunView): Interrupt[] {
  const approvals = run.pending.approvals.map((call): Interrupt => ({
    id: call.toolCallId,
    reason: 'approval',
    message: call.presentation.title ?? `Approve the call of ${call.toolName}?`,
    toolCallId: call.toolCallId,
    responseSchema: APPROVAL_SCHEMA,
    metadata: { tool_name: call.toolName, arguments: call.arguments },
  }));
  const questions = run.pending.calls
    .filter((call) => call.presentation.kind === 'question')
    .map((call): Interrupt => ({
      id: call.toolCallId,
      reason: 'user_question',
      message: call.presentation.question ?? '',
      toolCallId: call.toolCallId,
      responseSchema: call.presentation.choices?.length ? { type: 'string', enum: call.presentation.choices } : { type: 'string' },
    }));
  return [...approvals, ...questions];
}

/** The calls a waiting run leaves for the front-end to answer with `tool` messages. */
export const frontEndCalls = (run: RunView) => run.pending.calls.filter((call) => call.presentation.kind !== 'question');

const APPROVAL_SCHEMA = {
  type: 'object',
  properties: { action: { type: 'string', enum: ['approve', 'deny'] } },
  required: ['action'],
};

/** The front-end's tools as the run's client tools (the spec's `client_tools`, snake_case). */
export function clientToolsOf(tools: Tool[]): Record<string, unknown>[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters_json_schema: tool.parameters && typeof tool.parameters === 'object' ? tool.parameters : { type: 'object' },
    ...(tool.metadata ? { metadata: tool.metadata } : {}),
  }));
}
