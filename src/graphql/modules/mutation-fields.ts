// The mutations of a resource whose resolvers only hand their arguments to one service function and
// answer what it returns in the mutation's payload (`createThread` → `CreateThreadPayload.thread`):
// create from an input, update under If-Match, and the actions on one object by its id (archive,
// retire, stop, …). `resourceMutations(member, ref)` names each mutation `<verb><Member>` and gives
// every one the same arguments (`input`, `id`, `ifMatch`), so the resources cannot drift apart.
import type { InputObjectRef, ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import { capitalize, payloadOf } from './payloads.js';
import type { Types } from './common.js';
import type { CallContext } from '../../services/call-context.js';

type IfMatch = string | null | undefined;

/** The mutation's description, when it has more to say than its payload's. */
interface Described {
  description?: string;
}

export interface ResourceMutations<T> {
  /** `create<Member>(input: <Input>!)` (or `<verb><Member>`: `uploadAsset`). */
  create<I>(
    input: InputObjectRef<Types, I>,
    create: (call: CallContext, input: NoInfer<I>) => Promise<T>,
    options?: Described & { verb?: string },
  ): void;
  /** `update<Member>(id: ID!, ifMatch: String, input: <Input>!)`. */
  update<I>(
    input: InputObjectRef<Types, I>,
    update: (call: CallContext, id: string, ifMatch: IfMatch, input: NoInfer<I>) => Promise<T>,
    options?: Described,
  ): void;
  /** `<verb><Member>(id: ID!, ifMatch: String)`: an action that changes the object's version. */
  versionedAction(verb: string, act: (call: CallContext, id: string, ifMatch: IfMatch) => Promise<T>, options?: Described): void;
  /** `<verb><Member>(id: ID!)`: an action the service applies whatever the version. */
  action(verb: string, act: (call: CallContext, id: string) => Promise<T>, options?: Described): void;
}

/** The id argument: Relay's `ID!` for the resources of the API, `String!` for the support API's records. */
export type IdArgument = 'ID' | 'String';

/**
 * `<name>(id: ID!): <type>!` — a mutation on one object by its id (`String!` with `idType: 'String'`),
 * answering what `act` returns.
 */
export function idMutation<R>(
  name: string,
  type: ObjectRef<Types, R>,
  act: (call: CallContext, id: string) => Promise<R>,
  options: Described & { idType?: IdArgument } = {},
): void {
  builder.mutationField(name, (t) =>
    t.field({
      // (Pothos' field types cannot follow the generic `R`: `act`'s signature keeps it.)
      type: type as ObjectRef<Types, unknown>,
      description: options.description,
      args: { id: options.idType === 'String' ? t.arg.string({ required: true }) : t.arg.id({ required: true }) },
      resolve: async (_root, args, ctx) => act(await ctx.call(), String(args.id)),
    }),
  );
}

/** The mutations of the resource `member` (`thread`), each answering `{ [member]: <ref>! }`. */
export function resourceMutations<T>(member: string, ref: ObjectRef<Types, T>): ResourceMutations<T> {
  const Member = capitalize(member);
  // Registered on the payload as `ObjectRef<Types, unknown>`: Pothos' field types cannot follow the
  // generic row type; the service functions' signatures above keep it (a payload's value is its row).
  const payload = (mutation: string) => payloadOf(mutation, member, ref) as ObjectRef<Types, unknown>;
  // Input refs likewise: the service function's parameter says what the input is.
  const inputArg = <I>(input: InputObjectRef<Types, I>) => input as InputObjectRef<Types, unknown>;
  return {
    create(input, create, options = {}) {
      const name = `${options.verb ?? 'create'}${Member}`;
      builder.mutationField(name, (t) =>
        t.field({
          type: payload(name),
          description: options.description,
          args: { input: t.arg({ type: inputArg(input), required: true }) },
          resolve: async (_root, args, ctx) => create(await ctx.call(), args.input as never),
        }),
      );
    },
    update(input, update, options = {}) {
      const name = `update${Member}`;
      builder.mutationField(name, (t) =>
        t.field({
          type: payload(name),
          description: options.description,
          args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: inputArg(input), required: true }) },
          resolve: async (_root, args, ctx) => update(await ctx.call(), String(args.id), args.ifMatch, args.input as never),
        }),
      );
    },
    versionedAction(verb, act, options = {}) {
      const name = `${verb}${Member}`;
      builder.mutationField(name, (t) =>
        t.field({
          type: payload(name),
          description: options.description,
          args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
          resolve: async (_root, args, ctx) => act(await ctx.call(), String(args.id), args.ifMatch),
        }),
      );
    },
    action(verb, act, options) {
      const name = `${verb}${Member}`;
      idMutation(name, payloadOf(name, member, ref), act, options);
    },
  };
}
