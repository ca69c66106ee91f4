// A loopback server speaking the part of the S3 REST protocol the asset store uses, path-style
// (`/<bucket>/<key>`): PutObject, GetObject (with a single `Range: bytes=a-b`), HeadObject,
// DeleteObject, and multipart uploads (CreateMultipartUpload `POST ?uploads`, UploadPart
// `PUT ?partNumber&uploadId`, CompleteMultipartUpload `POST ?uploadId`, AbortMultipartUpload
// `DELETE ?uploadId`). Errors are S3's XML documents. Every request must carry a SigV4
// `Authorization` header whose credential names the configured access key (else 403
// InvalidAccessKeyId / AccessDenied), and an `x-amz-date`. Bodies sent with `aws-chunked`
// content encoding are decoded. Objects live in memory: the test inspects `objects`.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredObject {
  body: Buffer;
  contentType: string;
  etag: string;
}

export interface S3Server {
  url: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Objects by key. */
  objects: Map<string, StoredObject>;
  /** Every request as `METHOD key?query[ Range]` (for asserting what the client did). */
  log: string[];
  /** Multipart uploads completed. */
  multipartCompleted: number;
  close(): Promise<void>;
}

const xml = (res: ServerResponse, status: number, body: string) => {
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const s3Error = (res: ServerResponse, status: number, code: string, message: string, head = false) => {
  if (head) {
    res.writeHead(status).end();
    return;
  }
  xml(res, status, `<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${randomUUID()}</RequestId></Error>`);
};

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/** Decodes an `aws-chunked` body: `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n`…, ending with a 0-size chunk (trailers ignored). */
function decodeAwsChunked(raw: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) throw new Error('aws-chunked: missing chunk header');
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size)) throw new Error('aws-chunked: bad chunk size');
    at = lineEnd + 2;
    if (size === 0) return Buffer.concat(out);
    out.push(raw.subarray(at, at + size));
    at += size + 2;
  }
}

const md5Etag = (bytes: Buffer) => `"${createHash('md5').update(bytes).digest('hex')}"`;

export async function startS3Server(options: { bucket?: string; accessKeyId?: string; secretAccessKey?: string } = {}): Promise<S3Server> {
  const bucket = options.bucket ?? 'assets-test';
  const accessKeyId = options.accessKeyId ?? 'AKIALOOPBACKTEST0001';
  const secretAccessKey = options.secretAccessKey ?? 'loopback-secret-key-0000000000000000';
  const objects = new Map<string, StoredObject>();
  const uploads = new Map<string, { key: string; contentType: string; parts: Map<number, Buffer> }>();
  const log: string[] = [];
  const state = { multipartCompleted: 0 };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://loopback');
    const head = req.method === 'HEAD';
    const raw = await readBody(req);
    const [, bucketName, ...keyParts] = url.pathname.split('/');
    const key = keyParts.map(decodeURIComponent).join('/');
    log.push(`${req.method} ${key}${url.search}${req.headers.range ? ` ${req.headers.range}` : ''}`);

    // SigV4: `AWS4-HMAC-SHA256 Credential=<key id>/<date>/<region>/s3/aws4_request, SignedHeaders=…, Signature=…`.
    const auth = req.headers.authorization ?? '';
    const credential =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/\d{8}\/[a-z0-9-]+\/s3\/aws4_request, ?SignedHeaders=[a-z0-9;-]+, ?Signature=[0-9a-f]{64}$/.exec(
        auth,
      );
    if (!credential || !req.headers['x-amz-date'])
      return s3Error(res, 403, 'AccessDenied', 'a SigV4 Authorization header is required', head);
    if (credential[1] !== accessKeyId) return s3Error(res, 403, 'InvalidAccessKeyId', 'the access key does not exist', head);
    if (bucketName !== bucket) return s3Error(res, 404, 'NoSuchBucket', 'the bucket does not exist', head);
    if (!key) return s3Error(res, 400, 'InvalidRequest', 'a key is required', head);

    const chunked =
      /aws-chunked/.test(String(req.headers['content-encoding'] ?? '')) ||
      String(req.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');
    const body = chunked ? decodeAwsChunked(raw) : raw;
    const uploadId = url.searchParams.get('uploadId');

    if (req.method === 'POST' && url.searchParams.has('uploads')) {
      const id = randomUUID();
      uploads.set(id, { key, contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'), parts: new Map() });
      return xml(
        res,
        200,
        `<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
      );
    }
    if (uploadId !== null) {
      const upload = uploads.get(uploadId);
      if (!upload || upload.key !== key) return s3Error(res, 404, 'NoSuchUpload', 'the upload does not exist', head);
      if (req.method === 'PUT') {
        const partNumber = Number(url.searchParams.get('partNumber'));
        if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000)
          return s3Error(res, 400, 'InvalidArgument', 'bad partNumber');
        upload.parts.set(partNumber, body);
        res.writeHead(200, { etag: md5Etag(body) }).end();
        return;
      }
      if (req.method === 'DELETE') {
        uploads.delete(uploadId);
        res.writeHead(204).end();
        return;
      }
      if (req.method === 'POST') {
        const listed = [
          ...body
            .toString('utf8')
            .matchAll(/<PartNumber>(\d+)<\/PartNumber>\s*<ETag>([^<]+)<\/ETag>|<ETag>([^<]+)<\/ETag>\s*<PartNumber>(\d+)<\/PartNumber>/g),
        ].map((match) => ({ number: Number(match[1] ?? match[4]), etag: (match[2] ?? match[3])!.replace(/&quot;/g, '"') }));
        if (listed.length === 0) return s3Error(res, 400, 'MalformedXML', 'no parts listed');
        const pieces: Buffer[] = [];
        for (const part of listed) {
          const bytes = upload.parts.get(part.number);
          if (!bytes || md5Etag(bytes) !== part.etag) return s3Error(res, 400, 'InvalidPart', `part ${part.number} is missing or changed`);
          pieces.push(bytes);
        }
        const whole = Buffer.concat(pieces);
        const etag = `"${createHash('md5')
          .update(Buffer.concat(pieces.map((p) => createHash('md5').update(p).digest())))
          .digest('hex')}-${pieces.length}"`;
        objects.set(key, { body: whole, contentType: upload.contentType, etag });
        uploads.delete(uploadId);
        state.multipartCompleted += 1;
        return xml(
          res,
          200,
          `<CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><ETag>${etag.replace(/"/g, '&quot;')}</ETag></CompleteMultipartUploadResult>`,
        );
      }
    }
    if (req.method === 'PUT') {
      const stored = { body, contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'), etag: md5Etag(body) };
      objects.set(key, stored);
      res.writeHead(200, { etag: stored.etag }).end();
      return;
    }
    if (req.method === 'DELETE') {
      objects.delete(key);
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET' || head) {
      const object = objects.get(key);
      if (!object) return s3Error(res, 404, 'NoSuchKey', 'the key does not exist', head);
      const size = object.body.length;
      const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? ''));
      const headers = {
        'content-type': object.contentType,
        etag: object.etag,
        'accept-ranges': 'bytes',
        'last-modified': new Date(0).toUTCString(),
      };
      if (range) {
        const start = Number(range[1]);
        const end = Math.min(range[2] ? Number(range[2]) : size - 1, size - 1);
        if (start >= size) return s3Error(res, 416, 'InvalidRange', 'the range is not satisfiable', head);
        const slice = object.body.subarray(start, end + 1);
        res.writeHead(206, { ...headers, 'content-length': slice.length, 'content-range': `bytes ${start}-${end}/${size}` });
        res.end(head ? undefined : slice);
        return;
      }
      res.writeHead(200, { ...headers, 'content-length': size });
      res.end(head ? undefined : object.body);
      return;
    }
    s3Error(res, 405, 'MethodNotAllowed', 'the method is not allowed');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => s3Error(res, 500, 'InternalError', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId,
    secretAccessKey,
    objects,
    log,
    get multipartCompleted() {
      return state.multipartCompleted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
