// Run items: what a run produced, by ordinal — the runItems page and the runItems subscription
// (replay, then live changes, resumable by stream position).
import { builder } from '../../../graphql/builder.js';
import { asNode } from '../../../graphql/modules/node.js';
import { RunRef } from './runs.js';
import { listRunItems, loadRunItems, streamRunItemEvents, streamRunItems, type ItemTextDelta, type ItemView } from '../run-items.js';
import { isTextDelta } from '../../../services/event-topics.js';
import { contentRefList, type ContentRef } from '../run-members.js';
import { ContinuationRef } from './run-items-continuation.js';
import { RunItemKindEnum, RunItemStateEnum, storedValue } from '../../../graphql/modules/enums.js';
import { childConnection } from '../../../graphql/modules/list-relations.js';
import { connectionOf } from '../../../graphql/modules/common.js';
import { runItemPages } from '../../../services/relation-pages.js';

const ContentRefRef = builder.objectRef<ContentRef & { name: string }>('RunItemContentRef').implement({
  description: "Where the whole of a run item's content member is kept when it is too large to show inline.",
  fields: (t) => ({
    name: t.exposeString('name', { description: 'the content member it stands for (e.g. `text`)' }),
    id: t.exposeString('id'),
    mediaType: t.string({ resolve: (r) => r.media_type }),
    preview: t.string({ description: 'the first characters (the content member holds the same preview)', resolve: (r) => r.preview }),
    sizeBytes: t.int({ description: 'the size of the whole member in bytes (UTF-8)', resolve: (r) => r.size_bytes }),
    truncated: t.boolean({ resolve: (r) => r.truncated }),
    assetId: t.string({
      nullable: true,
      description: 'the asset that holds the whole member (large tool results), downloadable as a file',
      resolve: (r) => r.asset_id ?? null,
    }),
  }),
});

export const RunItemRef = builder.objectRef<ItemView>('RunItem').implement({
  fields: (t) => ({
    ordinal: t.exposeInt('ordinal'),
    kind: t.field({ type: RunItemKindEnum, resolve: (r) => storedValue(RunItemKindEnum, r.kind) }),
    state: t.field({ type: RunItemStateEnum, resolve: (r) => storedValue(RunItemStateEnum, r.state) }),
    content: t.field({
      type: 'JSON',
      description:
        "the item's display document; its members depend on the kind (text, tool arguments, output values: free-form JSON). A member too large to show inline keeps a preview here and is described in contentRefs",
      resolve: (item) => item.content,
    }),
    contentRefs: t.field({
      type: 'JSON',
      description:
        'a map from a content member to its ref (id, media_type, preview, size_bytes, truncated), as the REST view shows it; typed: contentRefList',
      resolve: (item) => item.contentRefs,
    }),
    contentRefList: t.field({
      type: [ContentRefRef],
      description: 'the content refs as typed objects, one per member too large to show inline',
      resolve: (item) => contentRefList(item.contentRefs),
    }),
    firstStreamId: t.exposeString('firstStreamId', { nullable: true }),
    lastStreamId: t.exposeString('lastStreamId', { nullable: true }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
  }),
});
asNode(RunItemRef, { kind: 'runItem', load: loadRunItems });

const RunItemsResponse = builder.objectRef<Awaited<ReturnType<typeof listRunItems>>>('RunItemsResponse').implement({
  fields: (t) => ({
    baseline: t.exposeBoolean('baseline'),
    complete: t.exposeBoolean('complete'),
    itemsRemovedAt: t.expose('itemsRemovedAt', {
      type: 'DateTime',
      nullable: true,
      description:
        "when retention removed the run's items (RUN_ITEM_RETENTION_DAYS): the page then holds no items; null while they are kept",
    }),
    items: t.field({ type: [RunItemRef], resolve: (r) => r.items }),
    position: t.exposeString('position'),
    resumeAfter: t.exposeString('resumeAfter'),
    run: t.field({ type: RunRef, resolve: (r) => r.run }),
    continuation: t.field({ type: ContinuationRef, resolve: (r) => r.continuation }),
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

const RunItemTextDeltaRef = builder.objectRef<ItemTextDelta>('RunItemTextDelta').implement({
  description:
    "Text appended to a string member of an open run item: apply it to the item's state whose lastStreamId the previous event for this item carried (a delta is only sent to a subscriber holding that state).",
  fields: (t) => ({
    ordinal: t.exposeInt('ordinal', { description: "the item's ordinal" }),
    itemId: t.exposeID('itemId', { description: "the item's id (its node id)" }),
    member: t.exposeString('member', { description: 'the content member the text is appended to (e.g. `text`)' }),
    offset: t.exposeInt('offset', {
      description: "the member's length before this delta, in UTF-16 code units (JavaScript string length); a check for the client",
    }),
    text: t.exposeString('text', { description: 'the appended text' }),
    streamId: t.exposeString('streamId', { description: "the item's new lastStreamId: the position to resume after" }),
    previousStreamId: t.exposeString('previousStreamId', { description: "the item's lastStreamId before this delta" }),
  }),
});

const RunItemEventRef = builder.unionType('RunItemEvent', {
  description: 'A change of a run item as runItemEvents streams it: its whole state (RunItem) or text appended to it (RunItemTextDelta).',
  types: [RunItemRef, RunItemTextDeltaRef],
  resolveType: (event) => (isTextDelta(event) ? RunItemTextDeltaRef : RunItemRef),
});

builder.subscriptionField('runItemEvents', (t) =>
  t.field({
    type: RunItemEventRef,
    description:
      'As runItems, with appended text sent as RunItemTextDelta events (the replay, openings, completions and other changes stay RunItem snapshots), so an answer costs bytes linear in its length. Reconnect with `position` (the highest lastStreamId or streamId received) to get every later change exactly once.',
    args: { runId: t.arg.id({ required: true }), after: t.arg.int(), position: t.arg.string() },
    subscribe: async (_r, a, ctx) => streamRunItemEvents(await ctx.call(), String(a.runId), a.after ?? 0, a.position ?? null),
    resolve: (event) => event,
  }),
);

const RunItemConnection = connectionOf('RunItem', RunItemRef);

childConnection(RunRef, 'items', {
  type: RunItemConnection,
  pages: runItemPages,
  description: "The run's stored items by ordinal (a running run's newest changes are stored about 20 ms after `runItems` shows them).",
});
