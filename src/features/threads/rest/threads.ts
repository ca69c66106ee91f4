// REST rows — Threads.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { guardedActionRow, createRow, getRow, listRow, updateRow, type Route } from '../../../../rest-shim/route-table.js';

export const threadRoutes: Route[] = [
  // A thread may start without a body (every member of its input is optional).
  createRow('/api/v1/threads', 'ThreadCreate', 'createThread.thread', { body: { input: 'input' } }),
  listRow('/api/v1/threads', 'ThreadsList', 'threads', (req) => ({
    sessionId: req.query('session_id'),
    label: req.queryList('label'),
    archived: req.queryBool('archived'),
  })),
  getRow('/api/v1/threads/:thread_id', 'ThreadGet', 'thread'),
  updateRow('/api/v1/threads/:thread_id', 'ThreadUpdate', 'updateThread.thread'),
  guardedActionRow('POST', '/api/v1/threads/:thread_id/archive', 'ThreadArchive', 'archiveThread.thread'),
];
