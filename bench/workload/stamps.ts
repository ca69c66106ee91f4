// Token stamps: every token the loopback model streams is its own emission time, written as text —
// `t<ms>` and a space, where <ms> counts milliseconds (one decimal) from the bench's epoch on the wall
// clock both processes read (performance.timeOrigin + performance.now()). The subscriber reads the
// stamps back out of the text it receives, so the delay from the model's emitting a token to the
// subscriber's receiving it needs no side channel, whatever the service does to the text on the way
// (coalescing appends, snapshots or deltas) as long as it keeps the text.

/** The wall clock in ms since `epoch` (itself a wall-clock ms value), the same in every process. */
export const sinceEpoch = (epoch: number): number => performance.timeOrigin + performance.now() - epoch;

export const formatToken = (stampMs: number): string => `t${stampMs.toFixed(1)} `;

const TOKEN = /t(\d+\.\d) /g;

/**
 * Reads the stamps of one item's text as it grows. `append` takes the text from `offset` on (a
 * snapshot's whole text with offset 0, or a delta with its offset); text already read is skipped, and
 * a token cut at the end of what arrived waits for its rest. Returns the stamps of the whole tokens
 * that are new.
 */
export class StampReader {
  /** Characters of the item's text read so far (whole tokens only). */
  private read = 0;
  /** A gap: text arrived that starts after what was read (a delta was lost). */
  gaps = 0;

  append(text: string, offset = 0): number[] {
    if (offset > this.read) {
      this.gaps += 1;
      return [];
    }
    const fresh = text.slice(this.read - offset);
    const end = fresh.lastIndexOf(' ') + 1; // the part made of whole tokens
    if (end === 0) return [];
    const stamps: number[] = [];
    for (const match of fresh.slice(0, end).matchAll(TOKEN)) stamps.push(Number(match[1]));
    this.read += end;
    return stamps;
  }
}
