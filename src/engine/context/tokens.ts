// Counting a prompt's tokens before it is sent. Two levels, so a run with no window pressure pays
// almost nothing: first a cheap upper bound (a BPE token is at least one byte of UTF-8, so a
// message's JSON length in bytes bounds its tokens), and only when that bound comes near a threshold,
// a real count with the o200k BPE (OpenAI's; `gpt-tokenizer`, loaded on first use), scaled for other
// model families by a calibrated factor. Counts are cached per message object: the conversation of an
// attempt keeps its messages, so each is counted once per attempt. The provider's reported input
// tokens then correct the estimate for the rest of the run (`Calibration`).
import type { ModelMessage } from 'ai';

/** Tokens a message costs beyond its content (role markers, separators), as the chat formats count them. */
const MESSAGE_OVERHEAD = 4;
/** What an image or other media part is counted as when it is sent as media (a typical 1 MP image on the big APIs). */
export const MEDIA_PART_TOKENS = 1_600;

type Encoder = (text: string) => number;
let encoder: Encoder | null = null;
let loading: Promise<Encoder> | null = null;

/** The BPE counter, loaded once per process on first need (its ranks are a few MB). */
export async function loadEncoder(): Promise<Encoder> {
  if (encoder) return encoder;
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => {
    encoder = (text: string) => module.countTokens(text);
    return encoder;
  });
  return loading;
}

/**
 * How a model family's tokenizer compares with o200k on the same text: Claude's and Gemini's
 * vocabularies are smaller, so the same prompt costs them more tokens. The factors are the service's
 * calibration on English prose and code; the provider's own counts correct them within a run.
 */
export function familyFactor(providerType: string, providerModelId: string): number {
  const id = providerModelId.toLowerCase();
  if (providerType === 'anthropic' || id.includes('claude')) return 1.2;
  if (providerType === 'google' || providerType === 'vertex' || id.includes('gemini')) return 1.1;
  if (['openai', 'azure'].includes(providerType) || /gpt|o\d|oss/.test(id)) return 1;
  // Open models (Llama, Qwen, Mistral…) have vocabularies between cl100k's and o200k's sizes.
  return 1.15;
}

const boundCache = new WeakMap<object, number>();
const countCache = new WeakMap<object, number>();

/** An upper bound of a message's tokens, from its JSON's byte length (media data included: a wide bound). */
export function messageBound(message: ModelMessage): number {
  let bound = boundCache.get(message);
  if (bound === undefined) {
    bound = Buffer.byteLength(JSON.stringify(message)) + MESSAGE_OVERHEAD;
    boundCache.set(message, bound);
  }
  return bound;
}

/** The text a message's tokens are counted on, and how many media parts it carries. */
export function countedText(message: ModelMessage): { text: string; media: number } {
  if (typeof message.content === 'string') return { text: message.content, media: 0 };
  let text = '';
  let media = 0;
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        text += part.text;
        break;
      case 'image':
      case 'file':
        media += 1;
        break;
      case 'tool-call':
        text += `${part.toolName}${JSON.stringify(part.input ?? {})}`;
        break;
      case 'tool-result': {
        const output = part.output;
        text += part.toolName;
        if (output.type === 'text' || output.type === 'error-text') text += output.value;
        else if (output.type === 'execution-denied') text += output.reason ?? '';
        else if (output.type === 'content')
          for (const item of output.value) {
            if (item.type === 'text') text += item.text;
            else media += 1;
          }
        else text += JSON.stringify(output.value ?? null);
        break;
      }
      default:
        text += JSON.stringify(part);
    }
  }
  return { text, media };
}

/** The BPE runs on pieces of this many characters: its cost grows with the square of a word's length (a run without spaces is one word). */
const PIECE_CHARS = 1_000;
/** Longer texts are counted on this many evenly spaced pieces and extrapolated: a message's count costs the same however large it is. */
const SAMPLED_PIECES = 24;

/** The tokens of a text, in bounded time whatever its size or shape. */
export function countText(text: string, encode: Encoder): number {
  if (text.length <= PIECE_CHARS) return encode(text);
  const pieces = Math.ceil(text.length / PIECE_CHARS);
  if (pieces <= SAMPLED_PIECES) {
    let total = 0;
    for (let start = 0; start < text.length; start += PIECE_CHARS) total += encode(text.slice(start, start + PIECE_CHARS));
    return total;
  }
  let sampledTokens = 0;
  let sampledChars = 0;
  for (let index = 0; index < SAMPLED_PIECES; index += 1) {
    const start = Math.floor((index * (pieces - 1)) / (SAMPLED_PIECES - 1)) * PIECE_CHARS;
    const piece = text.slice(start, start + PIECE_CHARS);
    sampledTokens += encode(piece);
    sampledChars += piece.length;
  }
  return Math.ceil((sampledTokens * text.length) / sampledChars);
}

/** A message's o200k tokens (cached): its text, its media at a flat rate, and the per-message overhead. */
export function messageTokens(message: ModelMessage, encode: Encoder): number {
  let count = countCache.get(message);
  if (count === undefined) {
    const { text, media } = countedText(message);
    count = countText(text, encode) + media * MEDIA_PART_TOKENS + MESSAGE_OVERHEAD;
    countCache.set(message, count);
  }
  return count;
}

/**
 * The ratio between what the provider counted and what was estimated for the same request: the
 * next estimates of the run are scaled by it. Kept within bounds, so one odd report (a provider that
 * counts cached tokens apart, a usage missing) cannot make the estimate absurd.
 */
export class Calibration {
  private ratio = 1;

  constructor(private readonly family: number) {}

  scale(tokens: number): number {
    return Math.ceil(tokens * this.family * this.ratio);
  }

  /** The provider reported `reported` input tokens for a request estimated at `estimated` (already scaled). */
  observe(estimated: number, reported: number) {
    if (!(estimated > 0) || !(reported > 0)) return;
    this.ratio = Math.min(3, Math.max(0.5, this.ratio * (reported / estimated)));
  }

  /** After a refusal for length: the estimate was too low; make it more cautious for the rest of the run. */
  distrust() {
    this.ratio = Math.min(3, this.ratio * 1.25);
  }
}
