import { builder } from '../builder.js';
import { payloadOf } from './payloads.js';
import { getAssetContent } from '../../services/assets.js';
import { uploadAgentAvatar } from '../../services/agents.js';
import { AgentRef } from './agents.js';

const AssetContentRef = builder.prismaObject('Asset', {
  name: 'AssetContent',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    mediaType: t.exposeString('mediaType'),
    sizeBytes: t.exposeInt('sizeBytes'),
    sha256: t.exposeString('sha256'),
    retiredAt: t.expose('retiredAt', { type: 'DateTime', nullable: true }),
    contentBase64: t.string({ resolve: (asset) => Buffer.from(asset.content).toString('base64') }),
  }),
});

builder.queryField('assetContent', (t) =>
  t.field({
    type: AssetContentRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, args, ctx) => getAssetContent(await ctx.call(), String(args.id)),
  }),
);

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
