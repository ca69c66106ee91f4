// The Responses stream's sequence numbers are positions in the run (src/protocols/openai/responses.ts):
// a stream resumed after any event it sent continues exactly — same numbers, the text not yet sent,
// nothing twice — whether the rest is replayed from stored items or arrives in other chunks.
import { describe, expect, it } from 'vitest';
import { ResponseEventSequencer, type ItemView, type StreamEvent } from '../../src/protocols/openai/responses.js';

type Change = { snapshot: ItemView } | { append: { ordinal: number; member: string; offset: number; text: string } };

const user: ItemView = { id: 'itm_1', ordinal: 1, kind: 'user_message', state: 'completed', content: { content: [] } };
const message = (ordinal: number, text: string, state: ItemView['state'] = 'in_progress'): ItemView => ({
  id: `itm_${ordinal}`,
  ordinal,
  kind: 'text_message',
  state,
  content: { text },
});
const call: ItemView = {
  id: 'itm_6',
  ordinal: 6,
  kind: 'client_call',
  state: 'completed',
  content: { tool_call_id: 'c1', tool_name: 'pick', arguments: { n: 1 } },
};

/** A run as it streams live: an opened message, appended text, a completion, a tool step, another message, a client call. */
const live: Change[] = [
  { snapshot: user },
  { snapshot: message(2, 'Hel') },
  { append: { ordinal: 2, member: 'text', offset: 3, text: 'lo, w' } },
  { append: { ordinal: 2, member: 'text', offset: 8, text: 'orld' } },
  { snapshot: message(2, 'Hello, world', 'completed') },
  { snapshot: { id: 'itm_3', ordinal: 3, kind: 'tool_call', state: 'completed', content: {} } },
  { snapshot: message(5, 'Second ') },
  { append: { ordinal: 5, member: 'text', offset: 7, text: 'message.' } },
  { snapshot: message(5, 'Second message.', 'completed') },
  { snapshot: call },
];
/** The same run replayed from its stored items: every item whole, ordered by ordinal. */
const stored: Change[] = [user, message(2, 'Hello, world', 'completed'), { ...call }, message(5, 'Second message.', 'completed')]
  .sort((a, b) => a.ordinal - b.ordinal)
  .map((item) => ({ snapshot: item }));

function play(changes: Change[], startingAfter: number): StreamEvent[] {
  const sequencer = new ResponseEventSequencer(startingAfter);
  const events = sequencer.opening({ status: 'in_progress' });
  for (const change of changes)
    events.push(...('snapshot' in change ? sequencer.snapshot(change.snapshot) : sequencer.append(change.append)));
  events.push(...sequencer.terminal({ status: 'completed' }));
  return events;
}

/** What a client assembles: each item's text (or arguments) from its deltas, by output index. */
function assembled(events: StreamEvent[]): string[] {
  const texts: string[] = [];
  for (const event of events) {
    if (event.type === 'response.output_text.delta' || event.type === 'response.function_call_arguments.delta') {
      const index = event.output_index as number;
      texts[index] = (texts[index] ?? '') + (event.delta as string);
    }
  }
  return texts;
}

describe('response stream sequence numbers', () => {
  const full = play(live, -1);

  it('grow through the stream, each once, with the whole text in the deltas', () => {
    const numbers = full.map((e) => e.sequence_number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(full[0]!.type).toBe('response.created');
    expect(full.at(-1)!.type).toBe('response.completed');
    expect(assembled(full)).toEqual(['Hello, world', 'Second message.', JSON.stringify({ n: 1 })]);
    expect(full.filter((e) => e.type === 'response.output_item.added').map((e) => e.output_index)).toEqual([0, 1, 2]);
  });

  it('resume exactly after every event, live or replayed from the stored items', () => {
    for (const [index, event] of full.entries()) {
      const before = full.slice(0, index + 1);
      for (const rest of [play(live, event.sequence_number), play(stored, event.sequence_number)]) {
        const all = [...before, ...rest];
        expect(rest.every((e) => e.sequence_number > event.sequence_number)).toBe(true);
        expect(new Set(all.map((e) => e.sequence_number)).size).toBe(all.length);
        expect(assembled(all)).toEqual(['Hello, world', 'Second message.', JSON.stringify({ n: 1 })]);
        // Every structural event (all but deltas, whose chunks may differ) exactly once, in the same order.
        const structure = (events: StreamEvent[]) =>
          events.filter((e) => !e.type.endsWith('.delta')).map((e) => `${e.sequence_number} ${e.type}`);
        expect(structure(all)).toEqual(structure(full));
      }
    }
  });

  it('replays the same numbers from the stored items as it sent live', () => {
    const structure = (events: StreamEvent[]) =>
      events.filter((e) => !e.type.endsWith('.delta')).map((e) => `${e.sequence_number} ${e.type}`);
    expect(structure(play(stored, -1))).toEqual(structure(full));
  });
});
