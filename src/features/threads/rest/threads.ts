// REST rows — Threads.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { pageArgs, ifMatch, type Route } from '../../../../rest-shim/route-table.js';

export const threadRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/threads',
    operation: 'ThreadCreate',
    surface: 'v1',
    body: { input: 'input' },
    result: 'createThread.thread',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/threads',
    operation: 'ThreadsList',
    surface: 'v1',
    result: 'threads',
    connection: true,
    variables: (req) => ({
      sessionId: req.query('session_id'),
      label: req.queryList('label'),
      archived: req.queryBool('archived'),
      ...pageArgs(req),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/threads/:thread_id',
    operation: 'ThreadGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('thread_id') }),
    result: 'thread',
  },
  {
    method: 'PATCH',
    path: '/api/v1/threads/:thread_id',
    operation: 'ThreadUpdate',
    surface: 'v1',
    variables: (req) => ({ id: req.path('thread_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
    result: 'updateThread.thread',
  },
  {
    method: 'POST',
    path: '/api/v1/threads/:thread_id/archive',
    operation: 'ThreadArchive',
    surface: 'v1',
    variables: (req) => ({ id: req.path('thread_id'), ...ifMatch(req) }),
    body: 'none',
    result: 'archiveThread.thread',
  },
];
