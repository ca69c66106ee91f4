// REST rows — Threads.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { guardedActionRow, kindRows, type Route } from '../../../../rest-shim/route-table.js';

export const threadRoutes: Route[] = [
  ...kindRows('/api/v1/threads', 'thread_id', 'Thread', {
    // A thread may start without a body (every member of its input is optional).
    create: { body: { input: 'input' } },
    filters: (req) => ({ sessionId: req.query('session_id'), label: req.queryList('label'), archived: req.queryBool('archived') }),
  }),
  guardedActionRow('POST', '/api/v1/threads/:thread_id/archive', 'ThreadArchive', 'archiveThread.thread'),
];
