// Media understanding: before each model request, media parts of the conversation that the main
// model cannot read itself (its model API's declaration or its `settings.input_media`) are replaced
// by what the agent's `media_understanding` model for that kind of media says about them. The
// conversation (and so the thread's history and the run's items) keeps the media; only the request
// carries the description. Media comes in user messages (the run's input, steered entries) and in
// client tool results whose value is a message content with media (messages.ts, `clientResult`).
// Descriptions are remembered per workspace, describing model and content digest
// (services/media-descriptions.ts), so a resumed or later run does not pay twice; each piece of
// media an attempt meets is described at most once and recorded once as a `media_description` item.
//
// When no model is configured for the kind, or the describing model cannot be used (unknown,
// disabled, its request failed), the part is replaced by a note saying so and the item records the
// error; the run goes on (nothing is remembered, so a later attempt or run tries again).
//
// Every describing request is a model request the run causes, so it counts in the run's usage
// (requests and tokens) and against `max_usage.requests`: a description is asked for only while the
// run has a request left after the main request it is for; otherwise the media gets a note, as for
// any description that cannot be had (the run is not failed for it: its history keeps the media).
import { createHash } from 'node:crypto';
import { streamText, type ModelMessage, type TextPart, type ToolContent, type ToolResultPart, type UserContent } from 'ai';
import { isAppError } from '../lib/errors.js';
import type { MediaKind } from '../lib/media.js';
import type { CallContext } from '../services/call-context.js';
import type { Deps } from '../services/deps.js';
import { findMediaDescription, rememberMediaDescription } from '../features/assets/media-descriptions.js';
import type { RunAgentConfig } from './agent-config.js';
import type { RunItemStream } from './items.js';
import { addTokens, tokensOf, type Usage } from './usage.js';
import { resolveModel, type ResolvedModel } from './models.js';
import { refusalRetry } from './provider-wait-item.js';

/** The longest description kept (a describing model that rambles is cut here). */
export const MAX_DESCRIPTION_CHARS = 8_000;

const DESCRIBE_SYSTEM =
  'You describe media for an assistant that cannot see or hear it. Describe everything that matters: ' +
  'what it shows or says, any text or speech verbatim, numbers, layout and notable details. ' +
  'Answer with the description only.';

interface MediaInPart {
  kind: MediaKind;
  mediaType: string;
  /** base64 */
  data: string;
}

/** The media of a user content part (image parts, and file parts of image/audio/video types), if any. */
export function mediaOfPart(part: UserContent[number] | TextPart): MediaInPart | null {
  if (typeof part === 'string' || part.type === 'text') return null;
  const data = part.type === 'image' ? part.image : part.data;
  if (typeof data !== 'string') return null;
  const mediaType = part.mediaType ?? (part.type === 'image' ? 'image/*' : '');
  const kind = mediaType.split('/')[0];
  if (kind !== 'image' && kind !== 'audio' && kind !== 'video') return null;
  return { kind, mediaType, data };
}

type ResultItem = Extract<ToolResultPart['output'], { type: 'content' }>['value'][number];

/** The media of an item of a content tool result (a client tool's result with media, inline), if any. */
export function mediaOfResultItem(item: ResultItem): MediaInPart | null {
  if (item.type !== 'file' || item.data.type !== 'data' || typeof item.data.data !== 'string') return null;
  const kind = item.mediaType.split('/')[0];
  if (kind !== 'image' && kind !== 'audio' && kind !== 'video') return null;
  return { kind, mediaType: item.mediaType, data: item.data.data };
}

/** Every piece of media a message carries. */
function mediaIn(message: ModelMessage): MediaInPart[] {
  if (message.role === 'user' && Array.isArray(message.content))
    return message.content.map(mediaOfPart).filter((media): media is MediaInPart => media !== null);
  if (message.role === 'tool')
    return message.content.flatMap((result) =>
      result.type === 'tool-result' && result.output.type === 'content'
        ? result.output.value.map(mediaOfResultItem).filter((media): media is MediaInPart => media !== null)
        : [],
    );
  return [];
}

/** The replacement text the main model reads instead of a piece of media. */
export function describedPart(kind: MediaKind, text: string, failed: boolean): TextPart {
  return { type: 'text', text: failed ? `[${kind} omitted: ${text}]` : `[${kind} described by another model: ${text}]` };
}

export interface MediaReaderContext {
  deps: Deps;
  call: CallContext;
  config: RunAgentConfig;
  items: RunItemStream;
  signal: AbortSignal;
  /** The attempt's usage: describing requests and their tokens are added to it. */
  usage: Usage;
  /** The run's `max_usage.requests` (absent: no limit). */
  maxRequests?: number;
}

export class MediaReader {
  /** Per attempt: the replacement of each piece of media met, by kind and digest (described once). */
  private readonly replacements = new Map<string, Promise<TextPart>>();

  constructor(private readonly ctx: MediaReaderContext) {}

  /**
   * The messages as `model` gets them: the same array when every piece of media is one it reads (or
   * there is none), else copies of the messages with descriptions in place of the media it cannot
   * read — in user messages, and in client tool results that carry media.
   */
  async forModel(messages: ModelMessage[], model: ResolvedModel): Promise<ModelMessage[]> {
    const unreadable = (media: MediaInPart | null) => (media && !model.inputMedia.includes(media.kind) ? media : null);
    const unreadableInResult = (media: MediaInPart | null) => (media && !model.toolResultMedia.includes(media.kind) ? media : null);
    const needs = messages.some((message) =>
      mediaIn(message).some((media) => (message.role === 'tool' ? unreadableInResult(media) : unreadable(media))),
    );
    if (!needs) return messages;
    return Promise.all(
      messages.map(async (message): Promise<ModelMessage> => {
        if (message.role === 'user' && Array.isArray(message.content)) {
          const content = await Promise.all(
            message.content.map(async (part) => {
              const media = unreadable(mediaOfPart(part));
              return media ? this.replacement(media) : part;
            }),
          );
          return { ...message, content };
        }
        if (message.role === 'tool') {
          const content = await Promise.all(
            message.content.map(async (result): Promise<ToolContent[number]> => {
              if (result.type !== 'tool-result' || result.output.type !== 'content') return result;
              const value = await Promise.all(
                result.output.value.map(async (item) => {
                  const media = unreadableInResult(mediaOfResultItem(item));
                  return media ? this.replacement(media) : item;
                }),
              );
              return { ...result, output: { type: 'content', value } };
            }),
          );
          return { ...message, content };
        }
        return message;
      }),
    );
  }

  private replacement(media: MediaInPart): Promise<TextPart> {
    const sha256 = createHash('sha256').update(Buffer.from(media.data, 'base64')).digest('hex');
    const key = `${media.kind}:${sha256}`;
    let found = this.replacements.get(key);
    if (!found) {
      found = this.describe(media, sha256);
      this.replacements.set(key, found);
    }
    return found;
  }

  private async describe(media: MediaInPart, sha256: string): Promise<TextPart> {
    const { call, config, items } = this.ctx;
    const modelKey = config.media_understanding?.[media.kind];
    const record = (content: Record<string, unknown>) =>
      items.open('media_description', { media_kind: media.kind, media_type: media.mediaType, sha256, ...content }, 'completed');
    if (!modelKey) {
      const message = `the model cannot read ${media.kind} and the agent names no media_understanding.${media.kind} model`;
      record({ model: null, cached: false, error: { code: 'not_configured', message } });
      return describedPart(media.kind, message, true);
    }
    const remembered = await findMediaDescription(call, modelKey, sha256);
    if (remembered) {
      record({ model: modelKey, cached: true, description: remembered.description });
      return describedPart(media.kind, remembered.description, false);
    }
    // The limit holds for describing requests too; the check and the count happen together (no
    // await between them), so descriptions made at the same time cannot overrun it.
    const { usage, maxRequests = Number.POSITIVE_INFINITY } = this.ctx;
    if (usage.requests >= maxRequests) {
      const message = `the run reached its limit of ${maxRequests} model requests`;
      record({ model: modelKey, cached: false, error: { code: 'usage_limit_exceeded', message } });
      return describedPart(media.kind, message, true);
    }
    usage.requests += 1;
    try {
      const description = await this.ask(modelKey, media);
      await rememberMediaDescription(call, { modelKey, contentSha256: sha256, mediaType: media.mediaType, description });
      record({ model: modelKey, cached: false, description });
      return describedPart(media.kind, description, false);
    } catch (error) {
      if (this.ctx.signal.aborted) throw error;
      const code = isAppError(error) ? error.code : 'model_error';
      const message = `the ${media.kind} could not be described by the model ${JSON.stringify(modelKey)}: ${error instanceof Error ? error.message : String(error)}`;
      record({ model: modelKey, cached: false, error: { code, message } });
      return describedPart(media.kind, message, true);
    }
  }

  /** One request to the describing model with the media; its text is the description. */
  private async ask(modelKey: string, media: MediaInPart): Promise<string> {
    const { deps, call, signal } = this.ctx;
    const model = await resolveModel(deps, call.actor.workspaceId, modelKey, {});
    // A provider refusing for load is waited out (provider-wait-item.ts); the describing model has no fallbacks.
    return refusalRetry(deps, this.ctx.items, 'media_description', signal)(model, () => this.requestDescription(model, media));
  }

  private async requestDescription(model: ResolvedModel, media: MediaInPart): Promise<string> {
    const { signal } = this.ctx;
    const mediaPart = { type: 'file' as const, data: media.data, mediaType: media.mediaType };
    const result = streamText({
      model: model.model,
      instructions: DESCRIBE_SYSTEM,
      messages: [{ role: 'user', content: [{ type: 'text', text: `Describe this ${media.kind}.` }, mediaPart] }],
      abortSignal: signal,
      maxRetries: 0,
      experimental_download: model.download,
      onError: () => undefined,
    });
    let text = '';
    const { usage } = this.ctx;
    for await (const part of result.stream) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'finish-step') {
        addTokens(usage, model, tokensOf(part.usage));
      } else if (part.type === 'error') throw part.error;
      else if (part.type === 'abort') throw signal.reason ?? new Error('aborted');
    }
    const description = text.trim();
    if (!description) throw new Error('the model answered with no text');
    return description.slice(0, MAX_DESCRIPTION_CHARS);
  }
}
