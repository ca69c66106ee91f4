// What the model is sent in place of parts of the history, without changing the history itself:
// stubs for old tool results (the full result stays readable), references for old media, and a cut
// for a single message larger than the window. Each is made once per original message object and
// then reused, so a stubbed prefix is the same text on every request (prompt caches keep hitting).
import type { ModelMessage, ToolResultPart } from 'ai';

const READ_REF = /"ref":\s*"([^"]+)"/;
const ASSET_REF = /^asset:(ast_[0-9A-Za-z]+)$/;

const stubCache = new WeakMap<object, ModelMessage>();
const cutCache = new WeakMap<object, { limit: number; message: ModelMessage }>();

/** The ref a stored large result names (tools/tool-output.ts writes it into what the model reads), if any. */
function storedRef(part: ToolResultPart): string | null {
  const output = part.output;
  if (output.type !== 'text') return null;
  return READ_REF.exec(output.value.slice(0, 1024))?.[1] ?? null;
}

function outputSize(part: ToolResultPart): number {
  const output = part.output;
  if (output.type === 'text' || output.type === 'error-text') return output.value.length;
  if (output.type === 'execution-denied') return output.reason?.length ?? 0;
  return JSON.stringify(output.value ?? null).length;
}

/** The short text an old tool result is sent as. */
export function toolResultStub(part: ToolResultPart): string {
  const ref = storedRef(part);
  const size = outputSize(part);
  const kept = ref ? `The full result is kept: read it with read_tool_output {"ref": "${ref}"}.` : 'Call the tool again if you need it.';
  return `[Earlier result of ${part.toolName} (${size} characters), cleared from the context to save room. ${kept}]`;
}

/**
 * A message as sent once it is old: tool results become stubs (an error stays, it is short and
 * says what went wrong), media parts become a line naming them (and the asset, when they are one).
 * Messages with neither are returned as they are.
 */
export function stubbed(message: ModelMessage): ModelMessage {
  const cached = stubCache.get(message);
  if (cached) return cached;
  let result = message;
  if (message.role === 'tool') {
    result = {
      ...message,
      content: message.content.map((part) =>
        part.type === 'tool-result' && part.output.type !== 'error-text'
          ? { ...part, output: { type: 'text' as const, value: toolResultStub(part) } }
          : part,
      ),
    };
  } else if (message.role === 'user' && Array.isArray(message.content) && message.content.some((p) => p.type !== 'text')) {
    result = {
      ...message,
      content: message.content.map((part) => {
        if (part.type === 'text') return part;
        const data = part.type === 'image' ? part.image : part.data;
        const asset = typeof data === 'string' ? ASSET_REF.exec(data)?.[1] : undefined;
        const isImage = part.type === 'image' || (part.type === 'file' && /^image(\/|$)/.test(part.mediaType));
        const kind = isImage ? 'an image' : `a file (${part.mediaType})`;
        return {
          type: 'text' as const,
          text: `[${kind} sent earlier${asset ? `, asset ${asset}` : ''}; not repeated to save room]`,
        };
      }),
    };
  }
  stubCache.set(message, result);
  return result;
}

/** Keeps the head and the tail of a text within `limit` characters, with a marker saying what was cut. */
export function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.floor(limit * 0.7);
  const tail = Math.max(0, limit - head);
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${cut} characters cut here: this part was larger than the model's context window allows …]\n${text.slice(text.length - tail)}`;
}

/**
 * A message with each of its texts (text parts, tool results, a tool call's arguments as JSON) cut
 * to at most `limit` characters: for a message larger than the window can take.
 */
export function cutMessage(message: ModelMessage, limit: number): ModelMessage {
  const cached = cutCache.get(message);
  if (cached && cached.limit === limit) return cached.message;
  let result: ModelMessage;
  if (typeof message.content === 'string') result = { ...message, content: cutText(message.content, limit) } as ModelMessage;
  else if (message.role === 'tool')
    result = {
      ...message,
      content: message.content.map((part) => {
        if (part.type !== 'tool-result') return part;
        const output = part.output;
        if (output.type === 'text' || output.type === 'error-text')
          return { ...part, output: { ...output, value: cutText(output.value, limit) } };
        if (output.type === 'json' || output.type === 'error-json')
          return { ...part, output: { type: 'text' as const, value: cutText(JSON.stringify(output.value ?? null), limit) } };
        return part;
      }),
    };
  else
    result = {
      ...message,
      content: message.content.map((part) => {
        if (part.type === 'text') return { ...part, text: cutText(part.text, limit) };
        // A call's arguments too large to send stay readable in the history; the model gets them cut.
        if (part.type === 'tool-call') {
          const json = JSON.stringify(part.input ?? {});
          return json.length > limit ? { ...part, input: { cut_arguments: cutText(json, limit) } } : part;
        }
        return part;
      }),
    } as ModelMessage;
  cutCache.set(message, { limit, message: result });
  return result;
}
