// Every relative link in the project's markdown resolves: README.md, every page under docs/ and
// client/README.md. A link to a file must name one that exists; a link with an anchor (`page.md#section`
// or `#section`) must name a heading of that page, by GitHub's rule for heading anchors (the heading's
// text lowercased, punctuation removed, spaces turned into '-', a repeated anchor suffixed -1, -2, …).
// So a section that moves to another page cannot leave a dead link behind.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const FILES = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs')), join(root, 'client', 'README.md')];

/** The lines of a markdown text outside fenced code blocks, with their line numbers. */
function proseLines(text: string): { line: string; number: number }[] {
  const lines: { line: string; number: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker[0]!;
      else if (marker[0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) lines.push({ line, number: index + 1 });
  });
  return lines;
}

/** GitHub's anchor for a heading's text. */
export function headingAnchor(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML tags
    .replace(/[`*]/g, '') // code spans and emphasis markers
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();

function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = headingAnchor(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const { line } of proseLines(readFileSync(file, 'utf8'))) {
    for (const match of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1]!);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

/** The link targets of a markdown file: inline links and images, and reference definitions. */
function linksOf(file: string): { target: string; number: number }[] {
  const links: { target: string; number: number }[] = [];
  for (const { line, number } of proseLines(readFileSync(file, 'utf8'))) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: match[1]!, number });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(withoutCode);
    if (definition) links.push({ target: definition[1]!, number });
  }
  return links;
}

/** Why a link is dead, or undefined when it resolves. */
function problem(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined; // http:, mailto:, …
  if (target.startsWith('/')) return 'absolute path (use a path relative to the page)';
  const hash = target.indexOf('#');
  const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved = path === '' ? file : resolve(dirname(file), path);
  if (!existsSync(resolved)) return `no file ${relative(root, resolved)}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!resolved.endsWith('.md')) return undefined;
  if (!anchorsOf(resolved).has(anchor)) return `no heading #${anchor} in ${relative(root, resolved)}`;
  return undefined;
}

describe('markdown links', () => {
  it('computes GitHub heading anchors', () => {
    expect(headingAnchor('Running as root')).toBe('running-as-root');
    expect(headingAnchor('Database tools: psql, backup and restore')).toBe('database-tools-psql-backup-and-restore');
    expect(headingAnchor('Long threads: `npm run bench:context`')).toBe('long-threads-npm-run-benchcontext');
    expect(headingAnchor('When PostgreSQL or Redis goes away')).toBe('when-postgresql-or-redis-goes-away');
    expect(headingAnchor('A `snake_case` field — and [a link](x.md)')).toBe('a-snake_case-field--and-a-link');
  });

  it('checks the files and finds the links it should', () => {
    const names = FILES.map((file) => relative(root, file));
    expect(names).toContain('README.md');
    expect(names).toContain('docs/ARCHITECTURE.md');
    expect(names).toContain('docs/api/README.md');
    expect(names).toContain('client/README.md');
    const readmeLinks = linksOf(join(root, 'README.md')).map((link) => link.target);
    expect(readmeLinks).toContain('docs/images/console.png');
    expect(readmeLinks).toContain('docs/operations.md#nodejs');
  });

  it('resolves every relative link and anchor in README.md, docs/ and client/README.md', () => {
    const dead: string[] = [];
    for (const file of FILES) {
      for (const { target, number } of linksOf(file)) {
        const why = problem(file, target);
        if (why) dead.push(`${relative(root, file)}:${number}: ${target} — ${why}`);
      }
    }
    expect(dead).toEqual([]);
  });
});
