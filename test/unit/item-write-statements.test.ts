// The item writer's statement has one text whatever its batch holds (only which kinds of change it
// holds pick among a few texts), so PostgreSQL prepares it once per connection instead of parsing and
// planning a new text at every tick.
import { describe, expect, it } from 'vitest';
import { itemsWrite, itemsCtes, type ItemChanges, type RunItemState } from '../../src/features/runs/attempt-items.js';

const item = (runId: string, ordinal: number, ended: boolean): RunItemState => ({
  id: `itm_${runId}_${ordinal}`,
  runId,
  ordinal,
  kind: 'message',
  state: ended ? 'completed' : 'in_progress',
  content: { role: 'assistant', text: `text of ${ordinal}` },
  contentRefs: {},
  firstStreamId: `s${ordinal}`,
  lastStreamId: `s${ordinal + 1}`,
  startedAt: new Date('2026-11-28T10:00:00.000Z'),
  endedAt: ended ? new Date('2026-11-28T10:00:01.000Z') : null,
});

const changes = (runId: string, items: RunItemState[], appends = 0): ItemChanges => ({
  workspaceId: 'wsp_1',
  runId,
  attempt: 1,
  rows: items,
  appends: Array.from({ length: appends }, (_, n) => ({
    runId,
    workspaceId: 'wsp_1',
    ordinal: 9,
    sequence: n + 1,
    member: 'text',
    text: 'x',
  })),
  rewritten: [],
});

const textOf = (all: ItemChanges[]) => itemsCtes(itemsWrite(all)).text;

describe('the item write statement', () => {
  it('has the same text for one row and for many, ended or not', () => {
    const one = textOf([changes('run_a', [item('run_a', 1, false)])]);
    const many = textOf([changes('run_a', [item('run_a', 1, true), item('run_a', 2, false)]), changes('run_b', [item('run_b', 1, true)])]);
    expect(many).toBe(one);
  });

  it('has the same text for any number of appends', () => {
    expect(textOf([changes('run_a', [], 1)])).toBe(textOf([changes('run_a', [], 5), changes('run_b', [], 2)]));
  });

  it('passes each column as one array, with an item without an end as an empty string', () => {
    const write = itemsCtes(itemsWrite([changes('run_a', [item('run_a', 1, false), item('run_a', 2, true)])]));
    expect(write.values).toContainEqual(['', '2026-11-28T10:00:01.000Z']);
    expect(write.values).toContainEqual(['2026-11-28T10:00:00.000Z', '2026-11-28T10:00:00.000Z']);
    expect(write.values).toContainEqual([
      JSON.stringify({ role: 'assistant', text: 'text of 1' }),
      JSON.stringify({ role: 'assistant', text: 'text of 2' }),
    ]);
  });
});
