// The message shape of run input and inbox payloads, and its validation.
import { canonicalize } from '../lib/canonical-json.js';
import type { Prisma } from '../db.js';
import { invalidArgument } from '../lib/errors.js';

// A type, not an interface: a JSON document, so it is a `Prisma.InputJsonValue` as it is.
export type MessageContent = {
  content: { type: 'text'; text: string }[];
};

/**
 * A message read back from a payload or input column. Only `validateMessage`'s results are ever
 * written there, so the stored JSON has this shape (the cast is that boundary).
 */
export function storedMessage(value: Prisma.JsonValue): MessageContent {
  return value as MessageContent;
}

/** `{content: [{type: "text", text}]}` — the input/payload shape of the spec. */
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
  content.forEach((part: unknown, index) => {
    const partField = `${field}.content[${index}]`;
    if (
      part === null ||
      typeof part !== 'object' ||
      (part as { type?: unknown }).type !== 'text' ||
      typeof (part as { text?: unknown }).text !== 'string'
    ) {
      throw invalidArgument(`${partField} must be {"type": "text", "text": "…"}`, partField);
    }
    const keys = Object.keys(part as object).filter((key) => key !== 'type' && key !== 'text');
    if (keys.length) throw invalidArgument(`${partField}.${keys[0]} is not a known field`, `${partField}.${keys[0]}`);
  });
  if (Buffer.byteLength(canonicalize(content)) > 512 * 1024) throw invalidArgument(`${field} is larger than 512 KiB`, field);
  return { content: content as MessageContent['content'] };
}
