// The layer rule, enforced: imports point one way — lib ← storage ← providers ← services ← engine,
// GraphQL and the REST shim above the services — every top-level folder and file of src/ (and the
// REST shim) declares which others it may import, and no module reaches itself again through its
// imports. Type-only imports count too: they tie modules just the same.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');
const restShim = join(root, 'rest-shim');

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

/**
 * Every module of src/ and rest-shim/ (path relative to the repository) with the modules of either
 * it imports. The generated Prisma client is a target only: its own imports are not ours to rule.
 */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const ours = (path: string) => path.startsWith(`${src}/`) || path.startsWith(`${restShim}/`);
  for (const file of [...sourceFiles(src), ...sourceFiles(restShim)]) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const target = resolveSpecifier(file, match[1]!);
        if (ours(target)) targets.add(relative(root, target));
      }
    }
    graph.set(relative(root, file), [...targets]);
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

// ── What each part may import ──
// A part is a top-level folder or file of src/, the REST shim, or one role of the feature folders: each
// feature (src/features/<feature>/) holds its service modules at its top, its GraphQL module(s) in
// graphql/, its REST rows and operations in rest/ and, for the agents, the configuration document in
// documents/. A rule names the parts (or single modules) a part may import besides itself; the layer
// table in docs/ARCHITECTURE.md says the same in words. A new folder fails the test until it has a rule.
const FEATURE_DOCUMENTS = 'src/features/*/documents';
const FEATURE_SERVICES = 'src/features/*';
const FEATURE_GRAPHQL = 'src/features/*/graphql';
const FEATURE_REST = 'src/features/*/rest';
const SHARED = ['src/lib', 'src/config.ts', FEATURE_DOCUMENTS];
const STORAGE = ['src/generated', 'src/storage', 'src/db.ts', 'src/secrets.ts', 'src/traces'];
const PROVIDERS = ['src/memory-stores', 'src/providers'];
/** Entry points wire the layers together: they may import anything. */
const EVERYTHING = ['src', 'rest-shim'];

const RULES: Record<string, readonly string[]> = {
  // shared pieces: documents and small helpers, no I/O of the service's own
  'src/lib': [],
  'src/config.ts': ['src/lib'],
  [FEATURE_DOCUMENTS]: ['src/lib'],
  // storage: the database, its client programs and what is stored beside the runs (trace spans)
  'src/generated': [],
  'src/storage': ['src/lib', 'src/config.ts', 'src/generated'],
  'src/db.ts': ['src/lib', 'src/config.ts', 'src/generated', 'src/storage'],
  'src/secrets.ts': ['src/lib', 'src/config.ts'],
  'src/traces': ['src/lib', 'src/config.ts', 'src/generated', 'src/storage', 'src/db.ts'],
  // providers: the vector database clients below the provider type registry that offers them
  'src/memory-stores': [...SHARED, ...STORAGE],
  'src/providers': [...SHARED, ...STORAGE, 'src/memory-stores'],
  // services: the kernel every feature builds on (call context, lists, versions, nodes, seal hooks),
  // then the features' rules, which may use each other's (the cycle test keeps them a tree)
  'src/services': [...SHARED, ...STORAGE, ...PROVIDERS, FEATURE_SERVICES],
  [FEATURE_SERVICES]: [...SHARED, ...STORAGE, ...PROVIDERS, 'src/services'],
  // the engine reaches the database through services only: never the Prisma client (its row types
  // come from src/services/rows.ts), src/db.ts or src/storage; the run tracer's spans are its own
  'src/engine': [...SHARED, 'src/traces', ...PROVIDERS, 'src/services', FEATURE_SERVICES],
  // GraphQL reaches the rules through the services only (Prisma's generated types for Pothos aside)
  'src/graphql': [...SHARED, 'src/generated', 'src/services', FEATURE_SERVICES, FEATURE_GRAPHQL],
  [FEATURE_GRAPHQL]: [...SHARED, 'src/generated', 'src/services', FEATURE_SERVICES, 'src/graphql'],
  // the REST shim executes GraphQL documents: the GraphQL context's constants, never a service; a
  // feature's REST rows are data for it, written with the row type and nothing else; it validates its
  // documents with the service's validation rules (json-variables.ts, which imports nothing of src/)
  'rest-shim': ['src/lib', 'src/graphql/context.ts', 'src/graphql/json-variables.ts', FEATURE_REST],
  [FEATURE_REST]: ['src/lib', 'rest-shim/route-table.ts'],
  // the protocol adapters (MCP) are surfaces like the REST shim: they execute GraphQL documents with
  // the caller's credentials (the context's credential type), never a service, so every protocol
  // gets the same auth, permissions, tenancy and audit as GraphQL itself; their typed documents are
  // generated from their own .graphql operations (never the Prisma client beside them) and validated
  // with the service's validation rules, as the REST shim's are
  'src/protocols': ['src/lib', 'src/graphql/context.ts', 'src/graphql/json-variables.ts', 'src/generated/protocol-documents.ts'],
  // the device daemon is a program of its own that talks to the service over the network only
  'src/envd': ['src/lib'],
  // entry points
  'src/api-reference': EVERYTHING,
  'src/console-bundle': EVERYTHING,
  'src/app.ts': EVERYTHING,
  'src/server.ts': EVERYTHING,
  'src/worker.ts': EVERYTHING,
  'src/deps.ts': EVERYTHING,
  'src/cli.ts': EVERYTHING,
  'src/db-cli.ts': EVERYTHING,
  'src/operator-cli.ts': EVERYTHING,
};

/** The part a module belongs to: `src/<folder>`, `src/<file>.ts`, `rest-shim`, or a feature's role. */
function partOf(path: string): string {
  const [top, second, , role] = path.split('/');
  if (top === 'src' && second === 'features') {
    if (role === 'documents' || role === 'graphql' || role === 'rest') return `src/features/*/${role}`;
    return FEATURE_SERVICES;
  }
  return top === 'src' ? `src/${second}` : top!;
}

/**
 * The parts present in the tree: every folder and module directly under src/ (the feature folders by
 * the roles their files have), and the REST shim. The generated Prisma client counts whether or not
 * it has been generated yet (git does not keep it).
 */
function parts(): string[] {
  const found = readdirSync(src)
    .filter((name) => name !== 'features' && (statSync(join(src, name)).isDirectory() || name.endsWith('.ts')))
    .map((name) => `src/${name}`);
  const featureParts = sourceFiles(join(src, 'features')).map((file) => partOf(relative(root, file)));
  return [...new Set([...found, ...featureParts, 'src/generated', 'rest-shim'])].sort();
}

/** Parts without a rule. */
const unruled = (present: string[], rules: Record<string, readonly string[]>) => present.filter((part) => !(part in rules));

/** Every import a rule does not allow, as `from → to`. */
function forbidden(graph: Map<string, string[]>, rules: Record<string, readonly string[]>): string[] {
  const within = (target: string, allowed: string) =>
    allowed.includes('*') ? partOf(target) === allowed : target === allowed || target.startsWith(`${allowed}/`);
  return [...graph].flatMap(([file, targets]) => {
    const part = partOf(file);
    const allowed = rules[part] ?? [];
    return targets
      .filter((target) => partOf(target) !== part && !allowed.some((entry) => within(target, entry)))
      .map((target) => `${file} → ${target}`);
  });
}

const graph = importGraph();

describe('layers of src/', () => {
  it('reads the import graph (the test itself can see imports)', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('src/engine/worker.ts')).toContain('src/features/runs/run-lifecycle.ts');
    expect(graph.get('rest-shim/router.ts')).toContain('src/graphql/context.ts');
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has a rule for every top-level folder and module of src/ and for the REST shim, and none for what is gone', () => {
    const present = parts();
    expect(present).toContain('src/engine');
    expect(unruled(present, RULES)).toEqual([]);
    expect(Object.keys(RULES).filter((part) => !present.includes(part))).toEqual([]);
  });

  it('places every folder of src/ in a ruled part; a feature folder holds only its roles', () => {
    // A folder's modules take the rule of the part the folder is in (a top-level folder of src/, or
    // a feature role), so a new folder is either inside a ruled part or a new part failing the test
    // above. Inside a feature, a folder other than its roles would silently count as its services.
    const FEATURE_ROLES = new Set(['documents', 'graphql', 'rest']);
    const folders = (function walk(dir: string): string[] {
      return readdirSync(dir)
        .filter((name) => name !== 'generated' && statSync(join(dir, name)).isDirectory())
        .flatMap((name) => [join(dir, name), ...walk(join(dir, name))]);
    })(src).map((dir) => relative(root, dir));
    expect(folders).toContain('src/features/runs/graphql');
    expect(folders).toContain('src/providers/environments');
    const unruledFolders = folders.filter((folder) => !(partOf(`${folder}/x.ts`) in RULES));
    expect(unruledFolders).toEqual([]);
    const strayFeatureFolders = folders.filter((folder) => {
      const [, second, , role] = folder.split('/');
      return second === 'features' && role !== undefined && !FEATURE_ROLES.has(role);
    });
    expect(strayFeatureFolders).toEqual([]);
  });

  it('imports only what the rules allow', () => {
    expect(forbidden(graph, RULES)).toEqual([]);
  });

  it('writes the runs table from one module only: the run lifecycle', () => {
    const RUN_WRITES =
      /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+runs\b|\.run\s*\.\s*(?:create|createMany|update|updateMany|upsert|delete|deleteMany)\b|delegate:\s*\w+\.run\b/;
    expect(RUN_WRITES.test('await tx.run.updateMany({')).toBe(true);
    expect(RUN_WRITES.test('UPDATE runs SET status')).toBe(true);
    const writers = sourceFiles(src)
      .filter((file) => RUN_WRITES.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file));
    expect(writers).toEqual(['features/runs/run-lifecycle.ts']);
  });

  it('the engine queries nothing itself: every statement it needs is a service function', () => {
    // A Prisma delegate call on a database handle (`deps.db.runItem.findMany`, `call.db.thread…`,
    // `tx.run…`) or a raw statement or transaction of the client.
    const QUERY = /\b(?:db|tx)\s*\.\s*(?:[a-z]\w*\s*\.\s*\w+\s*\(|\$(?:queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe|transaction)\b)/;
    expect(QUERY.test('await call.db.thread.findUnique({')).toBe(true);
    expect(QUERY.test('this.deps.db.$executeRaw`SELECT 1`')).toBe(true);
    expect(QUERY.test('await claimRun(this.deps.db, {')).toBe(false);
    const querying = sourceFiles(join(src, 'engine'))
      .filter((file) => QUERY.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file));
    expect(querying).toEqual([]);
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
    expect(
      forbidden(
        new Map([
          ['src/features/agents/documents/a.ts', ['src/lib/b.ts', 'src/features/agents/documents/c.ts', 'src/services/d.ts']],
          ['rest-shim/e.ts', ['src/graphql/context.ts', 'src/graphql/schema.ts']],
          ['src/widgets/f.ts', ['src/lib/b.ts']],
        ]),
        RULES,
      ),
    ).toEqual([
      'src/features/agents/documents/a.ts → src/services/d.ts',
      'rest-shim/e.ts → src/graphql/schema.ts',
      'src/widgets/f.ts → src/lib/b.ts',
    ]);
    expect(unruled(['src/lib', 'src/widgets', 'src/app.ts'], RULES)).toEqual(['src/widgets']);
  });
});
