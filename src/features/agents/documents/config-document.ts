// Reading the maps of a stored document (agent configuration, run options) in a fixed order. The
// documents' shapes and types are defined once, in config-schema.ts and output-spec.ts.

/** A map's entries ordered by key (code point order): the order of the typed lists built from maps. */
export function entriesByKey<V>(map: Record<string, V> | undefined | null): [string, V][] {
  return Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
