// Reading a run item's content as the protocol adapters do. The schema answers `content` as JSON (the
// generated types say `unknown`); a run item's content is always a JSON object, so the adapters read
// its members from a record, and anything else reads as an item without members.

/** The members of a run item's content (none when the content is not an object). */
export function contentOf(item: { content: unknown }): Record<string, unknown> {
  const { content } = item;
  return typeof content === 'object' && content !== null && !Array.isArray(content) ? (content as Record<string, unknown>) : {};
}

/** A text message item's text so far (empty for an item without text). */
export function itemText(item: { content: unknown }): string {
  const { text } = contentOf(item);
  return typeof text === 'string' ? text : '';
}
