// REST rows — Assets: uploads, listing, retirement and content downloads.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { pageArgs, ifMatch, labelMap, type Route } from '../../../../rest-shim/route-table.js';

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
  {
    method: 'GET',
    path: '/api/v1/assets',
    operation: 'AssetsList',
    surface: 'v1',
    variables: (req) => ({
      label: req.queryList('label'),
      q: req.query('q'),
      mediaType: req.query('media_type'),
      retired: req.queryBool('retired'),
      ...pageArgs(req),
    }),
    result: 'assets',
    connection: true,
  },
  {
    method: 'GET',
    path: '/api/v1/assets/:asset_id',
    operation: 'AssetGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('asset_id') }),
    result: 'asset',
  },
  {
    method: 'DELETE',
    path: '/api/v1/assets/:asset_id',
    operation: 'AssetRetire',
    ifMatchOptional: true,
    surface: 'v1',
    variables: (req) => ({ id: req.path('asset_id'), ...ifMatch(req) }),
    body: 'none',
    result: 'retireAsset.asset',
  },
  {
    method: 'GET',
    path: '/api/v1/assets/:asset_id/content',
    operation: 'AssetContentGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('asset_id') }),
    result: 'asset',
    download: { content: 'contentBase64', mediaType: 'mediaType', size: 'sizeBytes', etag: 'sha256' },
  },
];
