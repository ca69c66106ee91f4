// The S3 asset store's configuration (ASSET_S3_*: checked at start-up, each error naming its
// variable) and its client against the loopback S3 server: content-addressed keys under the prefix,
// ranged reads, and credentials the bucket refuses answered as `unavailable`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, type AssetS3Config } from '../../src/config.js';
import { AssetBucket } from '../../src/lib/asset-bucket.js';
import { AppError } from '../../src/lib/errors.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

const load = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', ...env }).assetS3;

describe('ASSET_S3_* configuration', () => {
  it('is off without a bucket, and complete with one', () => {
    expect(load({})).toBeNull();
    expect(
      load({
        ASSET_S3_BUCKET: 'my-assets',
        ASSET_S3_ENDPOINT: 'http://minio.internal:9000/',
        ASSET_S3_PREFIX: '/prod/assets/',
        ASSET_S3_FORCE_PATH_STYLE: 'true',
        ASSET_S3_ACCESS_KEY_ID: 'AKIA1',
        ASSET_S3_SECRET_ACCESS_KEY: 'secret',
      }),
    ).toEqual({
      bucket: 'my-assets',
      endpoint: 'http://minio.internal:9000',
      region: 'us-east-1',
      prefix: 'prod/assets',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIA1', secretAccessKey: 'secret' },
    });
    // AWS itself: the region is required, credentials may come from the SDK's default chain.
    expect(load({ ASSET_S3_BUCKET: 'my-assets', ASSET_S3_REGION: 'eu-west-1' })).toMatchObject({
      endpoint: null,
      credentials: null,
      prefix: '',
    });
  });

  it.each([
    [{ ASSET_S3_PREFIX: 'x' }, /ASSET_S3_PREFIX set without ASSET_S3_BUCKET/],
    [{ ASSET_S3_BUCKET: 'Bad_Bucket', ASSET_S3_REGION: 'eu-west-1' }, /ASSET_S3_BUCKET must be a bucket name/],
    [{ ASSET_S3_BUCKET: 'assets' }, /ASSET_S3_REGION \(or AWS_REGION\) is required/],
    [{ ASSET_S3_BUCKET: 'assets', ASSET_S3_ENDPOINT: 'ftp://host' }, /ASSET_S3_ENDPOINT must be an http\(s\) URL/],
    [{ ASSET_S3_BUCKET: 'assets', ASSET_S3_ENDPOINT: 'not a url' }, /ASSET_S3_ENDPOINT must be an http\(s\) URL/],
    [{ ASSET_S3_BUCKET: 'assets', ASSET_S3_REGION: 'EU West' }, /ASSET_S3_REGION must be a region name/],
    [{ ASSET_S3_BUCKET: 'assets', ASSET_S3_REGION: 'eu-west-1', ASSET_S3_PREFIX: 'a/../b' }, /ASSET_S3_PREFIX must be a key prefix/],
    [{ ASSET_S3_BUCKET: 'assets', ASSET_S3_REGION: 'eu-west-1', ASSET_S3_ACCESS_KEY_ID: 'AKIA1' }, /must be set together/],
    [
      { ASSET_S3_BUCKET: 'assets', ASSET_S3_REGION: 'eu-west-1', ASSET_S3_FORCE_PATH_STYLE: 'maybe' },
      /ASSET_S3_FORCE_PATH_STYLE must be true or false/,
    ],
  ])('refuses %j', (env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });
});

describe('AssetBucket against a loopback S3 server', () => {
  let s3: S3Server;
  let config: AssetS3Config;
  beforeAll(async () => {
    s3 = await startS3Server();
    config = {
      bucket: s3.bucket,
      endpoint: s3.url,
      region: 'us-east-1',
      prefix: 'p',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    };
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('puts content under <prefix>/<sha256>, skips the same bytes, and reads ranges', async () => {
    const bytes = randomBytes(10_000);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const path = join(mkdtempSync(join(tmpdir(), 'asset-bucket-')), 'spill');
    writeFileSync(path, bytes);
    const bucket = new AssetBucket(config);
    await bucket.put(path, { sha256, sizeBytes: bytes.length, mediaType: 'text/csv' });
    expect(s3.objects.get(`p/${sha256}`)?.contentType).toBe('text/csv');
    const writes = s3.log.filter((line) => line.startsWith('PUT')).length;
    await bucket.put(path, { sha256, sizeBytes: bytes.length, mediaType: 'text/csv' });
    expect(s3.log.filter((line) => line.startsWith('PUT')).length).toBe(writes);
    expect((await bucket.read(sha256, 9_990, 100)).equals(bytes.subarray(9_990))).toBe(true);
    expect((await bucket.read(sha256, 5, 3)).equals(bytes.subarray(5, 8))).toBe(true);
  });

  it('credentials the bucket refuses, and a missing object, are unavailable (503), naming the reason', async () => {
    const wrong = new AssetBucket({ ...config, credentials: { accessKeyId: 'AKIAWRONG', secretAccessKey: 'x' } });
    const refused = await wrong.read('0'.repeat(64), 0, 10).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'unavailable', details: { reason: expect.stringContaining('403') } });
    const missing = await new AssetBucket(config).read('1'.repeat(64), 0, 10).catch((error: unknown) => error);
    expect(missing).toMatchObject({ code: 'unavailable', details: { reason: 'NoSuchKey' } });
  });
});
