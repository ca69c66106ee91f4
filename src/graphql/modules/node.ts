// Relay's object identification: the `Node` interface, `node(id)` and `nodes(ids)` (the Pothos relay
// plugin). A node's global id is its stored id (src/lib/node-ids.ts), so `id` means the same thing
// on every type, to REST and GraphQL clients alike. Each domain module makes its types nodes with
// `asNode` beside their definitions; the plugin groups the ids of one request by type and calls each
// type's loader once (src/services/nodes.ts: one statement per type).
import type { ObjectRef } from '@pothos/core';
import { resolveNodes } from '@pothos/plugin-relay';
import { builder } from '../builder.js';
import type { Types } from './common.js';
import { invalidArgument } from '../../lib/errors.js';
import { parseNodeId, registerNodeType } from '../../lib/node-ids.js';
import type { IdKind } from '../../lib/ids.js';

/** The own-shape members of a node type whose ids are not stored ids. */
const pick = ({ prefix, matches }: { prefix: string; matches: (globalId: string) => boolean }) => ({ prefix, matches });
import { inIdOrder, requireNodeReader, type NodeRowsLoader } from '../../services/nodes.js';

/** The most ids one `nodes` call takes (a client refetching more asks again). */
export const MAX_NODE_IDS = 100;

const ID_DESCRIPTION = 'the id; also the Relay global id (`node(id:)` finds the object by it)';

/** For the many types whose rows carry their global id as `id`. */
export const rowId = (row: { id: string }) => row.id;

/** How a node type's rows are read by id: its loader and the id of a row. */
export interface NodeLoading<T> {
  load: NodeRowsLoader<T>;
  idOf: (row: T) => string;
}

// The loading of each node type, by its ref: relations (relations.ts) read the rows a reference names
// through it, so a module that points at another's type needs only the type.
const loadingByRef = new Map<object, NodeLoading<unknown>>();

/**
 * Makes `ref` a node: the `Node` interface, its `id` field (from `idOf`) and its loader; and registers
 * the kind of its ids (or, for ids that are not stored ids, their own prefix and shape) in
 * src/lib/node-ids.ts, so `node(id)` finds the type. Called by each module
 * beside its type; the schema imports every module before it answers anything.
 */
export function asNode<T>(
  ref: ObjectRef<Types, T>,
  options: {
    load: NodeRowsLoader<T>;
    idOf?: (row: T) => string;
    description?: string;
  } & ({ kind: IdKind } | { prefix: string; matches: (globalId: string) => boolean }),
): void {
  const idOf = options.idOf ?? (rowId as unknown as (row: T) => string);
  registerNodeType('kind' in options ? { typename: ref.name, kind: options.kind } : { typename: ref.name, ...pick(options) });
  loadingByRef.set(ref, { load: options.load, idOf } as NodeLoading<unknown>);
  builder.nodeRef(ref, {
    id: { description: options.description ?? ID_DESCRIPTION, resolve: idOf },
    loadMany: async (ids, ctx) => {
      const call = await ctx.call();
      requireNodeReader(call);
      return inIdOrder(ids, await options.load(call, ids), idOf);
    },
  });
}

/** The loading `asNode` registered for `ref`; throws when `ref` is not a node (a relation to it needs a `load`). */
export function nodeLoading<T>(ref: { name: string }): NodeLoading<T> {
  const loading = loadingByRef.get(ref);
  if (!loading) throw new Error(`${ref.name} is not a node: asNode was not called for it`);
  return loading as NodeLoading<T>;
}

const NodeRef = builder.nodeInterfaceRef();

builder.queryFields((t) => ({
  node: t.field({
    type: NodeRef,
    nullable: true,
    description:
      'The object with this global id; null when there is none in the workspace (unknown, malformed, or of another workspace: alike).',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx, info) => {
      requireNodeReader(await ctx.call());
      const [node] = await resolveNodes(builder, ctx, info, [parseNodeId(String(args.id))]);
      return (await node) as object | null;
    },
  }),
  nodes: t.field({
    type: [NodeRef],
    nullable: { list: false, items: true },
    description: `The objects with these global ids, in the same order; null in place of each id \`node\` answers null for. At most ${MAX_NODE_IDS} ids; one query per type.`,
    args: { ids: t.arg.idList({ required: true }) },
    resolve: async (_root, args, ctx, info) => {
      requireNodeReader(await ctx.call());
      if (args.ids.length > MAX_NODE_IDS) throw invalidArgument(`ids takes at most ${MAX_NODE_IDS} ids`, 'ids');
      return (await resolveNodes(
        builder,
        ctx,
        info,
        args.ids.map((id) => parseNodeId(String(id))),
      )) as (object | null)[];
    },
  }),
}));
