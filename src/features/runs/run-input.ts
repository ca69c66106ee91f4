// The message shape of run input and inbox payloads, and its validation.
import Type, { type Static } from 'typebox';
import { canonicalize } from '../../lib/canonical-json.js';
import { readDocument } from '../../lib/json-documents.js';
import type { Prisma } from '../../db.js';
import { invalidArgument } from '../../lib/errors.js';
import { isMediaKind, MEDIA_KINDS } from '../../lib/media.js';

// The stored shape of a message, defined once: the types derive from it, and reads of the input
// and payload columns are checked against it. `validateMessage` below checks what callers send (with
// errors naming the field) and is the only writer, so what it accepts always matches.
const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String() });
export type TextPart = Static<typeof TextPart>;
/** A media part: the bytes inline (base64) with their media type, which must be of the part's kind. */
const MediaPart = Type.Object({ type: Type.Enum(MEDIA_KINDS), media_type: Type.String(), data: Type.String() });
export type MediaPart = Static<typeof MediaPart>;
/**
 * A part that references an asset of the workspace: an image, or any file. `media_type` is the
 * asset's, filled in when the message is accepted (services/assets.ts, `attachAssets`).
 */
const AssetPart = Type.Object({
  type: Type.Enum(['image', 'file']),
  asset_id: Type.String(),
  media_type: Type.Optional(Type.String()),
});
export type AssetPart = Static<typeof AssetPart>;
const MessagePart = Type.Union([TextPart, MediaPart, AssetPart]);
export type MessagePart = Static<typeof MessagePart>;

export const isAssetPart = (part: MessagePart): part is AssetPart => 'asset_id' in part;

const MessageContent = Type.Object({ content: Type.Array(MessagePart) });
export type MessageContent = Static<typeof MessageContent>;
/** The message shape as JSON Schema (the `MessageContent` GraphQL scalar carries it). */
export const MessageContentSchema = MessageContent;

/**
 * A message read back from a payload or input column (`column`: `inbox_entries.payload`,
 * `runs.input`), checked against the stored shape.
 */
export function storedMessage(value: Prisma.JsonValue, column = 'inbox_entries.payload'): MessageContent {
  return readDocument(MessageContent, value, column);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MEDIA_TYPE = /^[a-z]+\/[a-z0-9][a-z0-9.+-]*$/;

function validatePart(part: unknown, partField: string, assets = true): void {
  if (part === null || typeof part !== 'object' || Array.isArray(part))
    throw invalidArgument(`${partField} must be {"type": "text", "text": "…"} or a media part`, partField);
  const { type } = part as { type?: unknown };
  if (assets && (type === 'file' || (type === 'image' && 'asset_id' in part))) {
    const extra = Object.keys(part).find((key) => !['type', 'asset_id', 'media_type'].includes(key));
    if (extra) throw invalidArgument(`${partField}.${extra} is not a known field of an asset part`, `${partField}.${extra}`);
    const { asset_id: assetId } = part as { asset_id?: unknown };
    if (typeof assetId !== 'string' || assetId === '')
      throw invalidArgument(
        `${partField}.asset_id must name an asset (a ${String(type)} part references an asset)`,
        `${partField}.asset_id`,
      );
    return;
  }
  const allowed = type === 'text' ? ['type', 'text'] : isMediaKind(type) ? ['type', 'media_type', 'data'] : null;
  if (!allowed)
    throw invalidArgument(`${partField}.type must be one of text, ${MEDIA_KINDS.join(', ')}${assets ? ', file' : ''}`, `${partField}.type`);
  const extra = Object.keys(part).find((key) => !allowed.includes(key));
  if (extra) throw invalidArgument(`${partField}.${extra} is not a known field`, `${partField}.${extra}`);
  if (type === 'text') {
    if (typeof (part as { text?: unknown }).text !== 'string')
      throw invalidArgument(`${partField}.text must be a string`, `${partField}.text`);
    return;
  }
  const { media_type: mediaType, data } = part as { media_type?: unknown; data?: unknown };
  if (typeof mediaType !== 'string' || !MEDIA_TYPE.test(mediaType) || mediaType.split('/')[0] !== type)
    throw invalidArgument(`${partField}.media_type must be a ${type}/… media type`, `${partField}.media_type`);
  if (typeof data !== 'string' || data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data))
    throw invalidArgument(`${partField}.data must be the content in base64`, `${partField}.data`);
}

/**
 * The parts of a client tool's returned value when it is a message content with media —
 * `{content: [part, …]}`, every part a valid text or media part, at least one media part — else
 * null (the value is plain JSON and reaches the model as JSON).
 */
export function mediaContentOf(value: unknown): MessagePart[] | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const { content, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length || !Array.isArray(content) || !content.some((part) => isMediaKind((part as { type?: unknown })?.type)))
    return null;
  try {
    content.forEach((part: unknown, index) => validatePart(part, `value.content[${index}]`, false));
  } catch {
    return null;
  }
  return content as MessagePart[];
}

/**
 * `{content: [part, …]}` — the input/payload shape of the spec: text parts `{type: "text", text}`,
 * media parts `{type: "image" | "audio" | "video", media_type, data}` (base64), and asset parts
 * `{type: "image" | "file", asset_id}` (checked against the workspace by `attachAssets`).
 */
export function validateMessage(value: unknown, field: string, required = true): MessageContent | null {
  if (value === undefined || value === null) {
    if (required) throw invalidArgument(`${field} is required: {"content": [{"type": "text", "text": "…"}]}`, field);
    return null;
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(`${field} must be an object with content`, field);
  const { content, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra) throw invalidArgument(`${field}.${extra} is not a known field`, `${field}.${extra}`);
  if (!Array.isArray(content) || content.length === 0 || content.length > 100)
    throw invalidArgument(`${field}.content must be a list of 1 to 100 parts`, `${field}.content`);
  content.forEach((part: unknown, index) => validatePart(part, `${field}.content[${index}]`));
  if (Buffer.byteLength(canonicalize(content)) > 512 * 1024) throw invalidArgument(`${field} is larger than 512 KiB`, field);
  return { content: content as MessageContent['content'] };
}
