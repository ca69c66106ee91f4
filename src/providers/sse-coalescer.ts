// Merges consecutive server-sent text-delta events of a model's stream that arrive in the same network
// read into one event, before the AI SDK sees them. The SDK pays for every event it receives — its
// web-stream stages, a JSON parse and a zod validation, then one part for the turn to read — so when
// a busy service reads several tokens of one stream at once, they cost it one event instead of several.
// Nothing is held back: an event leaves with the read that completed it (a partial event waits for its
// end, as the SDK's own parser would make it), so no token is delayed.
//
// What is merged, and why it means the same: two neighbouring events merge only when they are the same
// JSON in every field but one text field (same ids, model, choice index, role, content block…), that
// text field is a string in both, and the event carries nothing else the provider acts on per event
// (no finish reason, usage, tool calls, log probabilities). The merged event is the first with the
// texts joined; the provider turns it into the one delta part the two would have made as two. Every
// other event — and every event of a stream with `\r` line endings, comments, `id:` or `retry:` lines —
// passes byte for byte, in order. Wire formats:
// - OpenAI chat completions (and the OpenAI-compatible servers): `data: {…"choices":[{"index":i,
//   "delta":{"content"|"reasoning_content"|"reasoning": text, "role"?},"finish_reason":null}]}`;
// - Anthropic messages: `event: content_block_delta` + `data: {"type":"content_block_delta","index":i,
//   "delta":{"type":"text_delta","text":…}}` (or `thinking_delta` with `thinking`).
// Other formats (the OpenAI Responses API, …) match neither shape and pass unchanged.

/** Where an event's text lives: `holder[key]` is its string. */
interface TextSlot {
  holder: Record<string, unknown>;
  key: string;
}

/** One complete event of the read, parsed when it can merge. */
interface Mergeable {
  /** The `event:` line with its newline, or ''. */
  eventLine: string;
  data: Record<string, unknown>;
  slot: TextSlot;
  /** The event with its text blanked: events merge when these are equal. */
  template: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isPrimitive = (value: unknown) => value === null || (typeof value !== 'object' && typeof value !== 'function');
/** Whether every member of `object` is an allowed one or null (a null member is one the provider skips). */
const hasOnly = (object: Record<string, unknown>, allowed: ReadonlySet<string>) =>
  Object.keys(object).every((key) => allowed.has(key) || object[key] === null);

const CHAT_CHOICE_KEYS = new Set(['index', 'delta', 'finish_reason', 'logprobs']);
const CHAT_TEXT_KEYS = ['content', 'reasoning_content', 'reasoning'];
const CHAT_DELTA_KEYS = new Set(['role', ...CHAT_TEXT_KEYS]);

/** The text of a chat-completions chunk that only adds text to one choice; null for any other chunk. */
function chatCompletionText(data: Record<string, unknown>): TextSlot | null {
  const choices = data.choices;
  if (!Array.isArray(choices) || choices.length !== 1) return null;
  // Top-level fields other than `choices` are metadata the provider reads from the first chunk only
  // (a `usage` object, which it does read from every chunk, is not a primitive: such chunks stay apart).
  for (const key in data) if (key !== 'choices' && !isPrimitive(data[key])) return null;
  const choice = choices[0];
  if (!isObject(choice) || !hasOnly(choice, CHAT_CHOICE_KEYS) || choice.finish_reason != null || choice.logprobs != null) return null;
  const delta = choice.delta;
  if (!isObject(delta) || !hasOnly(delta, CHAT_DELTA_KEYS) || !isPrimitive(delta.role)) return null;
  let slot: TextSlot | null = null;
  for (const key of CHAT_TEXT_KEYS) {
    const text = delta[key];
    if (text == null) continue;
    if (typeof text !== 'string' || slot) return null; // two texts in one chunk: kept as it is
    slot = { holder: delta, key };
  }
  return slot;
}

const ANTHROPIC_KEYS = new Set(['type', 'index', 'delta']);
const ANTHROPIC_TEXT_KEY: Record<string, string> = { text_delta: 'text', thinking_delta: 'thinking' };

/** The text of an Anthropic `content_block_delta` of text or thinking; null for any other event. */
function anthropicText(data: Record<string, unknown>): TextSlot | null {
  if (data.type !== 'content_block_delta' || !hasOnly(data, ANTHROPIC_KEYS)) return null;
  const delta = data.delta;
  if (!isObject(delta) || typeof delta.type !== 'string') return null;
  const key = ANTHROPIC_TEXT_KEY[delta.type];
  if (!key || typeof delta[key] !== 'string' || Object.keys(delta).length !== 2) return null;
  return { holder: delta, key };
}

/** A complete event block (without its blank line) as a mergeable event, or null to pass it unchanged. */
function parseMergeable(block: string): Mergeable | null {
  let eventLine = '';
  let dataLine = block;
  if (block.startsWith('event:')) {
    const newline = block.indexOf('\n');
    if (newline < 0) return null;
    eventLine = block.slice(0, newline + 1);
    dataLine = block.slice(newline + 1);
  }
  if (!dataLine.startsWith('data:') || dataLine.includes('\n')) return null;
  let data: unknown;
  try {
    data = JSON.parse(dataLine.slice(5));
  } catch {
    return null; // `[DONE]` and anything else that is not JSON
  }
  if (!isObject(data)) return null;
  const slot = eventLine ? anthropicText(data) : chatCompletionText(data);
  if (!slot) return null;
  const text = slot.holder[slot.key];
  slot.holder[slot.key] = '';
  const template = eventLine + JSON.stringify(data);
  slot.holder[slot.key] = text;
  return { eventLine, data, slot, template };
}

/**
 * Merges the text-delta events of one stream's reads (text in, text out: the caller decodes and
 * encodes). `push` takes a read's text and returns what can leave now; `end` returns what is left.
 */
export class SseCoalescer {
  private pending = '';
  /** Set at the first `\r`: such a stream's line endings are not split here, it passes unchanged. */
  private passThrough = false;

  push(text: string): string {
    if (this.passThrough) return text;
    if (text.includes('\r')) {
      this.passThrough = true;
      const out = this.pending + text;
      this.pending = '';
      return out;
    }
    const buffered = this.pending + text;
    const end = buffered.lastIndexOf('\n\n');
    if (end < 0) {
      this.pending = buffered;
      return '';
    }
    this.pending = buffered.slice(end + 2);
    return coalesceBlocks(buffered.slice(0, end));
  }

  end(): string {
    const rest = this.pending;
    this.pending = '';
    return rest;
  }
}

/** Complete events joined by blank lines (the last blank line cut off) → the same events, merged where they may. */
export function coalesceBlocks(complete: string): string {
  const blocks = complete.split('\n\n');
  // One event has nothing to merge with: it leaves as it came, unparsed.
  if (blocks.length === 1) return `${complete}\n\n`;
  const out: string[] = [];
  // The open run of mergeable events: its first event, its original text, and whether others joined it.
  let head: Mergeable | null = null;
  let headBlock = '';
  let merged = false;
  const closeRun = () => {
    if (head) out.push(merged ? `${head.eventLine}data: ${JSON.stringify(head.data)}` : headBlock);
    head = null;
    merged = false;
  };
  for (const block of blocks) {
    const event = parseMergeable(block);
    if (event && head && event.template === head.template) {
      const { holder, key } = head.slot;
      holder[key] = (holder[key] as string) + (event.slot.holder[event.slot.key] as string);
      merged = true;
      continue;
    }
    closeRun();
    if (event) {
      head = event;
      headBlock = block;
    } else out.push(block);
  }
  closeRun();
  return `${out.join('\n\n')}\n\n`;
}
