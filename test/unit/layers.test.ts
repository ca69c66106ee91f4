// The layer rule, enforced: imports point one way — lib ← storage ← services ← engine, providers
// below the engine, graphql and the REST shim above the services — and no module of src/ reaches
// itself again through its imports. Type-only imports count too: they tie modules just the same.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

// `… from './x.js'` (import and export), `import './x.js'` and `import('./x.js')`.
const SPECIFIERS = [
  /\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g,
  /^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm,
  /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
];

function resolveSpecifier(from: string, specifier: string): string {
  const target = resolve(dirname(from), specifier).replace(/\.js$/, '.ts');
  try {
    if (statSync(target).isDirectory()) return join(target, 'index.ts');
  } catch {
    // not a directory
  }
  return target;
}

/** Every module of src/ (path relative to src/) with the modules of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const target = resolveSpecifier(file, match[1]!);
        if (target.startsWith(`${src}/`) && !target.startsWith(join(src, 'generated'))) targets.add(relative(src, target));
      }
    }
    graph.set(relative(src, file), [...targets]);
  }
  return graph;
}

/** The strongly connected components with more than one module, or a module importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

const graph = importGraph();
const imports = (fromDirs: string[], toDirs: string[]) =>
  [...graph].flatMap(([file, targets]) =>
    fromDirs.some((dir) => file.startsWith(`${dir}/`))
      ? targets.filter((target) => toDirs.some((dir) => target.startsWith(`${dir}/`))).map((target) => `${file} → ${target}`)
      : [],
  );

describe('layers of src/', () => {
  it('reads the import graph (the test itself can see imports)', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('engine/worker.ts')).toContain('services/run-lifecycle.ts');
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('nothing below the engine imports it: services, providers, storage, lib, support', () => {
    expect(imports(['services', 'providers', 'storage', 'lib', 'support', 'agents', 'memory-stores'], ['engine'])).toEqual([]);
  });

  it('lib imports no services, and no layer below GraphQL imports it or the REST shim', () => {
    expect(imports(['lib'], ['services', 'storage', 'providers', 'graphql'])).toEqual([]);
    expect(imports(['services', 'engine', 'providers', 'storage', 'lib'], ['graphql'])).toEqual([]);
  });

  it('writes the runs table from one module only: the run lifecycle', () => {
    const RUN_WRITES =
      /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+runs\b|\.run\s*\.\s*(?:create|createMany|update|updateMany|upsert|delete|deleteMany)\b|delegate:\s*\w+\.run\b/;
    expect(RUN_WRITES.test('await tx.run.updateMany({')).toBe(true);
    expect(RUN_WRITES.test('UPDATE runs SET status')).toBe(true);
    const writers = sourceFiles(src)
      .filter((file) => RUN_WRITES.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file));
    expect(writers).toEqual(['services/run-lifecycle.ts']);
  });

  it('the operator console is a client of the API only: it imports nothing of the service', () => {
    // console/src may import its own modules, the client package and npm packages; a relative import
    // that leaves console/ would reach past GraphQL into the service's code.
    const consoleDir = join(root, 'console');
    const files = (function walk(dir: string): string[] {
      return readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) return walk(path);
        return /\.(ts|tsx)$/.test(name) ? [path] : [];
      });
    })(join(consoleDir, 'src'));
    expect(files.length).toBeGreaterThan(10);
    const outside: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of SPECIFIERS)
        for (const match of text.matchAll(pattern)) {
          const target = resolve(dirname(file), match[1]!);
          if (!target.startsWith(`${consoleDir}/`)) outside.push(`${relative(root, file)} → ${match[1]}`);
        }
    }
    expect(outside).toEqual([]);
  });

  it('finds a cycle and a forbidden import when there is one', () => {
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', ['a.ts']],
          ['d.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(cycles(new Map([['a.ts', ['a.ts']]]))).toEqual([['a.ts']]);
  });
});
