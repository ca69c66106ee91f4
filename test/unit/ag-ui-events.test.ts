// The run-item-to-AG-UI-event translation on its own: deltas and snapshots of the same text say each
// character once, a replayed item says nothing new, every START is closed, and a server tool's call
// sits inside its step with its result after it.
import { describe, expect, it } from 'vitest';
import { EventType } from '@ag-ui/core';
import { EventTranslator, type ItemEvent } from '../../src/protocols/ag-ui/events.js';
import type { RunItemKind, RunItemState } from '../../src/generated/protocol-documents.js';

const item = (id: string, kind: RunItemKind, state: RunItemState, content: Record<string, unknown>): ItemEvent => ({
  __typename: 'RunItem',
  id,
  ordinal: 1,
  kind,
  state,
  content,
});
const delta = (itemId: string, offset: number, text: string): ItemEvent => ({
  __typename: 'RunItemTextDelta',
  itemId,
  ordinal: 1,
  member: 'text',
  offset,
  text,
});

describe('EventTranslator', () => {
  it('streams a text message once, whether its text arrives as deltas or in snapshots', () => {
    const translator = new EventTranslator();
    const events = [
      item('itm_1', 'text_message', 'in_progress', { role: 'assistant', text: 'Hel' }),
      delta('itm_1', 3, 'lo'),
      // A delta overlapping what the client has: only the new part goes out.
      delta('itm_1', 4, 'o, w'),
      item('itm_1', 'text_message', 'completed', { role: 'assistant', text: 'Hello, world' }),
      // A replay of the completed item (a reconnect) says nothing more.
      item('itm_1', 'text_message', 'completed', { role: 'assistant', text: 'Hello, world' }),
    ].flatMap((event) => translator.translate(event));
    expect(events).toEqual([
      { type: EventType.TEXT_MESSAGE_START, messageId: 'itm_1', role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'itm_1', delta: 'Hel' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'itm_1', delta: 'lo' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'itm_1', delta: ', w' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'itm_1', delta: 'orld' },
      { type: EventType.TEXT_MESSAGE_END, messageId: 'itm_1' },
    ]);
    expect(translator.close()).toEqual([]);
  });

  it('closes a message and a step still open when the run ends', () => {
    const translator = new EventTranslator();
    translator.translate(item('itm_1', 'text_message', 'in_progress', { text: '' }));
    translator.translate(item('itm_2', 'tool_call', 'in_progress', { tool_call_id: 'c1', tool_name: 'search', arguments: {} }));
    expect(translator.close()).toEqual([
      { type: EventType.TEXT_MESSAGE_END, messageId: 'itm_1' },
      { type: EventType.STEP_FINISHED, stepName: 'tool:search' },
    ]);
  });

  it('puts a server tool call in a step and its result after it; a client call is announced once', () => {
    const translator = new EventTranslator();
    const events = [
      item('itm_2', 'tool_call', 'in_progress', { tool_call_id: 'c1', tool_name: 'search', arguments: { q: 'x' }, server: true }),
      item('itm_2', 'tool_call', 'completed', { tool_call_id: 'c1', tool_name: 'search', arguments: { q: 'x' }, server: true }),
      item('itm_3', 'tool_result', 'completed', { tool_call_id: 'c1', tool_name: 'search', result: { hits: 2 } }),
      item('itm_4', 'client_call', 'completed', { tool_call_id: 'c2', tool_name: 'confirm', arguments: {} }),
      item('itm_4', 'client_call', 'completed', { tool_call_id: 'c2', tool_name: 'confirm', arguments: {} }),
      item('itm_5', 'reasoning', 'completed', { text: 'thinking' }),
    ].flatMap((event) => translator.translate(event));
    expect(events.map((event) => event.type)).toEqual([
      EventType.STEP_STARTED,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.STEP_FINISHED,
      EventType.TOOL_CALL_RESULT,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
    ]);
    expect(events[2]).toMatchObject({ toolCallId: 'c1', delta: '{"q":"x"}' });
    expect(events[5]).toMatchObject({ toolCallId: 'c1', messageId: 'itm_3', content: '{"hits":2}', role: 'tool' });
  });
});
