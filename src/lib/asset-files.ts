// Where asset bytes live. Small files are kept in the database row (one read, backed up with the
// rest); larger ones are files under `<DATA_DIR>/assets/<aa>/<sha256>`, named by their content so
// that two assets with the same bytes share one file and a file, once written, never changes.
// Ingesting reads a stream once: it hashes and counts as it goes, keeps the bytes in memory while
// they fit the inline limit and spills to a temporary file beyond it, and stops at the size limit.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from './errors.js';

/** How many leading bytes are kept for sniffing the media type (what `file-type` reads at most). */
export const SNIFF_BYTES = 4100;

export interface IngestLimits {
  /** Larger: refused with `payload_too_large` (413), as soon as the stream passes it. */
  maxBytes: number;
  /** Up to this size the bytes stay in memory (and go to the database). */
  inlineMaxBytes: number;
}

export interface Ingested {
  sha256: string;
  sizeBytes: number;
  /** The first SNIFF_BYTES bytes (fewer when the content is shorter). */
  head: Buffer;
  /** The bytes, when they fit the inline limit; otherwise null and `commit` stores the file. */
  inline: Buffer | null;
  /** Hands a spilled file to `store`, at its content-addressed place (nothing for inline content; once). */
  commit(store: LargeStore, mediaType: string): Promise<void>;
  /** Removes a spilled temporary file (after a refusal). */
  discard(): Promise<void>;
}

/** Where content larger than the inline limit is kept: files under DATA_DIR, or an S3-compatible bucket. */
export interface LargeStore {
  /** The value of the asset row's `storage` column for content kept here. */
  readonly kind: 'file' | 's3';
  /** Stores the spilled file at `path` as the content of `sha256` (it may move the file away). */
  put(path: string, content: { sha256: string; sizeBytes: number; mediaType: string }): Promise<void>;
  /** `length` bytes of the content of `sha256` from `offset` (fewer at its end). */
  read(sha256: string, offset: number, length: number): Promise<Buffer>;
}

export const tooLarge = (maxBytes: number) =>
  new AppError('payload_too_large', `the file is larger than ${maxBytes} bytes`, { field: 'file', limit_bytes: maxBytes });

export class AssetFiles implements LargeStore {
  readonly kind = 'file';
  constructor(readonly root: string) {}

  pathOf(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error('not a sha256 digest');
    return join(this.root, sha256.slice(0, 2), sha256);
  }

  /** Reads `chunks` to the end (see the module comment); throws `payload_too_large` past `maxBytes`. */
  async ingest(chunks: AsyncIterable<Uint8Array>, limits: IngestLimits): Promise<Ingested> {
    const hash = createHash('sha256');
    const held: Buffer[] = [];
    let size = 0;
    let spill: { path: string; handle: Awaited<ReturnType<typeof open>> } | null = null;
    const discard = async () => {
      if (!spill) return;
      await spill.handle.close().catch(() => undefined);
      await rm(spill.path, { force: true });
    };
    try {
      for await (const chunk of chunks) {
        const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        size += bytes.length;
        if (size > limits.maxBytes) throw tooLarge(limits.maxBytes);
        hash.update(bytes);
        if (!spill && size <= limits.inlineMaxBytes) {
          held.push(Buffer.from(bytes));
          continue;
        }
        if (!spill) {
          await mkdir(join(this.root, 'tmp'), { recursive: true });
          const path = join(this.root, 'tmp', `${Date.now()}-${randomBytes(8).toString('hex')}`);
          spill = { path, handle: await open(path, 'wx', 0o600) };
          for (const part of held) await spill.handle.write(part);
          held.length = 0;
        }
        await spill.handle.write(bytes);
      }
      if (spill) await spill.handle.close();
    } catch (error) {
      await discard();
      throw error;
    }
    const sha256 = hash.digest('hex');
    const inline = spill ? null : Buffer.concat(held);
    const head = inline ? inline.subarray(0, SNIFF_BYTES) : await this.readHead(spill!.path);
    let spilled = spill;
    return {
      sha256,
      sizeBytes: size,
      head,
      inline,
      discard,
      commit: async (store, mediaType) => {
        if (!spilled) return;
        await store.put(spilled.path, { sha256, sizeBytes: size, mediaType });
        // The file store moved it; a bucket copied it.
        await rm(spilled.path, { force: true });
        spilled = null;
      },
    };
  }

  async put(path: string, content: { sha256: string; sizeBytes: number }): Promise<void> {
    const target = this.pathOf(content.sha256);
    await mkdir(join(this.root, content.sha256.slice(0, 2)), { recursive: true });
    // Same name, same bytes: a file already there is kept and the spilled copy dropped.
    const present = await stat(target).catch(() => null);
    if (present && present.size === content.sizeBytes) await rm(path, { force: true });
    else await rename(path, target);
  }

  private async readHead(path: string): Promise<Buffer> {
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(SNIFF_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  /** `length` bytes of the file of `sha256` from `offset` (fewer at its end). */
  async read(sha256: string, offset: number, length: number): Promise<Buffer> {
    const handle = await open(this.pathOf(sha256), 'r');
    try {
      const buffer = Buffer.alloc(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }
}
