// REST rows — Memories and their records.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { kindRows, pageArgs, type Route } from '../../../../rest-shim/route-table.js';

export const memoryRoutes: Route[] = [
  ...kindRows('/api/v1/memories', 'memory_id', 'Memory', {
    plural: 'Memories',
    filters: (req) => ({ label: req.queryList('label'), q: req.query('q') }),
  }),
  {
    method: 'GET',
    path: '/api/v1/memories/:memory_id/records',
    operation: 'MemoryRecordsList',
    surface: 'v1',
    variables: (req) => ({ memoryId: req.path('memory_id'), ...pageArgs(req) }),
    result: 'memoryRecords',
    connection: true,
  },
  {
    method: 'POST',
    path: '/api/v1/memories/:memory_id/records',
    operation: 'MemoryRecordAdd',
    surface: 'v1',
    variables: (req) => ({ memoryId: req.path('memory_id') }),
    body: { fields: { text: 'text' }, required: true },
    result: 'addMemoryRecord.record',
    status: 201,
  },
  {
    method: 'PUT',
    path: '/api/v1/memories/:memory_id/records/:record_id',
    operation: 'MemoryRecordReplace',
    surface: 'v1',
    variables: (req) => ({ memoryId: req.path('memory_id'), recordId: req.path('record_id') }),
    body: { fields: { text: 'text' }, required: true },
    result: 'replaceMemoryRecord.record',
  },
  {
    method: 'POST',
    path: '/api/v1/memories/:memory_id/records/search',
    operation: 'MemoryRecordsSearch',
    surface: 'v1',
    variables: (req) => ({ memoryId: req.path('memory_id') }),
    body: { fields: { query: 'query', limit: 'limit', min_score: 'minScore' }, required: true },
    result: 'searchMemoryRecords.records',
    wrapItems: 'page',
  },
];
