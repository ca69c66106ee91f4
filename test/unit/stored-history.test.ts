// Histories stored under AI SDK 5 are read in the shapes AI SDK 7 takes: user image parts become
// file parts, tool-result media items become inline file items; anything else is left as it is.
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from 'ai';
import { upgradeStoredHistory } from '../../src/engine/stored-history.js';

describe('stored history', () => {
  it('rewrites AI SDK 5 image parts and media items, keeping everything else', () => {
    const stored = [
      { role: 'user', content: 'plain text' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', image: 'AAAA', mediaType: 'image/png' },
          { type: 'image', image: 'asset:ast_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'shot',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'the screen' },
                { type: 'media', data: 'BBBB', mediaType: 'image/jpeg' },
              ],
            },
          },
        ],
      },
    ];
    const upgraded = upgradeStoredHistory(stored);
    expect(upgraded[0]).toBe(stored[0]);
    expect(upgraded[2]).toBe(stored[2]);
    expect(upgraded[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'file', data: 'AAAA', mediaType: 'image/png' },
        { type: 'file', data: 'asset:ast_01ARZ3NDEKTSV4RRFFQ69G5FAV', mediaType: 'image' },
      ],
    });
    expect(upgraded[3]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'shot',
          output: {
            type: 'content',
            value: [
              { type: 'text', text: 'the screen' },
              { type: 'file', mediaType: 'image/jpeg', data: { type: 'data', data: 'BBBB' } },
            ],
          },
        },
      ],
    });
  });

  it('returns the same array when nothing needs rewriting, and none for no history', () => {
    const current: ModelMessage[] = [{ role: 'user', content: [{ type: 'file', data: 'AAAA', mediaType: 'image/png' }] }];
    expect(upgradeStoredHistory(current)).toBe(current);
    expect(upgradeStoredHistory(null)).toEqual([]);
  });
});
