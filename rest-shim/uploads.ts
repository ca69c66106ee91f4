// Streamed uploads for the REST shim: the request body (raw, or the `file` part of a
// multipart/form-data body, parsed by busboy) is written to a temporary file as it arrives, never
// held in memory, and refused with 413 as soon as it passes the limit. The file then reaches the
// GraphQL operation as a `File` backed by that temporary file (fs.openAsBlob: its bytes are read
// when the service streams it), exactly as a GraphQL multipart upload would.
import busboy from 'busboy';
import type { Request } from 'express';
import { randomBytes } from 'node:crypto';
import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { AppError, invalidArgument } from '../src/lib/errors.js';

export interface SpooledUpload {
  file: File;
  /** The other parts of a multipart body, by name. */
  fields: Record<string, string>;
  /** Removes the temporary file. */
  remove(): Promise<void>;
}

export interface UploadLimits {
  maxBytes: number;
  /** Where temporary files are written. */
  dir: string;
}

const MAX_FIELDS = 16;
const MAX_FIELD_BYTES = 64 * 1024;

const tooLarge = (maxBytes: number) =>
  new AppError('payload_too_large', `the file is larger than ${maxBytes} bytes`, { field: 'file', limit_bytes: maxBytes });

/**
 * Writes `source` to a new file at `path`, failing past `maxBytes`. On failure the source is unpiped
 * and drained, not destroyed: the error answer still reaches the client (sent with Connection: close).
 */
function spoolStream(source: Readable, path: string, maxBytes: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
    let seen = 0;
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      if (!error) {
        resolve();
        return;
      }
      source.unpipe(out);
      source.resume();
      // Rejected once the file is closed: its opening may still be under way, and a removal before
      // that would find nothing and leave the file behind when the open then creates it.
      out.once('close', () => reject(error));
      out.destroy();
    };
    source.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(tooLarge(maxBytes));
    });
    source.on('error', (error) => finish(invalidArgument(`the request body could not be read: ${error.message}`, 'body')));
    source.on('aborted', () => finish(invalidArgument('the request body was cut short', 'body')));
    out.on('error', finish);
    out.on('finish', () => finish());
    signal?.addEventListener('abort', () => finish(signal.reason), { once: true });
    source.pipe(out);
  });
}

/** Reads the upload of `req` (see the module comment). The caller removes the file when done. */
export async function spoolUpload(req: Request, limits: UploadLimits): Promise<SpooledUpload> {
  const encoding = req.get('content-encoding');
  if (encoding && encoding.trim().toLowerCase() !== 'identity')
    throw invalidArgument('uploads are stored as sent: send them without Content-Encoding', 'Content-Encoding');
  const declaredLength = Number(req.get('content-length') ?? NaN);
  if (Number.isFinite(declaredLength) && declaredLength > limits.maxBytes + (isMultipart(req) ? 64 * 1024 : 0))
    throw tooLarge(limits.maxBytes);
  await mkdir(limits.dir, { recursive: true });
  const path = join(limits.dir, `upload-${Date.now()}-${randomBytes(8).toString('hex')}`);
  const remove = () => rm(path, { force: true });
  try {
    if (isMultipart(req)) {
      const { fields, filename, type } = await spoolMultipart(req, path, limits.maxBytes);
      return { file: new File([await openAsBlob(path)], filename, { type }), fields, remove };
    }
    const type = req.get('content-type') ?? '';
    if (!type) throw invalidArgument('send the file as the request body with its Content-Type (or as multipart/form-data)', 'Content-Type');
    await spoolStream(req, path, limits.maxBytes);
    return { file: new File([await openAsBlob(path)], '', { type }), fields: {}, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

const isMultipart = (req: Request) => /^multipart\/form-data\b/i.test(req.get('content-type') ?? '');

function spoolMultipart(
  req: Request,
  path: string,
  maxBytes: number,
): Promise<{ fields: Record<string, string>; filename: string; type: string }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1 },
      });
    } catch (error) {
      reject(invalidArgument(`the multipart body cannot be read: ${(error as Error).message}`, 'Content-Type'));
      return;
    }
    const fields: Record<string, string> = {};
    let file: Promise<{ filename: string; type: string }> | null = null;
    const stopFile = new AbortController();
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      // The rest of the body is read and dropped, so the answer reaches the client.
      req.resume();
      // A file part still being written is stopped, and the refusal waits for its file to close:
      // the caller removes the file next, and a removal before the close would leave it behind.
      stopFile.abort(error);
      const settled = file ?? Promise.resolve();
      settled.then(
        () => reject(error),
        () => reject(error),
      );
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated)
        fail(invalidArgument(`the part ${JSON.stringify(name.slice(0, 64))} is larger than ${MAX_FIELD_BYTES} bytes`, name));
      else if (Object.hasOwn(fields, name)) fail(invalidArgument(`the part ${JSON.stringify(name.slice(0, 64))} appears twice`, name));
      else fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || file) {
        stream.resume();
        fail(invalidArgument('a multipart upload has one file part, named "file"', name === 'file' ? 'file' : name.slice(0, 64)));
        return;
      }
      file = spoolStream(stream, path, maxBytes, stopFile.signal).then(() => ({
        filename: info.filename ?? '',
        type: info.mimeType ?? '',
      }));
      file.catch((error: unknown) => {
        stream.resume();
        fail(error);
      });
    });
    parser.on('partsLimit', () => fail(invalidArgument(`a multipart upload has at most ${MAX_FIELDS + 1} parts`, 'body')));
    parser.on('fieldsLimit', () => fail(invalidArgument(`a multipart upload has at most ${MAX_FIELDS} fields`, 'body')));
    parser.on('filesLimit', () => fail(invalidArgument('a multipart upload has one file part, named "file"', 'file')));
    parser.on('error', (error: Error) =>
      fail(invalidArgument(`the multipart body cannot be read: ${error.message.slice(0, 200)}`, 'body')),
    );
    parser.on('close', () => {
      if (failed) return;
      if (!file) {
        fail(invalidArgument('the multipart body has no part named "file"', 'file'));
        return;
      }
      file.then(
        (found) => resolve({ fields, ...found }),
        (error: unknown) => fail(error),
      );
    });
    req.on('error', (error) => fail(invalidArgument(`the request body could not be read: ${error.message}`, 'body')));
    req.pipe(parser);
  });
}
