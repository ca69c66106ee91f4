// Asset bytes in an S3-compatible bucket (AWS S3, MinIO, R2, …), for assets larger than the inline
// limit when ASSET_S3_BUCKET is configured. Objects are named by their content (`<prefix>/<sha256>`),
// so assets with the same bytes share one object and an object, once written, never changes: a HEAD
// that finds the object with the same length skips the upload. Uploads stream the spilled temporary
// file through the SDK's multipart Upload (memory stays bounded whatever the size); reads are ranged
// GetObjects of exactly the bytes asked for. Any failure to reach the bucket is `unavailable` (503).
import { createReadStream } from 'node:fs';
import { GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { LargeStore } from './asset-files.js';
import { AppError } from './errors.js';

/** The bucket and how to reach it (ASSET_S3_*, parsed by src/config.ts). */
export interface AssetS3Config {
  bucket: string;
  /** A custom endpoint (MinIO, R2, …); null: AWS's own for the region. */
  endpoint: string | null;
  region: string;
  /** Keys are `<prefix>/<sha256>` (no leading or trailing slash); empty: `<sha256>`. */
  prefix: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`), which most self-hosted stores need. */
  forcePathStyle: boolean;
  /** Static credentials; null: the AWS SDK's default chain (environment, profile, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
}

/** How long one request to the bucket may take to connect, and to answer, before it counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 60_000;

const unavailable = (action: string, error: unknown) =>
  new AppError('unavailable', `the asset bucket could not ${action}; try again later`, {
    reason: error instanceof S3ServiceException ? `${error.name} (HTTP ${error.$metadata.httpStatusCode ?? '?'})` : 'unreachable',
  });

const isNotFound = (error: unknown) =>
  error instanceof S3ServiceException &&
  (error.$metadata.httpStatusCode === 404 || error.name === 'NotFound' || error.name === 'NoSuchKey');

export class AssetBucket implements LargeStore {
  readonly kind = 's3';
  readonly client: S3Client;

  constructor(readonly config: AssetS3Config) {
    this.client = new S3Client({
      region: config.region,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      forcePathStyle: config.forcePathStyle,
      ...(config.credentials ? { credentials: config.credentials } : {}),
      // A bucket that does not answer must fail the request, not hold it: bounded connects and
      // answers, and one retry (the SDK's default of three attempts triples the wait).
      maxAttempts: 2,
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      // Checksums only when the operation requires them: compatible stores differ in what they accept.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  keyOf(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error('not a sha256 digest');
    return this.config.prefix ? `${this.config.prefix}/${sha256}` : sha256;
  }

  /** Whether the object of `sha256` exists with `sizeBytes` bytes. */
  async has(sha256: string, sizeBytes: number): Promise<boolean> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.keyOf(sha256) }));
      return head.ContentLength === sizeBytes;
    } catch (error) {
      // AWS answers a HEAD of a missing key with 403 to credentials without s3:ListBucket: then the
      // upload is simply made (credentials that are refused outright fail it with `unavailable`).
      if (isNotFound(error) || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 403)) return false;
      throw unavailable('be reached', error);
    }
  }

  /** Uploads the file at `path` as the object of `sha256` (unless the same bytes are there already). */
  async put(path: string, content: { sha256: string; sizeBytes: number; mediaType: string }): Promise<void> {
    if (await this.has(content.sha256, content.sizeBytes)) return;
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.config.bucket,
        Key: this.keyOf(content.sha256),
        Body: createReadStream(path),
        ContentType: content.mediaType,
        ContentLength: content.sizeBytes,
      },
      // Parts of 8 MiB, two at a time: at most 16 MiB of an upload in memory.
      partSize: 8 * 1024 * 1024,
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      throw unavailable('store the file', error);
    }
  }

  /** `length` bytes of the object of `sha256` from `offset` (fewer at its end): one ranged GetObject. */
  async read(sha256: string, offset: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.config.bucket, Key: this.keyOf(sha256), Range: `bytes=${offset}-${offset + length - 1}` }),
      );
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (error) {
      // A row names an object the bucket does not have: the bucket was emptied or changed under the service.
      if (isNotFound(error))
        throw new AppError('unavailable', 'the asset content is missing from the asset bucket', { reason: 'NoSuchKey' });
      throw unavailable('be read', error);
    }
  }
}

// One client per configuration (its connections are pooled), made on first use.
const buckets = new WeakMap<AssetS3Config, AssetBucket>();

export function assetBucket(config: AssetS3Config): AssetBucket {
  let bucket = buckets.get(config);
  if (!bucket) buckets.set(config, (bucket = new AssetBucket(config)));
  return bucket;
}
