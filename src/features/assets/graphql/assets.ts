// Assets: the workspace's files (uploads and agent avatars). Uploaded as a `File` (GraphQL multipart
// request), read as base64 a range at a time, retired by `retireAsset`.
import { builder } from '../../../graphql/builder.js';
import { asNode } from '../../../graphql/modules/node.js';
import { connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { payloadOf } from '../../../graphql/modules/payloads.js';
import { resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, objectQuery } from '../../../graphql/modules/query-fields.js';
import { withNamedResourceFields } from '../../../graphql/modules/named-fields.js';
import { AppError } from '../../../lib/errors.js';
import { loadAssets } from '../assets.js';
import {
  assetContentPath,
  checkAssetUpload,
  contentRange,
  getAsset,
  getAssetContent,
  listAssets,
  MAX_CONTENT_CHUNK_BYTES,
  readAssetBytes,
  retireAsset,
  uploadAsset,
} from '../assets.js';
import { uploadAgentAvatar } from '../../agents/agents.js';
import { AgentRef } from '../../agents/graphql/agents.js';

const AssetRef = builder.prismaObject('Asset', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    mediaType: t.exposeString('mediaType', { description: 'checked against the bytes at upload' }),
    sizeBytes: t.exposeInt('sizeBytes'),
    sha256: t.exposeString('sha256', { description: 'hex digest of the content; the content ETag' }),
    retiredAt: t.expose('retiredAt', { type: 'DateTime', nullable: true, description: 'retired assets stay readable' }),
    contentUrl: t.string({ description: 'where REST clients download the content', resolve: (asset) => assetContentPath(asset.id) }),
    contentBase64: t.string({
      description: `The content from \`offset\` (default 0), at most \`length\` bytes (default: to the end, at most ${MAX_CONTENT_CHUNK_BYTES}), base64-encoded.`,
      args: { offset: t.arg.int(), length: t.arg.int() },
      resolve: async (asset, args, ctx) => {
        const range = contentRange(asset, args.offset, args.length);
        return (await readAssetBytes(await ctx.call(), asset, range.offset, range.length)).toString('base64');
      },
    }),
  }),
});
asNode(AssetRef, { kind: 'asset', load: loadAssets });
withNamedResourceFields(AssetRef);

const AssetConnection = connectionOf('Asset', AssetRef);

/** The content of an avatar (or any asset up to MAX_CONTENT_CHUNK_BYTES) in one piece; `Asset.contentBase64` reads ranges. */
const AssetContentRef = builder.prismaObject('Asset', {
  variant: 'AssetContent',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    mediaType: t.exposeString('mediaType'),
    sizeBytes: t.exposeInt('sizeBytes'),
    sha256: t.exposeString('sha256'),
    retiredAt: t.expose('retiredAt', { type: 'DateTime', nullable: true }),
    contentBase64: t.string({
      resolve: async (asset, _args, ctx) => {
        if (asset.sizeBytes > MAX_CONTENT_CHUNK_BYTES)
          throw new AppError(
            'failed_precondition',
            `the asset is larger than ${MAX_CONTENT_CHUNK_BYTES} bytes: read it in ranges (Asset.contentBase64)`,
          );
        return (await readAssetBytes(await ctx.call(), asset, 0, asset.sizeBytes)).toString('base64');
      },
    }),
  }),
});

const UploadAssetInput = builder.inputType('UploadAssetInput', {
  fields: (t) => ({
    file: t.field({ type: 'File', required: true }),
    name: t.string({ description: "default: the file's name" }),
    description: t.string(),
    labels: t.field({ type: 'Labels' }),
    mediaType: t.string({ description: "default: the file's type; checked against the bytes either way" }),
  }),
});

connectionQuery('assets', AssetConnection, {
  description: 'Newest first. Retired assets are left out unless `retired` is true (then only they are listed).',
  args: (arg) => ({
    label: arg.stringList(),
    q: arg.string(),
    mediaType: arg.string({ description: 'a media type (image/png) or a top-level type (image/*)' }),
    retired: arg.boolean(),
  }),
  list: listAssets,
});
objectQuery('asset', AssetRef, getAsset);
objectQuery('assetContent', AssetContentRef, getAssetContent);

builder.queryField('assetUploadAllowed', (t) =>
  t.boolean({
    description:
      'True when the caller may upload a file of `sizeBytes` (if given); else the error the upload would meet (permission, size). The REST upload asks before it reads the body.',
    args: { sizeBytes: t.arg.float() },
    resolve: async (_r, a, ctx) => checkAssetUpload(await ctx.call(), a.sizeBytes),
  }),
);

const assetMutations = resourceMutations('asset', AssetRef);
assetMutations.create(UploadAssetInput, uploadAsset, {
  verb: 'upload',
  description: 'Stores a file (at most ASSET_MAX_BYTES; over GraphQL also at most MAX_BODY_BYTES per request).',
});
assetMutations.versionedAction('retire', retireAsset, {
  description: 'Retires the asset: its content stays readable; lists leave it out; new runs cannot attach it. If-Match is optional.',
});

builder.mutationField('uploadAgentAvatar', (t) =>
  t.field({
    type: payloadOf('uploadAgentAvatar', 'agent', AgentRef),
    description: 'Stores a PNG, JPEG, GIF or WebP image (≤ 1 MiB) as the agent avatar; image_url then points at it.',
    args: {
      agentId: t.arg.id({ required: true }),
      ifMatch: t.arg.string(),
      mediaType: t.arg.string({ required: true }),
      contentBase64: t.arg.string({ required: true }),
    },
    resolve: async (_r, args, ctx) => uploadAgentAvatar(await ctx.call(), String(args.agentId), args.ifMatch, args),
  }),
);
