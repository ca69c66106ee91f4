// Assets in the conversation. A message part that references an asset (`{type: "image" | "file",
// asset_id}`) enters the conversation — and so the thread's history — as a reference, `asset:<id>`,
// in place of the bytes: a history stays small however large the files it mentions. Before each
// model request the references are replaced by the assets' content (base64, as the AI SDK takes
// it), read once per attempt. Retired assets are still read: a run that attached one before it was
// retired (or a later run of the same thread) keeps seeing it; only new attachments are refused.
import type { ModelMessage } from 'ai';
import type { CallContext } from '../services/call-context.js';
import { readAssetForRun } from '../features/assets/assets.js';

const REF = /^asset:(ast_[0-9A-HJKMNP-TV-Z]{26})$/;

/** The reference that stands for an asset's bytes in a message part. */
export const assetRef = (assetId: string) => `asset:${assetId}`;

const refOf = (value: unknown): string | null => (typeof value === 'string' ? (REF.exec(value)?.[1] ?? null) : null);

function referencesAssets(message: ModelMessage): boolean {
  return (
    message.role === 'user' &&
    Array.isArray(message.content) &&
    message.content.some((part) => (part.type === 'image' ? refOf(part.image) : part.type === 'file' ? refOf(part.data) : null))
  );
}

export class AssetReader {
  /** Per attempt: each asset's content in base64, read once. */
  private readonly contents = new Map<string, Promise<string>>();

  constructor(private readonly call: CallContext) {}

  /** The messages with every asset reference replaced by the asset's content (the same array when there is none). */
  async forModel(messages: ModelMessage[]): Promise<ModelMessage[]> {
    if (!messages.some(referencesAssets)) return messages;
    return Promise.all(
      messages.map(async (message): Promise<ModelMessage> => {
        if (!referencesAssets(message) || message.role !== 'user' || !Array.isArray(message.content)) return message;
        const content = await Promise.all(
          message.content.map(async (part) => {
            if (part.type === 'image') {
              const id = refOf(part.image);
              return id ? { ...part, image: await this.base64(id) } : part;
            }
            if (part.type === 'file') {
              const id = refOf(part.data);
              return id ? { ...part, data: await this.base64(id) } : part;
            }
            return part;
          }),
        );
        return { ...message, content };
      }),
    );
  }

  private base64(assetId: string): Promise<string> {
    let found = this.contents.get(assetId);
    if (!found) {
      found = readAssetForRun(this.call, assetId).then((bytes) => bytes.toString('base64'));
      this.contents.set(assetId, found);
    }
    return found;
  }
}
