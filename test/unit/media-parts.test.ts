// The pure parts of media understanding: how input parts become model content, which parts carry
// media of which kind, what a model reads, and the replacement text the main model gets.
import { describe, expect, it } from 'vitest';
import { userContent } from '../../src/engine/messages.js';
import { describedPart, mediaOfPart } from '../../src/engine/media-understanding.js';
import { inputMediaOf } from '../../src/engine/models.js';
import { validateMessage } from '../../src/features/runs/run-input.js';

describe('media parts', () => {
  it('keeps text-only content a string and turns media parts into file parts', () => {
    expect(
      userContent({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
    expect(
      userContent({
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', media_type: 'image/png', data: 'AAAA' },
          { type: 'audio', media_type: 'audio/wav', data: 'BBBB' },
        ],
      }),
    ).toEqual([
      { type: 'text', text: 'look' },
      { type: 'file', data: 'AAAA', mediaType: 'image/png' },
      { type: 'file', data: 'BBBB', mediaType: 'audio/wav' },
    ]);
    // An attached image without a media type: the AI SDK finds the subtype from the bytes.
    const assetId = 'ast_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    expect(userContent({ content: [{ type: 'image', asset_id: assetId }] })).toEqual([
      { type: 'file', data: `asset:${assetId}`, mediaType: 'image' },
    ]);
  });

  it('finds the media kind of a model part', () => {
    expect(mediaOfPart({ type: 'text', text: 'x' })).toBeNull();
    expect(mediaOfPart({ type: 'image', image: 'AAAA', mediaType: 'image/png' })).toEqual({
      kind: 'image',
      mediaType: 'image/png',
      data: 'AAAA',
    });
    expect(mediaOfPart({ type: 'file', data: 'AAAA', mediaType: 'video/mp4' })?.kind).toBe('video');
    expect(mediaOfPart({ type: 'file', data: 'AAAA', mediaType: 'application/pdf' })).toBeNull();
  });

  it('reads the model API declaration unless settings.input_media overrides it', () => {
    expect(inputMediaOf(['image'], {})).toEqual(['image']);
    expect(inputMediaOf(undefined, {})).toEqual([]);
    expect(inputMediaOf(['image', 'audio'], { input_media: [] })).toEqual([]);
    expect(inputMediaOf(undefined, { input_media: ['video'] })).toEqual(['video']);
  });

  it('says what replaced the media', () => {
    expect(describedPart('image', 'a cat', false).text).toBe('[image described by another model: a cat]');
    expect(describedPart('audio', 'no model', true).text).toBe('[audio omitted: no model]');
  });

  it('validates media parts field by field', () => {
    const field = (part: unknown) => {
      try {
        validateMessage({ content: [part] }, 'input');
        return null;
      } catch (error) {
        return (error as { details?: { field?: string } }).details?.field;
      }
    };
    expect(field({ type: 'video', media_type: 'video/mp4', data: 'AAAA' })).toBeNull();
    expect(field({ type: 'video', media_type: 'image/png', data: 'AAAA' })).toBe('input.content[0].media_type');
    expect(field({ type: 'image', media_type: 'image/png', data: 'AAA' })).toBe('input.content[0].data');
    expect(field({ type: 'text' })).toBe('input.content[0].text');
    expect(field('text')).toBe('input.content[0]');
  });
});
