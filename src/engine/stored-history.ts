// A thread's stored history (the model messages sealRun wrote) as the AI SDK takes it today.
// Histories written under AI SDK 5 may hold two part shapes that AI SDK 7 refuses or deprecates:
// user `image` parts (deprecated: an image is a `file` part with an image media type) and `media`
// items in tool-result content (removed: a `file` item with inline data). They are rewritten here,
// when a history is read, so a thread started before the upgrade goes on; everything else is kept
// as stored (the same objects, so the caches keyed by message keep working).
import type { FilePart, ModelMessage, ToolContent } from 'ai';
import { storedMessageHistory } from '../features/threads/thread-documents.js';

/** The legacy user part: `{type: 'image', image, mediaType?}`. */
interface LegacyImagePart {
  type: 'image';
  image: FilePart['data'];
  mediaType?: string;
  providerOptions?: FilePart['providerOptions'];
}

/** The legacy tool-result content item: `{type: 'media', data, mediaType}` (data in base64). */
interface LegacyMediaItem {
  type: 'media';
  data: string;
  mediaType: string;
}

const isLegacyImage = (part: unknown): part is LegacyImagePart => (part as { type?: unknown } | null)?.type === 'image';
const isLegacyMedia = (item: unknown): item is LegacyMediaItem => (item as { type?: unknown } | null)?.type === 'media';

/** An image as a file part; without a media type, `image` lets the SDK find the subtype from the bytes. */
export function imageFilePart(data: FilePart['data'], mediaType: string | undefined): FilePart {
  return { type: 'file', data, mediaType: mediaType ?? 'image' };
}

function upgradeUser(message: Extract<ModelMessage, { role: 'user' }>): ModelMessage {
  if (!Array.isArray(message.content) || !message.content.some(isLegacyImage)) return message;
  const content = (message.content as unknown[]).map((part) =>
    isLegacyImage(part)
      ? { ...imageFilePart(part.image, part.mediaType), ...(part.providerOptions ? { providerOptions: part.providerOptions } : {}) }
      : part,
  );
  return { ...message, content: content as typeof message.content };
}

function upgradeTool(message: Extract<ModelMessage, { role: 'tool' }>): ModelMessage {
  const hasLegacy = (result: ToolContent[number]) =>
    result.type === 'tool-result' && result.output.type === 'content' && (result.output.value as unknown[]).some(isLegacyMedia);
  if (!message.content.some(hasLegacy)) return message;
  const content = message.content.map((result): ToolContent[number] => {
    if (!hasLegacy(result) || result.type !== 'tool-result' || result.output.type !== 'content') return result;
    const value = (result.output.value as unknown[]).map((item) =>
      isLegacyMedia(item) ? { type: 'file' as const, mediaType: item.mediaType, data: { type: 'data' as const, data: item.data } } : item,
    );
    return { ...result, output: { type: 'content', value: value as typeof result.output.value } };
  });
  return { ...message, content };
}

/** The stored history with legacy parts rewritten (the same array when it has none). */
export function upgradeStoredHistory(stored: unknown): ModelMessage[] {
  const messages = storedMessageHistory(stored);
  let changed = false;
  const upgraded = messages.map((message) => {
    const next = message.role === 'user' ? upgradeUser(message) : message.role === 'tool' ? upgradeTool(message) : message;
    if (next !== message) changed = true;
    return next;
  });
  return changed ? upgraded : messages;
}
