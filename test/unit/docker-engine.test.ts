// Pure parts of the container engine client: the multiplexed output stream's frames (split anywhere
// across network chunks) and image references as the pull endpoint takes them.
import { describe, expect, it } from 'vitest';
import { imageReference, StreamDemultiplexer } from '../../src/providers/environments/docker-engine.js';

function frame(stream: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe('StreamDemultiplexer', () => {
  it('splits frames into standard output and standard error, however the bytes arrive', () => {
    const wire = Buffer.concat([frame(1, 'out one\n'), frame(2, 'err\n'), frame(1, ''), frame(1, 'out two')]);
    for (const size of [1, 3, 8, 9, wire.length]) {
      const seen: [string, string][] = [];
      const demux = new StreamDemultiplexer((stream, payload) => seen.push([stream, payload.toString()]));
      for (let at = 0; at < wire.length; at += size) demux.push(wire.subarray(at, at + size));
      expect(seen.filter(([, text]) => text)).toEqual([
        ['stdout', 'out one\n'],
        ['stderr', 'err\n'],
        ['stdout', 'out two'],
      ]);
    }
  });

  it('ignores the standard input stream id and waits for a frame to be complete', () => {
    const seen: string[] = [];
    const demux = new StreamDemultiplexer((_stream, payload) => seen.push(payload.toString()));
    demux.push(frame(0, 'echoed input'));
    demux.push(frame(1, 'partial').subarray(0, 10));
    expect(seen).toEqual([]);
  });
});

describe('imageReference', () => {
  it('splits the tag off the last path segment, defaults it to latest and keeps digests whole', () => {
    expect(imageReference('alpine')).toEqual({ fromImage: 'alpine', tag: 'latest' });
    expect(imageReference('alpine:3.20')).toEqual({ fromImage: 'alpine', tag: '3.20' });
    expect(imageReference('registry.local:5000/team/app')).toEqual({ fromImage: 'registry.local:5000/team/app', tag: 'latest' });
    expect(imageReference('registry.local:5000/team/app:v2')).toEqual({ fromImage: 'registry.local:5000/team/app', tag: 'v2' });
    expect(imageReference('app@sha256:abc')).toEqual({ fromImage: 'app@sha256:abc' });
  });
});
