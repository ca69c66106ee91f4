// Relay global ids. Every stored id is already `<prefix>_<ULID>` (src/lib/ids.ts): unique across
// every kind and every workspace, and its prefix names its kind. So a node's global id *is* its id,
// unchanged — the same string the REST API and every `…Id` field carry — and `node(id)` learns the
// type from the prefix. A kind whose rows have no such id (models: their key is unique in a workspace
// only) registers its own shape of global id under its own prefix (`mdl_<workspaceId>:<key>`).
//
// The node types are not listed here: each GraphQL module registers its own types with the kind of
// their ids (`asNode` in src/graphql/modules/node.ts calls `registerNodeType`), whose prefix comes
// from ID_PREFIX, when the schema imports it, which is before any id is parsed.

import { ID_PREFIX, type IdKind } from './ids.js';

/**
 * A node type: the kind of its stored ids (`ID_PREFIX` gives their prefix) or, for a kind whose rows
 * have no stored id, a prefix of its own with the shape its global ids have.
 */
export type NodeType = { typename: string } & (
  | { kind: IdKind; prefix?: undefined; matches?: undefined }
  | {
      kind?: undefined;
      prefix: string;
      /** Whether a global id starting with `<prefix>_` is one of this type's. */
      matches: (globalId: string) => boolean;
    }
);

/** A registered node type, its prefix resolved. */
export interface RegisteredNodeType {
  typename: string;
  prefix: string;
  /** The kind of its stored ids; absent for a type with global ids of its own shape. */
  kind?: IdKind;
  matches?: (globalId: string) => boolean;
}

const STORED_ID = /^([a-z]{3})_[0-9A-HJKMNP-TV-Z]{26}$/;
const PREFIX = /^[a-z]{3}$/;
const typesByPrefix = new Map<string, RegisteredNodeType>();
const ID_KIND_PREFIXES = new Set<string>(Object.values(ID_PREFIX));

/**
 * Registers a node type; two types may not share a prefix, a type has one prefix, and a prefix of
 * its own may not be one of a stored id kind's.
 */
export function registerNodeType(declared: NodeType): void {
  const type: RegisteredNodeType =
    declared.kind !== undefined
      ? { typename: declared.typename, kind: declared.kind, prefix: ID_PREFIX[declared.kind] }
      : { typename: declared.typename, prefix: declared.prefix, matches: declared.matches };
  if (type.kind === undefined && ID_KIND_PREFIXES.has(type.prefix))
    throw new Error(`node type ${type.typename}: the prefix ${type.prefix} belongs to stored ids; register the id kind instead`);
  if (!PREFIX.test(type.prefix))
    throw new Error(`node type ${type.typename}: the prefix ${JSON.stringify(type.prefix)} is not three letters a-z`);
  const taken = typesByPrefix.get(type.prefix);
  if (taken && taken.typename !== type.typename)
    throw new Error(`node types ${taken.typename} and ${type.typename} share the prefix ${type.prefix}`);
  const other = [...typesByPrefix.values()].find((known) => known.typename === type.typename && known.prefix !== type.prefix);
  if (other) throw new Error(`node type ${type.typename} registered with two prefixes, ${other.prefix} and ${type.prefix}`);
  typesByPrefix.set(type.prefix, type);
}

/** The registered node types' names by prefix (for tests and documentation). */
export function nodeTypesByPrefix(): Record<string, string> {
  return Object.fromEntries([...typesByPrefix].map(([prefix, type]) => [prefix, type.typename]));
}

/** The registered node types (for tests and documentation). */
export function registeredNodeTypes(): RegisteredNodeType[] {
  return [...typesByPrefix.values()];
}

/**
 * The node type a global id names, with the id itself (what the type's loader takes), or null for
 * anything that is not the id of a node type: malformed, another kind's id (a workspace, an API
 * key), or too long to be an id at all.
 */
export function parseNodeId(globalId: string): { typename: string; id: string } | null {
  if (globalId.length > 300) return null;
  const type = typesByPrefix.get(globalId.slice(0, 3));
  if (!type || globalId[3] !== '_') return null;
  const matches = type.matches ? type.matches(globalId) : STORED_ID.test(globalId);
  return matches ? { typename: type.typename, id: globalId } : null;
}
