// The JSON columns of a run item, read typed. `content` holds the item's members (which members
// depends on its kind: text, a tool call's name and arguments, a tool result…); `content_refs` names
// the members whose whole text is stored apart (src/engine/items.ts writes both).
import Type, { type Static } from 'typebox';
import { JsonObjectDocument, readDocument } from '../../lib/json-documents.js';

/** An item's `content`: a JSON object (its members are its kind's). */
export const storedItemContent = (value: unknown): JsonObjectDocument => readDocument(JsonObjectDocument, value, 'run_items.content');

/** An item's `content_refs`: a JSON object, member → ref (none: an empty object). */
export const storedItemRefs = (value: unknown): JsonObjectDocument =>
  value === null || value === undefined ? {} : readDocument(JsonObjectDocument, value, 'run_items.content_refs');

/** What a `tool_call` item's content says of the call (the members other readers need are theirs). */
const ToolCallContent = Type.Object({
  tool_call_id: Type.Optional(Type.String()),
  tool_name: Type.Optional(Type.String()),
  arguments: Type.Optional(Type.Unknown()),
});
export type ToolCallContent = Static<typeof ToolCallContent>;

/** A `tool_call` item's content, as far as its call goes. */
export const storedToolCall = (value: unknown): ToolCallContent => readDocument(ToolCallContent, value, 'run_items.content');
