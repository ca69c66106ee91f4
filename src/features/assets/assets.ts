// Assets: immutable files of the workspace — uploads, and agent avatars, on the same store. An asset's
// bytes never change; its name, description and labels are fixed at upload. Small files are kept in
// the database, larger ones content-addressed either as files under DATA_DIR (src/lib/asset-files.ts)
// or, when ASSET_S3_BUCKET is configured, as objects of an S3-compatible bucket (asset-bucket.ts). The
// media type is sniffed from the bytes and checked against the declared one. DELETE retires an
// asset (spec: Lifecycles): its content stays readable, lists leave it out unless asked, and new
// runs cannot attach it.
import { join } from 'node:path';
import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type';
import { AppError, invalidArgument, notFound, quoteInput } from '../../lib/errors.js';
import { assetBucket } from '../../lib/asset-bucket.js';
import { AssetFiles, tooLarge, type Ingested, type LargeStore } from '../../lib/asset-files.js';
import { newId } from '../../lib/ids.js';
import { validateLabels } from '../../lib/labels.js';
import { validateDescription, validateName } from '../../lib/text-fields.js';
import { AUDIT_COLUMNS, auditValues } from '../audit/audit.js';
import { auditWebhookEvent, enqueueExpression } from '../webhooks/webhook-events.js';
import { queryDirect } from '../../db.js';
import { returningColumns } from '../../storage/columns.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import type { Deps } from '../../services/deps.js';
import { isAssetPart, type MessageContent } from '../runs/run-input.js';
import { requirePermission } from '../access/permissions.js';
import { changeVersioned } from '../../services/versioned.js';
import { listQuery, NAME_AND_DESCRIPTION, newestFirst } from '../../services/list-query.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import { Prisma as PrismaSql, type Asset } from '../../generated/prisma/client.js';

const RESOURCE_KIND = 'asset';
export const MAX_IMAGE_BYTES = 1024 * 1024;
/** The most bytes one content read answers (GraphQL `content`; the REST download reads in such chunks). */
export const MAX_CONTENT_CHUNK_BYTES = 4 * 1024 * 1024;

const IMAGE_SIGNATURES: [string, (bytes: Buffer) => boolean][] = [
  ['image/png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/gif', (b) => b.subarray(0, 6).toString('latin1') === 'GIF87a' || b.subarray(0, 6).toString('latin1') === 'GIF89a'],
  ['image/webp', (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
];

/** Decodes and checks an uploaded image: declared type must be a supported image type and match the bytes. */
export function decodeImage(mediaType: string, contentBase64: string): Buffer {
  const declared = mediaType.split(';')[0]!.trim().toLowerCase();
  const check = IMAGE_SIGNATURES.find(([type]) => type === declared);
  if (!check) throw invalidArgument(`avatars must be ${IMAGE_SIGNATURES.map(([type]) => type).join(', ')}`, 'Content-Type');
  const bytes = Buffer.from(contentBase64, 'base64');
  if (bytes.length === 0) throw invalidArgument('the image is empty', 'body');
  if (bytes.length > MAX_IMAGE_BYTES) throw invalidArgument(`the image is larger than ${MAX_IMAGE_BYTES} bytes`, 'body');
  if (!check[1](bytes)) throw invalidArgument(`the body is not a ${declared} image`, 'body');
  return bytes;
}

export const assetFiles = (deps: Pick<Deps, 'config'>) => new AssetFiles(join(deps.config.dataDir, 'assets'));

/** Where new content over the inline limit goes: the configured bucket, else files under DATA_DIR. */
const largeStore = (deps: Pick<Deps, 'config'>): LargeStore => (deps.config.assetS3 ? assetBucket(deps.config.assetS3) : assetFiles(deps));

/**
 * Where a row's content is, by its `storage`: rows keep working when the configuration changes
 * (files written before a bucket was configured are still read from DATA_DIR), but content in a
 * bucket needs the bucket configured.
 */
function storeOf(deps: Pick<Deps, 'config'>, storage: string): LargeStore {
  if (storage === 's3') {
    if (!deps.config.assetS3)
      throw new AppError('unavailable', 'the asset content is in an S3 bucket, but no ASSET_S3_BUCKET is configured', {
        reason: 'no_bucket',
      });
    return assetBucket(deps.config.assetS3);
  }
  return assetFiles(deps);
}

const limitsOf = (call: CallContext) => ({ maxBytes: call.config.assetMaxBytes, inlineMaxBytes: call.config.assetInlineMaxBytes });

async function* once(bytes: Buffer) {
  yield bytes;
}

/** An asset's columns without its bytes, as the service hands a view (`content` null). */
const ASSET_VIEW_COLUMNS = returningColumns(
  Object.fromEntries(Object.entries(PrismaSql.AssetScalarFieldEnum).filter(([field]) => field !== 'content')),
);

/**
 * Writes the row for ingested content, its audit row and its `asset.changed` webhook event in one
 * statement (the content itself is committed first): no transaction holds a pool connection across
 * round trips. A run's large tool result takes this path while its run streams, so under load the
 * three writes and a transaction's BEGIN and COMMIT each waited for a connection.
 */
async function writeAsset(
  call: CallContext,
  ingested: Ingested,
  input: { name: string; description?: string; labels?: Record<string, string>; mediaType: string },
): Promise<Asset> {
  const { actor } = call;
  const store = largeStore(call);
  // Usually done already, before the statement (a bucket upload must not hold a connection); then a no-op.
  await ingested.commit(store, input.mediaType);
  const id = newId('asset');
  const audit = {
    workspaceId: actor.workspaceId,
    principalId: actor.principalId,
    requestId: call.requestId,
    action: 'create',
    resourceKind: RESOURCE_KIND,
    resourceId: id,
    version: 1,
    changes: {
      media_type: { from: null, to: input.mediaType },
      size_bytes: { from: null, to: ingested.sizeBytes },
      sha256: { from: null, to: ingested.sha256 },
    },
  };
  const event = auditWebhookEvent(audit);
  const rows = await queryDirect<Asset>(
    call.db,
    PrismaSql.sql`
    WITH asset AS (
      INSERT INTO assets (id, workspace_id, name, description, labels, media_type, size_bytes, sha256, storage, content, created_by_id, updated_by_id)
      VALUES (${id}, ${actor.workspaceId}, ${input.name}, ${input.description ?? ''}, ${JSON.stringify(input.labels ?? {})}::jsonb,
        ${input.mediaType}, ${ingested.sizeBytes}::int, ${ingested.sha256}, ${ingested.inline ? 'database' : store.kind},
        ${ingested.inline ? Buffer.from(ingested.inline) : null}::bytea, ${actor.principalId}, ${actor.principalId})
      RETURNING ${ASSET_VIEW_COLUMNS}
    ), audit AS (
      INSERT INTO audit_events ${AUDIT_COLUMNS} VALUES ${auditValues(audit)} RETURNING id
    ), event AS (
      SELECT ${event ? enqueueExpression(actor.workspaceId, event.kind, event.data) : PrismaSql.sql`0`} AS queued
    )
    SELECT asset.*, (SELECT count(*) FROM audit)::int AS "auditRows", (SELECT queued FROM event) AS "webhookEvents" FROM asset`,
  );
  const { auditRows: _a, webhookEvents: _e, ...asset } = rows[0] as Asset & { auditRows: number; webhookEvents: number };
  return { ...asset, content: null };
}

/** Stores bytes already checked by the caller (agent avatars) as an asset, in the caller's transaction. */
export async function insertAsset(call: CallContext, input: { name: string; mediaType: string; content: Buffer }) {
  const ingested = await assetFiles(call).ingest(once(input.content), limitsOf(call));
  return writeAsset(call, ingested, { name: input.name, mediaType: input.mediaType });
}

// ── media types ──

const MEDIA_TYPE = /^[a-z]+\/[a-z0-9][a-z0-9.+-]*$/;
const ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'audio/mp3': 'audio/mpeg' };
const GENERIC = 'application/octet-stream';

/** A declared media type: its essence (parameters dropped), lower case, aliases resolved; null when absent or generic. */
export function declaredMediaType(value: string | null | undefined, field = 'media_type'): string | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  const essence = value.split(';')[0]!.trim().toLowerCase();
  if (!MEDIA_TYPE.test(essence) || essence.length > 255) throw invalidArgument(`${field} must be a media type such as image/png`, field);
  const resolved = ALIASES[essence] ?? essence;
  return resolved === GENERIC ? null : resolved;
}

/**
 * The media type an asset is stored with: the declared one when the bytes agree, else a refusal;
 * without a declaration, what the bytes are (or application/octet-stream). Formats recognised by
 * their bytes must match exactly, except containers: a declared `application/*` over bytes that are
 * a ZIP or compound file (office documents, packages), and `…+xml` over XML. Text and other formats
 * without a signature are taken as declared.
 */
export async function settleMediaType(declared: string | null, head: Buffer): Promise<string> {
  const sniffed = (await fileTypeFromBuffer(head))?.mime as string | undefined;
  if (!declared) return sniffed ?? GENERIC;
  if (sniffed === declared) return declared;
  const container =
    (sniffed === 'application/zip' || sniffed === 'application/x-cfb') && declared.startsWith('application/')
      ? true
      : sniffed === 'application/xml' && (declared.endsWith('+xml') || declared === 'text/xml');
  if (sniffed && !container)
    throw invalidArgument(`the content is ${sniffed}, not ${declared} as declared`, 'media_type', { declared, detected: sniffed });
  if (!sniffed && (supportedMimeTypes as ReadonlySet<string>).has(declared))
    throw invalidArgument(`the content is not ${declared} as declared`, 'media_type', { declared, detected: null });
  return declared;
}

// ── the resource ──

/** What an upload brings: the file (a Blob: a GraphQL multipart upload, or the REST shim's spooled body) and its view fields. */
export interface AssetUpload {
  file: Blob;
  name?: string | null;
  description?: string | null;
  labels?: unknown;
  /** Overrides the file's own type. */
  mediaType?: string | null;
}

const blobName = (file: Blob) => ((file as { name?: unknown }).name as string | undefined) ?? '';

/**
 * Whether the caller may upload a file of `sizeBytes` (when known) — asked before a streamed upload is
 * read, so that a caller without `write`, or a file announced too large, costs no transfer.
 */
export function checkAssetUpload(call: CallContext, sizeBytes: number | null | undefined): boolean {
  requirePermission(call.actor, 'write');
  if (sizeBytes != null && sizeBytes > call.config.assetMaxBytes) throw tooLarge(call.config.assetMaxBytes);
  return true;
}

export async function uploadAsset(call: CallContext, input: AssetUpload): Promise<Asset> {
  requirePermission(call.actor, 'write');
  const { file } = input;
  if (!file || typeof (file as Blob).stream !== 'function') throw invalidArgument('file must be a file upload', 'file');
  const name = validateName(input.name ?? (blobName(file) || 'upload'));
  const description = validateDescription(input.description);
  const labels = input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels);
  const declared = declaredMediaType(input.mediaType ?? file.type);
  if (file.size > call.config.assetMaxBytes) {
    throw new AppError('payload_too_large', `the file is larger than ${call.config.assetMaxBytes} bytes`, {
      field: 'file',
      limit_bytes: call.config.assetMaxBytes,
    });
  }
  const ingested = await assetFiles(call).ingest(file.stream() as unknown as AsyncIterable<Uint8Array>, limitsOf(call));
  try {
    if (ingested.sizeBytes === 0) throw invalidArgument('the file is empty', 'file');
    const mediaType = await settleMediaType(declared, ingested.head);
    await ingested.commit(largeStore(call), mediaType);
    return await writeAsset(call, ingested, { name, description, labels, mediaType });
  } catch (error) {
    await ingested.discard();
    throw error;
  }
}

export async function getAsset(call: CallContext, id: string): Promise<Asset> {
  requirePermission(call.actor, 'read');
  // The bytes stay where they are: a view never reads them (readAssetBytes does, when asked).
  const asset = await call.db.asset.findUnique({ where: { id }, omit: { content: true } });
  if (!asset || asset.workspaceId !== call.actor.workspaceId) throw notFound('asset', id);
  return asset as Asset;
}

/** The asset whose content is read (retired ones too: their content stays readable). */
export const getAssetContent = getAsset;

export async function listAssets(
  call: CallContext,
  args: {
    label?: readonly string[] | null;
    q?: string | null;
    mediaType?: string | null;
    retired?: boolean | null;
    limit?: number | null;
    cursor?: string | null;
  },
) {
  requirePermission(call.actor, 'read');
  // Retired assets are left out by default; `retired: true` lists only them.
  const shape = newestFirst('assets', { search: NAME_AND_DESCRIPTION, archived: { field: 'retiredAt', unset: 'open' } });
  const query = listQuery(shape, call, { ...args, archived: args.retired });
  // `image/*` matches a whole top-level type; anything else one media type.
  const mediaType = args.mediaType?.trim().toLowerCase();
  if (mediaType && !/^[a-z]+\/(\*|[a-z0-9][a-z0-9.+-]*)$/.test(mediaType))
    throw invalidArgument('media_type must be a media type (image/png) or a top-level type (image/*)', 'media_type');
  const rows = await call.db.asset.findMany({
    ...query.findArgs(mediaType ? { mediaType: mediaType.endsWith('/*') ? { startsWith: mediaType.slice(0, -1) } : mediaType } : {}),
    // The bytes stay where they are: a page of views never reads them.
    omit: { content: true },
  });
  return query.page(rows as Asset[]);
}

/** DELETE: retires the asset (audited); an asset already retired is answered as it is. If-Match is optional. */
export async function retireAsset(call: CallContext, id: string, ifMatch: string | null | undefined): Promise<Asset> {
  requirePermission(call.actor, 'write');
  return inTransaction(call, async (bound) => {
    const row = await getAsset(bound, id);
    if (row.retiredAt) return row;
    return changeVersioned({
      call: bound,
      delegate: bound.db.asset,
      row,
      ifMatch,
      ifMatchRequired: false,
      resourceKind: RESOURCE_KIND,
      action: 'retire',
      data: { retiredAt: new Date() },
    });
  });
}

/** `length` bytes of an asset's content from `offset` (fewer at its end). */
export async function readAssetBytes(
  call: Pick<CallContext, 'db' | 'config'>,
  asset: Pick<Asset, 'id' | 'sizeBytes' | 'sha256' | 'storage'> & { content?: Uint8Array | null },
  offset: number,
  length: number,
): Promise<Buffer> {
  const end = Math.min(asset.sizeBytes, offset + length);
  if (offset >= end) return Buffer.alloc(0);
  if (asset.storage === 'database') {
    // Views read for lists leave the bytes out; they are read here when asked for.
    const content =
      asset.content ?? (await call.db.asset.findUniqueOrThrow({ where: { id: asset.id }, select: { content: true } })).content;
    return Buffer.from(content ?? new Uint8Array()).subarray(offset, end);
  }
  return storeOf(call, asset.storage).read(asset.sha256, offset, end - offset);
}

/** Checks a content range asked for through the API: within 0..size, at most MAX_CONTENT_CHUNK_BYTES. */
export function contentRange(asset: Asset, offset: number | null | undefined, length: number | null | undefined) {
  const start = offset ?? 0;
  if (!Number.isInteger(start) || start < 0) throw invalidArgument('offset must be a non-negative integer', 'offset');
  const wanted = length ?? Math.min(asset.sizeBytes - Math.min(start, asset.sizeBytes), MAX_CONTENT_CHUNK_BYTES);
  if (!Number.isInteger(wanted) || wanted < 0 || wanted > MAX_CONTENT_CHUNK_BYTES)
    throw invalidArgument(`length must be an integer from 0 to ${MAX_CONTENT_CHUNK_BYTES}`, 'length');
  return { offset: start, length: wanted };
}

/**
 * An asset a new run (or inbox entry) attaches: of the caller's workspace (else 404, naming the
 * part) and not retired (else failed_precondition).
 */
export async function assetForAttachment(call: CallContext, id: unknown, field: string): Promise<Asset> {
  if (typeof id !== 'string' || id === '') throw invalidArgument(`${field} must be an asset id`, field);
  const asset = await call.db.asset.findUnique({ where: { id }, omit: { content: true } });
  if (!asset || asset.workspaceId !== call.actor.workspaceId)
    throw new AppError('not_found', `asset ${quoteInput(id)} not found`, { field });
  if (asset.retiredAt)
    throw new AppError('failed_precondition', `asset ${asset.id} is retired and cannot be attached to new runs`, { field });
  return asset as Asset;
}

/**
 * Stores a run's large output (a tool result) as an asset, audited as created by the run's principal.
 * The media type is the producer's (text or JSON), kept by its essence; labels say where it came from.
 */
export async function storeRunOutput(
  call: CallContext,
  input: { name: string; mediaType: string; content: Buffer; labels: Record<string, string> },
): Promise<Asset> {
  const ingested = await assetFiles(call).ingest(once(input.content), { ...limitsOf(call), maxBytes: Number.MAX_SAFE_INTEGER });
  const mediaType = declaredMediaType(input.mediaType) ?? GENERIC;
  await ingested.commit(largeStore(call), mediaType);
  return writeAsset(call, ingested, { name: input.name.slice(0, 200), labels: input.labels, mediaType });
}

/** The largest asset a message may attach: its bytes go to the model in each request. */
export const MAX_ATTACHED_ASSET_BYTES = 32 * 1024 * 1024;

/**
 * Checks the asset parts of an accepted message (run input, resume input, inbox payloads): each
 * names an asset of the workspace (404), not retired (409), small enough to attach, and an image
 * part an image. Fills in each part's `media_type` from its asset.
 */
export async function attachAssets<M extends MessageContent | null>(call: CallContext, message: M, field: string): Promise<M> {
  if (!message || !message.content.some(isAssetPart)) return message;
  const content = await Promise.all(
    message.content.map(async (part, index) => {
      if (!isAssetPart(part)) return part;
      const partField = `${field}.content[${index}].asset_id`;
      const asset = await assetForAttachment(call, part.asset_id, partField);
      if (part.type === 'image' && !asset.mediaType.startsWith('image/'))
        throw invalidArgument(`asset ${asset.id} is ${asset.mediaType}, not an image: attach it as a file part`, partField);
      if (asset.sizeBytes > MAX_ATTACHED_ASSET_BYTES)
        throw invalidArgument(
          `asset ${asset.id} is larger than ${MAX_ATTACHED_ASSET_BYTES} bytes, the most a message may attach`,
          partField,
        );
      return { type: part.type, asset_id: asset.id, media_type: asset.mediaType };
    }),
  );
  return { ...message, content } as M;
}

/** The whole content of an asset a run's conversation references (in the run's workspace; retired ones too). */
export async function readAssetForRun(call: CallContext, id: string): Promise<Buffer> {
  const asset = await call.db.asset.findUnique({ where: { id } });
  if (!asset || asset.workspaceId !== call.actor.workspaceId) throw notFound('asset', id);
  return readAssetBytes(call, asset, 0, asset.sizeBytes);
}

export const assetContentPath = (id: string) => `/api/v1/assets/${id}/content`;

/** Assets by id for `node(id)` (src/services/nodes.ts), without their bytes (read when `contentBase64` asks). */
export const loadAssets: NodeRowsLoader<Asset> = async (call, ids) =>
  (await call.db.asset.findMany({ where: idsInWorkspace(call, ids), omit: { content: true } })) as Asset[];
