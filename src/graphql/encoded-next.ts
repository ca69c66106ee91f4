// A shared event's `next` payload is turned into JSON once for all its subscribers. graphql-ws
// stringifies `{id, type: 'next', payload}` per subscriber, so fifty subscribers of one answer
// stringified every token fifty times. Instead, onNext hands graphql-ws a small placeholder payload
// and keeps the payload's JSON (made once per execution) for the operation's id; the socket's send
// puts that JSON where the placeholder's is. The frame is byte for byte what graphql-ws would have
// sent: the same message, stringified the same way, with the same payload text.
import type { ExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';

/** Executions handed to every subscriber with the same key (shared-subscription-execution). */
const sharedResults = new WeakSet<object>();
/** An execution's payload JSON, as graphql-ws would stringify it (`{...result}` without errors). */
const encodings = new WeakMap<object, string>();

export function markShared<T extends ExecutionResult>(result: T): T {
  sharedResults.add(result);
  return result;
}

/** The payload JSON of a shared execution without errors; undefined: graphql-ws builds the payload. */
export function sharedPayloadText(result: ExecutionResult): string | undefined {
  // Errors are formatted per subscriber (onNext, error masking): they keep graphql-ws' own path.
  if (!sharedResults.has(result) || result.errors !== undefined) return undefined;
  let text = encodings.get(result);
  if (text === undefined) encodings.set(result, (text = JSON.stringify({ ...result })));
  return text;
}

/**
 * The payload onNext returns in place of a shared execution's: an object (graphql-ws checks it is
 * one) whose JSON cannot be a real payload's — a result's only keys are data, errors, extensions.
 */
export const PLACEHOLDER_PAYLOAD = Object.freeze({ '\u0000encoded': true });
/** How graphql-ws' `next` frame with the placeholder ends, and how every frame it stringifies starts. */
const PLACEHOLDER_TAIL = `,"type":"next","payload":${JSON.stringify(PLACEHOLDER_PAYLOAD)}}`;
const ID_HEAD = '{"id":';

/** A socket's payload texts waiting for their frame, by operation id. */
const waiting = new WeakMap<object, Map<string, string>>();

/**
 * Keeps `text` for the next frame of operation `id` on `socket` and returns the placeholder for
 * onNext. graphql-ws sends each operation's `next` frames one at a time, right after its onNext.
 */
export function deferPayload(socket: WebSocket, id: string, text: string): object {
  let texts = waiting.get(socket);
  if (!texts) waiting.set(socket, (texts = new Map()));
  texts.set(id, text);
  return PLACEHOLDER_PAYLOAD;
}

/** Wraps the client's send so a placeholder `next` frame leaves with its operation's payload text. */
export function spliceEncodedPayloads(client: WebSocket): void {
  const send = client.send.bind(client) as (...args: unknown[]) => void;
  client.send = ((data: unknown, ...rest: unknown[]) => send(withPayload(client, data), ...rest)) as WebSocket['send'];
}

function withPayload(socket: WebSocket, data: unknown): unknown {
  if (typeof data !== 'string' || !data.endsWith(PLACEHOLDER_TAIL) || !data.startsWith(ID_HEAD)) return data;
  const texts = waiting.get(socket);
  if (!texts) return data;
  // The frame is `{"id":<id as JSON>` and the tail: the id is read without parsing the frame
  // (a plain id has no escapes; one with escapes is parsed).
  const idText = data.slice(ID_HEAD.length, data.length - PLACEHOLDER_TAIL.length);
  const id = idText.includes('\\') ? (JSON.parse(idText) as unknown) : idText.slice(1, -1);
  const text = typeof id === 'string' ? texts.get(id) : undefined;
  if (text === undefined) return data;
  texts.delete(id as string);
  return `${data.slice(0, data.length - PLACEHOLDER_TAIL.length)},"type":"next","payload":${text}}`;
}
