// The page members of the items continuation: what is still streaming, whether earlier items were
// left out, and whether every item carries its whole content.
import { describe, expect, it } from 'vitest';
import {
  carriesFullContent,
  leavesOutEarlier,
  MAX_PENDING,
  openParts,
  pendingFragments,
  type PageItem,
} from '../../src/features/runs/run-items-continuation.js';

const item = (ordinal: number, state: string, content: unknown = {}, contentRefs: unknown = {}): PageItem => ({
  id: `itm_${ordinal}`,
  ordinal,
  state,
  content,
  contentRefs,
});

describe('the items continuation of a page', () => {
  it('lists the items in progress with their text members and bytes so far, the oldest first, at most MAX_PENDING', () => {
    const items = [
      item(1, 'completed', { text: 'done' }),
      item(2, 'in_progress', { role: 'assistant', text: 'héllo' }),
      item(3, 'in_progress', { tool_name: 'x', arguments: {} }),
    ];
    expect(pendingFragments(items)).toEqual({
      itm_2: { count: 2, parts: ['role', 'text'], size: Buffer.byteLength('assistant') + Buffer.byteLength('héllo') },
      itm_3: { count: 1, parts: ['tool_name'], size: 1 },
    });
    expect(openParts(items)).toEqual(['itm_2', 'itm_3']);
    const many = Array.from({ length: MAX_PENDING + 3 }, (_, index) => item(index + 1, 'in_progress', { text: '' }));
    expect(Object.keys(pendingFragments(many))).toEqual(many.slice(0, MAX_PENDING).map((i) => i.id));
    expect(pendingFragments([item(1, 'completed')])).toEqual({});
    expect(openParts([])).toEqual([]);
  });

  it('says when the page leaves out earlier items', () => {
    expect(leavesOutEarlier([item(3, 'completed'), item(4, 'completed')], 1)).toBe(true);
    expect(leavesOutEarlier([item(1, 'completed')], 1)).toBe(false);
    expect(leavesOutEarlier([], 1)).toBe(false);
    expect(leavesOutEarlier([], null)).toBe(false);
  });

  it('says whether every item carries its whole content', () => {
    expect(carriesFullContent([item(1, 'completed', { text: 'x' })])).toBe(true);
    expect(carriesFullContent([item(1, 'completed'), item(2, 'completed', {}, { output: { preview: '…' } })])).toBe(false);
    expect(carriesFullContent([item(1, 'completed', {}, null)])).toBe(true);
  });
});
