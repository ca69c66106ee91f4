// REST rows — A thread's inbox.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { createRow, ifMatch, listRow, type Route } from '../../../../rest-shim/route-table.js';

export const inboxRoutes: Route[] = [
  createRow('/api/v1/threads/:thread_id/inbox', 'InboxDeliver', 'deliverToInbox', {
    variables: (req) => ({ threadId: req.path('thread_id'), idempotencyKey: req.header('idempotency-key') }),
    wait: { applied: 'waited' },
  }),
  listRow('/api/v1/threads/:thread_id/inbox', 'InboxList', 'inboxEntries', (req) => ({
    threadId: req.path('thread_id'),
    status: req.queryList('status')?.flatMap((v) => v.split(',')) ?? null,
  })),
  {
    method: 'GET',
    path: '/api/v1/threads/:thread_id/inbox/:entry_id',
    operation: 'InboxEntryGet',
    surface: 'v1',
    result: 'inboxEntry',
    variables: (req) => ({ threadId: req.path('thread_id'), entryId: req.path('entry_id') }),
  },
  {
    method: 'PATCH',
    path: '/api/v1/threads/:thread_id/inbox/:entry_id',
    operation: 'InboxEntryUpdate',
    surface: 'v1',
    result: 'updateInboxEntry',
    variables: (req) => ({ threadId: req.path('thread_id'), entryId: req.path('entry_id'), ...ifMatch(req) }),
    body: { input: 'input', required: true },
  },
];
