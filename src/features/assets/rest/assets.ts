// REST rows — Assets: uploads, listing, retirement and content downloads.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { getRow, guardedActionRow, labelMap, listRow, type Route } from '../../../../rest-shim/route-table.js';

export const assetRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/assets',
    operation: 'AssetUpload',
    surface: 'v1',
    // A raw body names its view fields in the query (`label` repeated as key:value); a multipart body in its parts.
    variables: (req) => ({
      input: {
        name: req.query('name'),
        description: req.query('description'),
        labels: labelMap(req.queryList('label')),
        mediaType: req.query('media_type'),
      },
    }),
    // Asked before the body is read: no transfer for a caller who may not upload, or a file announced too large.
    upload: { input: 'input', json: ['labels'], check: 'AssetUploadCheck' },
    result: 'uploadAsset.asset',
    status: 201,
  },
  listRow('/api/v1/assets', 'AssetsList', 'assets', (req) => ({
    label: req.queryList('label'),
    q: req.query('q'),
    mediaType: req.query('media_type'),
    retired: req.queryBool('retired'),
  })),
  getRow('/api/v1/assets/:asset_id', 'AssetGet', 'asset'),
  guardedActionRow('DELETE', '/api/v1/assets/:asset_id', 'AssetRetire', 'retireAsset.asset', { ifMatchOptional: true }),
  getRow('/api/v1/assets/:asset_id/content', 'AssetContentGet', 'asset', {
    download: { content: 'contentBase64', mediaType: 'mediaType', size: 'sizeBytes', etag: 'sha256' },
  }),
];
