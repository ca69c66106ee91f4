// Single-valued relations between the graph's objects (a run's agent, thread, parent…): a field
// beside the reference (`agent` beside `agentId`) that answers the object it names. Each module
// declares the relations of its own types with `relation(...)`; a relation between two modules is
// declared in the one that imports the other (imports between modules never go both ways).
//
// Each relation resolves through a batch loader made once per operation (DataLoader): every
// `run.agent` of a list asks for its id in the same tick, and the loader reads them all with one
// statement (the target's node loader, registered by `asNode`: `id IN (…)` and the caller's
// workspace only). So a list of 20 runs with their agent, revision, thread, session and parent costs
// one statement per kind of row, not one per run.
import DataLoader from 'dataloader';
import { createContextCache, type InterfaceRef, type ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import type { Types } from './common.js';
import { nodeLoading, type NodeLoading } from './node.js';
import { inIdOrder, requireNodeReader } from '../../services/nodes.js';

// One loader per kind of row and operation. Results are not cached across batches (`cache: false`):
// a subscription keeps its context for as long as it runs, and an operation may change what it read
// (a mutation's payload, a second mutation), so a remembered row could be stale; batching alone
// gives the constant statement count.
const loadersOf = createContextCache((_ctx: GraphQLContext) => new Map<object, DataLoader<string, unknown>>());

/** The row with `id` (null for none in the caller's workspace), read in this tick's batch of rows of its kind. */
export function loadRelated<T>(ctx: GraphQLContext, loading: NodeLoading<T>, id: string): Promise<T | null> {
  const loaders = loadersOf(ctx);
  let loader = loaders.get(loading.load) as DataLoader<string, T | null> | undefined;
  if (!loader) {
    loader = new DataLoader<string, T | null>(
      async (ids) => {
        const call = await ctx.call();
        requireNodeReader(call);
        return inIdOrder(ids, await loading.load(call, [...new Set(ids)]), loading.idOf);
      },
      { cache: false },
    );
    loaders.set(loading.load, loader as DataLoader<string, unknown>);
  }
  return loader.load(id);
}

interface RelationOptions<P, T> {
  /** The type the reference names: a node type (its loader is the one `asNode` registered), or any type with `load`. */
  type: ObjectRef<Types, T> | InterfaceRef<Types, T>;
  /** The reference on the parent row (null: no reference). */
  id: (parent: P) => string | null;
  description: string;
  /**
   * Null allowed: a reference that may be absent or name nothing the caller can see. Without it the
   * reference always names a row, and a missing one is an internal error (a dangling reference).
   */
  nullable?: boolean;
  /** How to read the rows, for a type that is not a node. */
  load?: NodeLoading<T>;
}

/** Adds the field `name` to `parent`: the row its reference names, batched with the other parents' (see above). */
export function relation<P, T>(parent: ObjectRef<Types, P>, name: string, options: RelationOptions<P, T>): void {
  // Looked up when first resolved, not now: the target's module may register its node after this one runs.
  const read = (ctx: GraphQLContext, id: string | null) =>
    id === null ? null : loadRelated(ctx, options.load ?? nodeLoading<T>(options.type), id);
  // Pothos cannot check a resolver against a type parameter's shape; `options` ties the two together.
  const type = options.type as unknown as ObjectRef<Types, object>;
  builder.objectField(parent, name, (t) =>
    options.nullable
      ? t.field({
          type,
          nullable: true,
          description: options.description,
          resolve: (row, _args, ctx) => read(ctx, options.id(row)) as Promise<object | null> | null,
        })
      : t.field({
          type,
          description: options.description,
          resolve: async (row, _args, ctx) => {
            const id = options.id(row);
            const found = await read(ctx, id);
            if (found === null) throw new Error(`dangling reference: ${parent.name}.${name} names ${id}`);
            return found as object;
          },
        }),
  );
}

/** Nullable relations of `parent` to rows of one `type`, declared as a table: field name → [its reference, its description]. */
export function nullableRelations<P, T>(
  parent: ObjectRef<Types, P>,
  type: ObjectRef<Types, T> | InterfaceRef<Types, T>,
  fields: Record<string, [id: (parent: P) => string | null, description: string]>,
): void {
  for (const [name, [id, description]] of Object.entries(fields)) relation(parent, name, { type, nullable: true, id, description });
}
