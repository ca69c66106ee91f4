// Assets in an S3-compatible bucket (ASSET_S3_BUCKET): large uploads through REST go to the bucket
// (a loopback server speaking the S3 REST protocol, path-style, checking SigV4 credentials), not to
// DATA_DIR; the same bytes are not uploaded twice; lists, whole and ranged downloads and retiring
// work as with files; rows written as files before the bucket was configured are still served; and a
// bucket that cannot be reached answers 503 `unavailable`, never a 500 or a hang.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { assetFiles } from '../../src/features/assets/assets.js';
import { newId } from '../../src/lib/ids.js';

const INLINE_MAX = 4096;
const MAX = 20 * 1024 * 1024;
const PREFIX = 'tenant-a/assets';

let t: TestApp;
let s3: S3Server;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function upload(bytes: Buffer, contentType: string, query = '') {
  const response = await fetch(`${t.url}/api/v1/assets${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': contentType },
    body: new Uint8Array(bytes),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function download(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.apiKey}`, ...headers } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** Files under DATA_DIR/assets other than the temporary directory (content-addressed files). */
const filesOnDisk = () => {
  const root = join(t.app.deps.config.dataDir, 'assets');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.parentPath.endsWith('tmp'))
    .map((entry) => entry.name);
};

beforeAll(async () => {
  s3 = await startS3Server();
  t = await startTestApp({
    assetInlineMaxBytes: INLINE_MAX,
    assetMaxBytes: MAX,
    assetS3: {
      bucket: s3.bucket,
      endpoint: s3.url,
      region: 'us-east-1',
      prefix: PREFIX,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    },
  });
});
afterAll(async () => {
  await t?.stop();
  await s3?.close();
});

describe('assets in an S3-compatible bucket', () => {
  it('a large upload is stored in the bucket under <prefix>/<sha256> with its media type, and read back whole and by range', async () => {
    const bytes = randomBytes(200 * 1024);
    const created = await upload(bytes, 'application/x-test-data', '?name=data.bin');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ size_bytes: bytes.length, sha256: sha256(bytes), media_type: 'application/x-test-data' });

    const object = s3.objects.get(`${PREFIX}/${sha256(bytes)}`);
    expect(object?.body.equals(bytes)).toBe(true);
    expect(object?.contentType).toBe('application/x-test-data');
    expect(filesOnDisk()).toEqual([]);
    const row = await t.app.deps.db.asset.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.storage).toBe('s3');
    expect(row.content).toBeNull();

    const whole = await download(created.body.content_url);
    expect(whole.status).toBe(200);
    expect(whole.bytes.equals(bytes)).toBe(true);
    expect(whole.headers.get('etag')).toBe(`"${sha256(bytes)}"`);

    const ranged = await download(created.body.content_url, { range: 'bytes=1000-1999' });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(ranged.bytes.equals(bytes.subarray(1000, 2000))).toBe(true);
    // The bucket was asked for exactly the range (a ranged GetObject), not the whole object.
    expect(s3.log.filter((line) => line.startsWith(`GET ${PREFIX}/${sha256(bytes)}`)).at(-1)).toMatch(/ bytes=1000-1999$/);

    const suffix = await download(created.body.content_url, { range: 'bytes=-10' });
    expect(suffix.status).toBe(206);
    expect(suffix.bytes.equals(bytes.subarray(bytes.length - 10))).toBe(true);

    // Small files stay in the database: the bucket is not involved.
    const small = await upload(Buffer.from('a small note'), 'text/plain');
    expect(small.status).toBe(201);
    const smallRow = await t.app.deps.db.asset.findUniqueOrThrow({ where: { id: small.body.id } });
    expect(smallRow.storage).toBe('database');
    expect(s3.objects.has(`${PREFIX}/${sha256(Buffer.from('a small note'))}`)).toBe(false);
  });

  it('a file over the part size goes up as a multipart upload; the same bytes again are not uploaded twice', async () => {
    const bytes = randomBytes(9 * 1024 * 1024 + 123);
    const before = s3.multipartCompleted;
    const first = await upload(bytes, 'application/octet-stream', '?name=big.bin');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(s3.multipartCompleted).toBe(before + 1);
    const key = `${PREFIX}/${sha256(bytes)}`;
    expect(s3.objects.get(key)?.body.equals(bytes)).toBe(true);

    const puts = () => s3.log.filter((line) => /^(PUT|POST) /.test(line) && line.includes(key)).length;
    const putsBefore = puts();
    const second = await upload(bytes, 'application/octet-stream', '?name=big-again.bin');
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    // A HEAD found the object with the same length: nothing was written.
    expect(puts()).toBe(putsBefore);
    expect(s3.log.filter((line) => line.startsWith(`HEAD ${key}`)).length).toBeGreaterThanOrEqual(2);

    const tail = await download(second.body.content_url, { range: `bytes=${bytes.length - 5000}-` });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(bytes.subarray(bytes.length - 5000))).toBe(true);
    const whole = await download(first.body.content_url);
    expect(whole.bytes.equals(bytes)).toBe(true);
    expect(filesOnDisk()).toEqual([]);
    expect(readdirSync(join(t.app.deps.config.dataDir, 'assets', 'tmp'))).toEqual([]);
  });

  it('lists and retires bucket assets as any other; the content of a retired one stays readable', async () => {
    const bytes = randomBytes(64 * 1024);
    const created = await upload(bytes, 'application/x-test-data', '?name=to-retire.bin&label=store:s3');
    expect(created.status).toBe(201);
    const listed = await t.rest('GET', '/api/v1/assets?label=store:s3');
    expect(listed.body.items.map((item: { id: string }) => item.id)).toEqual([created.body.id]);
    const retired = await t.rest('DELETE', `/api/v1/assets/${created.body.id}`);
    expect(retired.status).toBe(200);
    expect(retired.body.retired_at).not.toBeNull();
    expect((await t.rest('GET', '/api/v1/assets?label=store:s3')).body.items).toEqual([]);
    const content = await download(created.body.content_url, { range: 'bytes=0-99' });
    expect(content.status).toBe(206);
    expect(content.bytes.equals(bytes.subarray(0, 100))).toBe(true);
  });

  it('rows stored as files before the bucket was configured are still read from DATA_DIR', async () => {
    const bytes = randomBytes(50_000);
    const files = assetFiles(t.app.deps);
    const ingested = await files.ingest(
      (async function* () {
        yield bytes;
      })(),
      { maxBytes: MAX, inlineMaxBytes: INLINE_MAX },
    );
    await ingested.commit(files, 'application/octet-stream');
    const { createdById } = await t.app.deps.db.asset.findFirstOrThrow({ where: { workspaceId: t.workspaceId } });
    const id = newId('asset');
    await t.app.deps.db.asset.create({
      data: {
        id,
        workspaceId: t.workspaceId,
        name: 'legacy.bin',
        mediaType: 'application/octet-stream',
        sizeBytes: bytes.length,
        sha256: sha256(bytes),
        storage: 'file',
        createdById,
        updatedById: createdById,
      },
    });
    const whole = await download(`/api/v1/assets/${id}/content`);
    expect(whole.status).toBe(200);
    expect(whole.bytes.equals(bytes)).toBe(true);
    expect(s3.objects.has(`${PREFIX}/${sha256(bytes)}`)).toBe(false);
  });

  it('a bucket that cannot be reached answers 503 unavailable for uploads and downloads, and leaves no temporary file', async () => {
    const stored = randomBytes(30_000);
    const created = await upload(stored, 'application/octet-stream');
    expect(created.status).toBe(201);
    await s3.close();

    const refused = await upload(randomBytes(30_000), 'application/octet-stream');
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body.error.code).toBe('unavailable');
    expect(readdirSync(join(t.app.deps.config.dataDir, 'assets', 'tmp'))).toEqual([]);

    const whole = await fetch(`${t.url}${created.body.content_url}`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    expect(whole.status).toBe(503);
    expect(((await whole.json()) as any).error.code).toBe('unavailable');
    const ranged = await fetch(`${t.url}${created.body.content_url}`, {
      headers: { authorization: `Bearer ${t.apiKey}`, range: 'bytes=0-9' },
    });
    expect(ranged.status).toBe(503);
    expect(((await ranged.json()) as any).error.code).toBe('unavailable');
    // The view does not touch the bucket.
    expect((await t.rest('GET', `/api/v1/assets/${created.body.id}`)).status).toBe(200);
  });
});
