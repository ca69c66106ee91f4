// REST rows — Runs: starting, reading, changing, cancelling, resuming and forking them, and what a run
// shows (lineage, trace, items, stored content, agent).
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { actionRow, createRow, kindRows, pageArgs, type Route } from '../../../../rest-shim/route-table.js';

export const runRoutes: Route[] = [
  createRow('/api/v1/runs', 'RunStart', 'startRun.run', { wait: true }),
  ...kindRows('/api/v1/runs', 'run_id', 'Run', {
    omit: ['create'],
    filters: (req) => ({
      agentId: req.query('agent_id'),
      sessionId: req.query('session_id'),
      threadId: req.query('thread_id'),
      principalId: req.query('principal_id'),
      status: req.queryList('status')?.flatMap((value) => value.split(',')) ?? null,
      createdAfter: req.queryDate('created_after'),
      createdBefore: req.queryDate('created_before'),
      label: req.queryList('label'),
    }),
    get: { wait: true },
  }),
  actionRow('POST', '/api/v1/runs/:run_id/cancel', 'RunCancel', 'cancelRun.run'),
  {
    method: 'POST',
    path: '/api/v1/runs/:run_id/resume',
    operation: 'RunResume',
    surface: 'v1',
    result: 'resumeRun.run',
    variables: (req) => ({ runId: req.path('run_id'), idempotencyKey: req.header('idempotency-key') }),
    body: { fields: { approvals: 'approvals', calls: 'calls', input: 'input' }, required: true },
    wait: true,
  },
  createRow('/api/v1/runs/:run_id/fork', 'RunFork', 'forkRun', {
    variables: (req) => ({ runId: req.path('run_id'), idempotencyKey: req.header('idempotency-key') }),
    wait: { applied: 'waited' },
  }),
];

/** What a run shows: its lineage, trace, items and their stored content, and the agent it ran (after the inbox in the table). */
export const runDetailRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/runs/:run_id/lineage',
    operation: 'RunLineage',
    surface: 'v1',
    variables: (req) => ({ runId: req.path('run_id'), ...pageArgs(req) }),
    result: 'runLineage',
    connection: true,
  },
  {
    method: 'GET',
    path: '/api/v1/runs/:run_id/trace',
    operation: 'RunTrace',
    surface: 'v1',
    variables: (req) => ({ runId: req.path('run_id') }),
    result: 'runTrace',
  },
  {
    method: 'GET',
    path: '/api/v1/runs/:run_id/items',
    operation: 'RunItemsList',
    surface: 'v1',
    result: 'runItems',
    variables: (req) => ({
      runId: req.path('run_id'),
      before: req.queryInt('before'),
      after: req.queryInt('after'),
      limit: req.queryInt('limit'),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/content-refs/:ref_id',
    operation: 'RunItemContentGet',
    surface: 'v1',
    variables: (req) => ({ ref: req.path('ref_id'), offset: req.queryInt('offset'), limit: req.queryInt('limit') }),
    result: 'runItemContent',
  },
  {
    method: 'GET',
    path: '/api/v1/runs/:run_id/agent',
    operation: 'RunAgent',
    surface: 'v1',
    variables: (req) => ({ runId: req.path('run_id') }),
    result: 'runAgent',
  },
];
