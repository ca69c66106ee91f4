// Assets: immutable blobs of the workspace (agent avatars so far). Content is kept in the
// database; DELETE retires an asset while its content stays readable (spec: Lifecycles).
import { createHash } from 'node:crypto';
import { invalidArgument, notFound } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { recordAudit } from './audit.js';
import type { CallContext } from './call-context.js';
import { requirePermission } from './permissions.js';

export const MAX_IMAGE_BYTES = 1024 * 1024;

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

export async function insertAsset(call: CallContext, input: { name: string; mediaType: string; content: Buffer }) {
  const { db: tx, actor } = call;
  const asset = await tx.asset.create({
    data: {
      id: newId('asset'),
      workspaceId: actor.workspaceId,
      name: input.name,
      mediaType: input.mediaType,
      sizeBytes: input.content.length,
      sha256: createHash('sha256').update(input.content).digest('hex'),
      content: new Uint8Array(input.content),
      createdById: actor.principalId,
      updatedById: actor.principalId,
    },
  });
  await recordAudit(call, {
    action: 'create',
    resourceKind: 'asset',
    resourceId: asset.id,
    version: 1,
    changes: {
      media_type: { from: null, to: asset.mediaType },
      size_bytes: { from: null, to: asset.sizeBytes },
      sha256: { from: null, to: asset.sha256 },
    },
  });
  return asset;
}

export async function getAssetContent(call: CallContext, id: string) {
  const { actor } = call;
  requirePermission(actor, 'read');
  const asset = await call.db.asset.findUnique({ where: { id } });
  if (!asset || asset.workspaceId !== actor.workspaceId) throw notFound('asset', id);
  return asset;
}

export const assetContentPath = (id: string) => `/api/v1/assets/${id}/content`;
