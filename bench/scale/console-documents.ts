// The console's own GraphQL operations (console/src/graphql/*.graphql), each with the fragments it
// spreads: the bench sends exactly what the console sends.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kind, parse, print, visit, type DefinitionNode, type FragmentDefinitionNode } from 'graphql';

const DIRECTORY = join(import.meta.dirname, '../../console/src/graphql');

const definitions: DefinitionNode[] = readdirSync(DIRECTORY)
  .filter((name) => name.endsWith('.graphql'))
  .flatMap((name) => parse(readFileSync(join(DIRECTORY, name), 'utf8')).definitions);

const fragments = new Map(
  definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
);

/** The text of console operation `name` with every fragment it needs. */
export function consoleOperation(name: string): string {
  const operation = definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name);
  if (!operation) throw new Error(`no console operation ${name}`);
  const needed = new Set<string>();
  const collect = (node: DefinitionNode) =>
    visit(node, {
      FragmentSpread(spread) {
        if (needed.has(spread.name.value)) return;
        needed.add(spread.name.value);
        collect(fragments.get(spread.name.value)!);
      },
    });
  collect(operation);
  return [operation, ...[...needed].map((fragment) => fragments.get(fragment)!)].map((d) => print(d)).join('\n\n');
}
