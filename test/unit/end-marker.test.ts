// The `docker` type's end marker filter: output passes on at once except what could be the marker's
// beginning; the marker itself never reaches the output, however the bytes are split.
import { describe, expect, it } from 'vitest';
import { EndMarkerFilter } from '../../src/providers/environments/end-marker.js';

const MARKER = Buffer.from('<wsa-end-0123abcd>');

function run(chunks: string[]) {
  const out: string[] = [];
  const filter = new EndMarkerFilter(MARKER, (chunk) => out.push(chunk.toString()));
  for (const chunk of chunks) filter.push(Buffer.from(chunk));
  return { out, complete: filter.end() };
}

describe('EndMarkerFilter', () => {
  it('strips the marker at the end, split anywhere across chunks', () => {
    const wire = `hello\nworld\n${MARKER}`;
    for (const size of [1, 2, 5, 13, wire.length]) {
      const chunks: string[] = [];
      for (let at = 0; at < wire.length; at += size) chunks.push(wire.slice(at, at + size));
      const { out, complete } = run(chunks);
      expect([out.join(''), complete]).toEqual(['hello\nworld\n', true]);
    }
  });

  it('passes ordinary output on without waiting for more', () => {
    const out: string[] = [];
    const filter = new EndMarkerFilter(MARKER, (chunk) => out.push(chunk.toString()));
    filter.push(Buffer.from('started\n'));
    expect(out).toEqual(['started\n']);
    // Text that looks like the marker's beginning waits, and passes on once it is not the marker.
    filter.push(Buffer.from('<wsa-e'));
    expect(out.join('')).toBe('started\n');
    filter.push(Buffer.from('x'));
    expect(out.join('')).toBe('started\n<wsa-ex');
  });

  it('reports a stream without its marker as incomplete: lost entirely, cut short, or the marker cut', () => {
    expect(run([])).toEqual({ out: [], complete: false });
    expect(run(['hello\n'])).toEqual({ out: ['hello\n'], complete: false });
    expect(run(['hello\n<wsa-end-01'])).toEqual({ out: ['hello\n'], complete: false });
    // The marker followed by more output is not an end.
    expect(run([`a${MARKER}b`]).complete).toBe(false);
  });
});
