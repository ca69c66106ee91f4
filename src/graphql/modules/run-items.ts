// Run items: what a run produced, by ordinal — the runItems page and the runItems subscription
// (replay, then live changes, resumable by stream position).
import { builder } from '../builder.js';
import { asNode, rowId } from './node.js';
import { loadRunItems } from '../../services/nodes.js';
import { RunRef } from './runs.js';
import { listRunItems, streamRunItems, type ItemView } from '../../services/run-items.js';
import { RunItemKindEnum, RunItemStateEnum, storedValue } from './enums.js';

export const RunItemRef = builder.objectRef<ItemView>('RunItem').implement({
  fields: (t) => ({
    ordinal: t.exposeInt('ordinal'),
    kind: t.field({ type: RunItemKindEnum, resolve: (r) => storedValue(RunItemKindEnum, r.kind) }),
    state: t.field({ type: RunItemStateEnum, resolve: (r) => storedValue(RunItemStateEnum, r.state) }),
    content: t.field({ type: 'JSON', resolve: (item) => item.content }),
    contentRefs: t.field({ type: 'JSON', resolve: (item) => item.contentRefs }),
    firstStreamId: t.exposeString('firstStreamId', { nullable: true }),
    lastStreamId: t.exposeString('lastStreamId', { nullable: true }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
  }),
});
asNode(RunItemRef, loadRunItems, rowId);

const RunItemsResponse = builder.objectRef<Awaited<ReturnType<typeof listRunItems>>>('RunItemsResponse').implement({
  fields: (t) => ({
    baseline: t.exposeBoolean('baseline'),
    complete: t.exposeBoolean('complete'),
    items: t.field({ type: [RunItemRef], resolve: (r) => r.items }),
    position: t.exposeString('position'),
    resumeAfter: t.exposeString('resumeAfter'),
    run: t.field({ type: RunRef, resolve: (r) => r.run }),
    continuation: t.field({ type: 'JSON', resolve: (r) => r.continuation }),
  }),
});

builder.queryField('runItems', (t) =>
  t.field({
    type: RunItemsResponse,
    description: 'Items by ordinal. With neither before nor after: the newest items, always with the live tail.',
    args: { runId: t.arg.id({ required: true }), before: t.arg.int(), after: t.arg.int(), limit: t.arg.int() },
    resolve: async (_r, a, ctx) => listRunItems(await ctx.call(), String(a.runId), a),
  }),
);

builder.subscriptionField('runItems', (t) =>
  t.field({
    type: RunItemRef,
    description:
      'Replays items after `after` (an ordinal), then live changes; completes when the run is sealed or waiting. Reconnect with `position` (the highest lastStreamId received) to get every later change exactly once.',
    args: { runId: t.arg.id({ required: true }), after: t.arg.int(), position: t.arg.string() },
    subscribe: async (_r, a, ctx) => streamRunItems(await ctx.call(), String(a.runId), a.after ?? 0, a.position ?? null),
    resolve: (item) => item,
  }),
);
