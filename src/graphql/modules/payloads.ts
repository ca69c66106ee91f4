// Mutation payloads. Every mutation answers an object named after it (`createAgent` →
// `CreateAgentPayload`), so a mutation can gain members later (a second object it changed, a
// warning) without breaking a client's selection. Most services return the one object a mutation
// changed: its payload carries it under one member (`CreateAgentPayload.agent`), resolved from the
// service's answer itself, so resolvers stay as they are and only their `type` names the payload.
import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import type { Types } from './common.js';

/** `agent` → `Agent`: a field's name as the start of a type's or another field's name. */
export const capitalize = (word: string) => word[0]!.toUpperCase() + word.slice(1);

/** `createAgent` → `CreateAgentPayload`. */
export const payloadName = (mutation: string) => `${capitalize(mutation)}Payload`;

/**
 * The payload of `mutation`, whose service answers one `T`: `{ [member]: T! }`. The payload's
 * value is the service's answer; `member` resolves to it.
 */
export function payloadOf<T>(mutation: string, member: string, ref: ObjectRef<Types, T>, description?: string): ObjectRef<Types, T> {
  return builder.objectRef<T>(payloadName(mutation)).implement({
    description: `The result of \`${mutation}\`.`,
    // A member named at run time: the static type leaves it out (as revisioned.ts does for its own).
    // (`value as never`: Pothos cannot relate the generic `T` to the field's resolver result type.)
    fields: (t) =>
      ({ [member]: t.field({ type: ref, description, resolve: (value) => value as never }) }) as object as Record<string, never>,
  });
}

/** The payload of a mutation that answers only whether it did its work: `{ [member]: Boolean! }`. */
export function flagPayload(mutation: string, member: string, description: string): ObjectRef<Types, boolean> {
  return builder.objectRef<boolean>(payloadName(mutation)).implement({
    description: `The result of \`${mutation}\`.`,
    fields: (t) => ({ [member]: t.boolean({ description, resolve: (value) => value }) }) as object as Record<string, never>,
  });
}
