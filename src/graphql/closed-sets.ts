// The values of every enum of the schema by enum name, so that a refused value can be answered with
// the set it had to come from (errors.ts) without the error masker depending on the schema modules.
const closedSets = new Map<string, readonly string[]>();

export function registerClosedSet(name: string, values: readonly string[]): void {
  closedSets.set(name, values);
}

export function closedSetValues(name: string): readonly string[] | undefined {
  return closedSets.get(name);
}
