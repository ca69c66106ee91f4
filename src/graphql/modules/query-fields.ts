// The root fields most domain modules declare alike: one object read by its id, a page of a list as a
// connection, an object of the caller's workspace, and a subscription that follows one object. Their
// resolvers only hand the arguments to one service function (resolvers are thin), so the shape of
// each — its arguments, how the caller is authenticated, how a page becomes a connection — is written
// here once, and a module names only its type, its service function and its own arguments.
import type { ArgBuilder, InputFieldMap, InputShapeFromFields, ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import { connectionArgs, connectionFrom, type ConnectionArgs, type connectionOf, type Types } from './common.js';
import type { Page } from '../../lib/cursor.js';
import type { CallContext } from '../../services/call-context.js';

/** A connection type made by `connectionOf` over `T`. */
export type ConnectionRef<T> = ReturnType<typeof connectionOf<T>>;

/** What a list's service function is given: the field's own arguments and the page (`limit`, `cursor`). */
export type ListArgs<Args extends InputFieldMap> = InputShapeFromFields<Args> &
  ConnectionArgs & { limit: number | null | undefined; cursor: string | null | undefined };

// The helpers are generic over the row type, which Pothos' field types cannot follow through a type
// parameter; so each registers its field on the ref as `ObjectRef<Types, unknown>` (what the field
// resolves to is the service's answer, of the ref's own row type, by these signatures).
const untyped = <T>(ref: ObjectRef<Types, T>) => ref as ObjectRef<Types, unknown>;

/** `<name>(id: ID!): <Type>!` — one object by its id; another workspace's is not found (the service's rule). */
export function objectQuery<T>(
  name: string,
  ref: ObjectRef<Types, T>,
  get: (call: CallContext, id: string) => Promise<T>,
  description?: string,
): void {
  builder.queryField(name, (t) =>
    t.field({
      type: untyped(ref),
      description,
      args: { id: t.arg.id({ required: true }) },
      resolve: async (_root, args, ctx) => get(await ctx.call(), String(args.id)),
    }),
  );
}

/** `<name>: <Type>!` — an object of the caller's own workspace, read by one service call without arguments. */
export function callerQuery<T>(
  name: string,
  ref: ObjectRef<Types, T>,
  read: (call: CallContext) => Promise<T>,
  description?: string,
): void {
  builder.queryField(name, (t) =>
    t.field({ type: untyped(ref), description, resolve: async (_root, _args, ctx) => read(await ctx.call()) }),
  );
}

/**
 * `<name>(<args>, first, after): <Type>Connection!` — a page of a list. The list's service function
 * gets the field's arguments with the page as `limit` and `cursor`; its page sizes and filters are its own.
 */
export function connectionQuery<T, Args extends InputFieldMap = Record<string, never>>(
  name: string,
  connection: ConnectionRef<T>,
  // `args` comes before `list`, so TypeScript learns the arguments' shape before it reads `list`.
  options: {
    description?: string;
    args?: (arg: ArgBuilder<Types>) => Args;
    list: (call: CallContext, args: ListArgs<Args>) => Promise<Page<T>>;
  },
): void {
  const { description, args: ownArgs, list } = options;
  builder.queryField(name, (t) =>
    t.field({
      type: connection,
      description,
      args: { ...(ownArgs?.(t.arg) as Args), ...connectionArgs(t.arg) },
      // (Pothos cannot relate the generic `Args` to the shape of the merged argument map: it is this
      // field's own arguments plus `first`/`after`, which is what `ListArgs` says.)
      resolve: async (_root, args, ctx) =>
        connectionFrom(args, async (page) => list(await ctx.call(), { ...(args as unknown as ListArgs<Args>), ...page })) as never,
    }),
  );
}

/**
 * `<name>(<idArg>: ID!): <Type>!` subscription — follows one object: `watch` answers the stream of its
 * states (the first one at once when the service says so), each emitted as it is.
 */
export function watchSubscription<T>(
  name: string,
  ref: ObjectRef<Types, T>,
  idArg: string,
  watch: (call: CallContext, id: string) => AsyncIterable<T> | Promise<AsyncIterable<T>>,
  description: string,
): void {
  builder.subscriptionField(name, (t) =>
    t.field({
      type: untyped(ref),
      description,
      // The argument's name is the module's (`threadId`, `runId`).
      args: { [idArg]: t.arg.id({ required: true }) },
      subscribe: async (_root, args, ctx) => watch(await ctx.call(), String(args[idArg])),
      resolve: (value) => value,
    }),
  );
}
