// Encode once: a shared execution's payload JSON is made once, whatever the number of subscribers,
// and the frame each socket sends is byte for byte graphql-ws' own stringification of the message.
import { describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { deferPayload, markShared, sharedPayloadText, spliceEncodedPayloads } from '../../src/graphql/encoded-next.js';

/** A socket that records what its (wrapped) send receives. */
function fakeSocket() {
  const sent: unknown[] = [];
  const socket = { send: (data: unknown, callback?: () => void) => (sent.push(data), callback?.()) } as unknown as WebSocket;
  spliceEncodedPayloads(socket);
  return { socket, sent };
}

/** What graphql-ws sends for a `next` (its stringifyMessage: JSON.stringify of the message). */
const graphqlWsFrame = (id: string, payload: unknown) => JSON.stringify({ id, type: 'next', payload });

describe('encoded next payloads', () => {
  it('stringifies a shared result once for all its subscribers, and each frame is the one graphql-ws would send', () => {
    const result = markShared({ data: Object.assign(Object.create(null), { runItemEvents: { text: 'tok "€" \u2028 😀', ordinal: 2 } }) });
    const stringify = vi.spyOn(JSON, 'stringify');
    const texts = Array.from({ length: 50 }, () => sharedPayloadText(result));
    expect(stringify).toHaveBeenCalledTimes(1);
    stringify.mockRestore();
    const sockets = Array.from({ length: 3 }, fakeSocket);
    for (const [i, { socket, sent }] of sockets.entries()) {
      const id = `op "${i}"`;
      const placeholder = deferPayload(socket, id, texts[i]!);
      socket.send(graphqlWsFrame(id, placeholder), () => undefined);
      expect(sent).toEqual([graphqlWsFrame(id, { ...result })]);
    }
  });

  it('leaves results with errors, results not shared, and other frames to graphql-ws', () => {
    expect(sharedPayloadText(markShared({ data: null, errors: [] }))).toBeUndefined();
    expect(sharedPayloadText({ data: { a: 1 } })).toBeUndefined();
    const { socket, sent } = fakeSocket();
    const frames = [graphqlWsFrame('1', { data: { a: 1 } }), JSON.stringify({ id: '1', type: 'complete' }), Buffer.from('x')];
    for (const frame of frames) socket.send(frame as string);
    expect(sent).toEqual(frames);
  });

  it('keeps each operation its own payload when several wait on one socket', () => {
    const { socket, sent } = fakeSocket();
    const a = deferPayload(socket, 'a', '{"data":{"x":"A"}}');
    const b = deferPayload(socket, 'b', '{"data":{"x":"B"}}');
    socket.send(graphqlWsFrame('b', b));
    socket.send(graphqlWsFrame('a', a));
    expect(sent).toEqual([graphqlWsFrame('b', { data: { x: 'B' } }), graphqlWsFrame('a', { data: { x: 'A' } })]);
  });
});
