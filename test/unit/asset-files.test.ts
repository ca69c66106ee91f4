// The asset store's pieces without a database: ingesting a stream (in memory up to the inline limit,
// spilled to a temporary file and moved to its content-addressed place beyond it, refused past the
// size limit, nothing left behind), reading ranges back, and the media type rules.
import { afterAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssetFiles } from '../../src/lib/asset-files.js';
import { declaredMediaType, settleMediaType } from '../../src/features/assets/assets.js';

const root = mkdtempSync(join(tmpdir(), 'asset-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function* chunks(bytes: Buffer, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe('AssetFiles', () => {
  const files = new AssetFiles(root);

  it('keeps small content in memory and spills larger content to a content-addressed file', async () => {
    const small = randomBytes(100);
    const kept = await files.ingest(chunks(small, 30), { maxBytes: 10_000, inlineMaxBytes: 1000 });
    expect(kept.inline?.equals(small)).toBe(true);
    expect(kept.sha256).toBe(createHash('sha256').update(small).digest('hex'));
    expect(kept.head.equals(small)).toBe(true);

    const large = randomBytes(9000);
    const spilled = await files.ingest(chunks(large, 1000), { maxBytes: 10_000, inlineMaxBytes: 1000 });
    expect(spilled.inline).toBeNull();
    expect(spilled.sizeBytes).toBe(9000);
    expect(spilled.head.equals(large.subarray(0, 4100))).toBe(true);
    await spilled.commit(files, 'application/octet-stream');
    expect(existsSync(files.pathOf(spilled.sha256))).toBe(true);
    expect((await files.read(spilled.sha256, 8990, 100)).equals(large.subarray(8990))).toBe(true);
    expect(readdirSync(join(root, 'tmp'))).toEqual([]);

    // The same bytes again: the file stays, the spilled copy goes.
    const again = await files.ingest(chunks(large, 4096), { maxBytes: 10_000, inlineMaxBytes: 1000 });
    await again.commit(files, 'application/octet-stream');
    expect(readdirSync(join(root, 'tmp'))).toEqual([]);
  });

  it('refuses content past the size limit with payload_too_large and removes what it spilled', async () => {
    await expect(files.ingest(chunks(randomBytes(5000), 700), { maxBytes: 4000, inlineMaxBytes: 1000 })).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    expect(readdirSync(join(root, 'tmp'))).toEqual([]);
  });
});

describe('media types', () => {
  const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
  // A ZIP's local file header: what office documents and packages start with.
  const ZIP = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 0, 0]), Buffer.alloc(40)]);

  it('normalizes declarations', () => {
    expect(declaredMediaType('Text/CSV; charset=utf-8')).toBe('text/csv');
    expect(declaredMediaType('image/jpg')).toBe('image/jpeg');
    expect(declaredMediaType('application/octet-stream')).toBeNull();
    expect(declaredMediaType('')).toBeNull();
    expect(() => declaredMediaType('png')).toThrow(/media type/);
  });

  it('takes what the bytes are, refuses contradictions, allows containers and unsigned formats', async () => {
    expect(await settleMediaType(null, PNG)).toBe('image/png');
    expect(await settleMediaType(null, Buffer.from('just text'))).toBe('application/octet-stream');
    expect(await settleMediaType('image/png', PNG)).toBe('image/png');
    await expect(settleMediaType('image/gif', PNG)).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(settleMediaType('image/png', Buffer.from('not an image'))).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(await settleMediaType('text/markdown', Buffer.from('# Title'))).toBe('text/markdown');
    expect(await settleMediaType('application/vnd.example+zip', ZIP)).toBe('application/vnd.example+zip');
    await expect(settleMediaType('text/plain', ZIP)).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
