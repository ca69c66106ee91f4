// The items response's `continuation` as typed objects (the spec's members). Maps keyed by data
// (memory names, fragment and response-group keys) stay JSON maps, as labels do, with a typed list
// beside where they carry anything; members the spec names without a shape and this service never
// fills (always null or empty) stay JSON, said so in their descriptions.
import { builder } from '../../../graphql/builder.js';
import type { MemorySource, RunItemsContinuation } from '../run-items.js';

type C = RunItemsContinuation;

const NEVER_FILLED = 'not filled by this service (always null or empty); its shape is not specified, so it is JSON';

const ArgumentsRef = builder.objectRef<C['arguments']>('RunItemsContinuationArguments').implement({
  description: 'Where the stream of tool-call arguments stands.',
  fields: (t) => ({
    at: t.field({
      type: 'JSON',
      nullable: true,
      description: `${NEVER_FILLED}: tool-call arguments are not streamed`,
      resolve: (a) => a.at,
    }),
    event: t.field({
      type: 'JSON',
      nullable: true,
      description: `${NEVER_FILLED}: tool-call arguments are not streamed`,
      resolve: (a) => a.event,
    }),
    key: t.field({
      type: 'JSON',
      nullable: true,
      description: `${NEVER_FILLED}: tool-call arguments are not streamed`,
      resolve: (a) => a.key,
    }),
    sequence: t.int({ description: 'the highest stream sequence on the page (0 without one)', resolve: (a) => a.sequence }),
    size: t.int({ description: 'always 0: a tool call item appears with its arguments complete', resolve: (a) => a.size }),
    stream: t.string({ nullable: true, description: 'that sequence as a stream id (`s…`), or null', resolve: (a) => a.stream }),
  }),
});

const FragmentsRef = builder.objectRef<C['fragments']>('RunItemsContinuationFragments').implement({
  description: "The page's items still streaming, and whether earlier items were left out.",
  fields: (t) => ({
    gap: t.boolean({
      description: "whether the run has items before the page's first one that the page left out (read them with `before`)",
      resolve: (f) => f.gap,
    }),
    maxBytes: t.int({ description: 'the most bytes `pending` reports for one item (a constant: 67108864)', resolve: (f) => f.max_bytes }),
    maxPending: t.int({ description: 'the most items `pending` lists (a constant: 8)', resolve: (f) => f.max_pending }),
    pending: t.field({
      type: 'JSON',
      description:
        "the page's items still in progress (the oldest `maxPending`), by item id: {count, parts, size} — how many text members, their names, and their UTF-8 bytes so far",
      resolve: (f) => f.pending,
    }),
  }),
});

const MemorySourceRef = builder.objectRef<MemorySource>('RunItemsMemorySource').implement({
  description: "What memory recall put into the model's context from one mount.",
  fields: (t) => ({
    kind: t.string({ description: '`records`', resolve: (m) => m.kind }),
    status: t.string({ description: '`completed`', resolve: (m) => m.status }),
    memory: t.string({ description: "the mount's name", resolve: (m) => m.memory }),
    memoryId: t.string({ resolve: (m) => m.memory_id }),
    cursor: t.string({ nullable: true, resolve: (m) => m.cursor }),
    files: t.field({ type: 'JSON', description: NEVER_FILLED, resolve: (m) => m.files }),
    records: t.stringList({ description: 'the ids of the recalled records', resolve: (m) => m.records }),
    sourcesTruncated: t.boolean({ resolve: (m) => m.sources_truncated }),
  }),
});

const ObserverStateRef = builder.objectRef<C['observer']['state']>('RunItemsObserverState').implement({
  fields: (t) => ({
    children: t.field({
      type: 'JSON',
      description:
        'the runs this run delegated to subagents, oldest first: a list of {run_id, thread_id, subagent, tool_call_id, status} (JSON: the spec gives no shape)',
      resolve: (s) => s.children,
    }),
    parts: t.field({
      type: 'JSON',
      description: "the ids of the page's items still in progress, in order (a list of strings)",
      resolve: (s) => s.parts,
    }),
    requestIndex: t.int({ description: 'the model requests the run made (0 until it is sealed)', resolve: (s) => s.request_index }),
    threads: t.field({
      type: 'JSON',
      description: "the ids of those subagent runs' child threads, in the same order (JSON: the spec gives no shape)",
      resolve: (s) => s.threads,
    }),
  }),
});

const ObserverRef = builder.objectRef<C['observer']>('RunItemsObserver').implement({
  fields: (t) => ({
    runId: t.string({ resolve: (o) => o.run_id }),
    threadId: t.string({ resolve: (o) => o.thread_id }),
    state: t.field({ type: ObserverStateRef, resolve: (o) => o.state }),
  }),
});

const PositionRef = builder.objectRef<C['position']>('RunItemsPosition').implement({
  fields: (t) => ({
    attempt: t.int({ description: "the run's attempts so far", resolve: (p) => p.attempt }),
    sequence: t.int({ resolve: (p) => p.sequence }),
  }),
});

export const ContinuationRef = builder.objectRef<C>('RunItemsContinuation').implement({
  description: 'Where a reader of the items stands, to continue from there.',
  fields: (t) => ({
    arguments: t.field({ type: ArgumentsRef, resolve: (c) => c.arguments }),
    fragments: t.field({ type: FragmentsRef, resolve: (c) => c.fragments }),
    fullContent: t.boolean({
      description: 'whether every item of the page carries its whole content (false when a large value moved to its content refs)',
      resolve: (c) => c.full_content,
    }),
    memorySources: t.field({
      type: 'JSON',
      description: 'a map from mount name to its sources, as the REST view shows it; typed: memorySourceList',
      resolve: (c) => c.memory_sources,
    }),
    memorySourceList: t.field({
      type: [MemorySourceRef],
      description: 'every memory source, mount by mount (each names its mount in `memory`)',
      resolve: (c) => Object.values(c.memory_sources).flat(),
    }),
    nextOrdinal: t.int({ resolve: (c) => c.next_ordinal }),
    observer: t.field({ type: ObserverRef, resolve: (c) => c.observer }),
    position: t.field({ type: PositionRef, resolve: (c) => c.position }),
    responseGroups: t.field({ type: 'JSON', description: `a map string to string; ${NEVER_FILLED}`, resolve: (c) => c.response_groups }),
    runId: t.string({ resolve: (c) => c.run_id }),
  }),
});
