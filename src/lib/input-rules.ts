// The input rules every value a caller sends must meet before it reaches a service or PostgreSQL,
// whatever the surface (REST path/query/header/body, GraphQL variables and literals, graphql-ws).
// Decided once here; applied by the GraphQL pipeline (src/graphql/input-rules.ts) to every
// operation and by the REST shim to the path, query and header values it reads.
//
// - Text may not contain NUL (PostgreSQL text and jsonb cannot store it) or a lone UTF-16
//   surrogate (not Unicode: jsonb refuses it and text would silently become U+FFFD).
// - Free-form JSON nests at most MAX_JSON_DEPTH levels, so nothing downstream that walks a
//   document (canonical JSON, Prisma, the JSON scalar) can run out of stack.
// - Ids are at most MAX_ID_LENGTH characters.
// The walk is iterative: a document nested 20,000 levels is refused, not a stack overflow.
import { invalidArgument, MAX_ECHO_CHARS } from './errors.js';

/** Objects and arrays nest at most this deep in one value (the value itself is level 1). */
export const MAX_JSON_DEPTH = 64;
/** Ids (and model keys, record ids) are at most this long. */
export const MAX_ID_LENGTH = 256;

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a piece of text, or null when it is fine. */
export function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'must not contain unpaired UTF-16 surrogates (text must be valid Unicode)';
  return null;
}

/** Refuses text with NUL or a lone surrogate, naming `field`. */
export function checkText(text: string, field: string): void {
  const problem = textProblem(text);
  if (problem) throw invalidArgument(`${field} ${problem}`, field);
}

/** Refuses an id longer than MAX_ID_LENGTH (and bad text in it), naming `field`. */
export function checkId(id: string, field: string): void {
  checkText(id, field);
  if (id.length > MAX_ID_LENGTH) throw invalidArgument(`${field} must be at most ${MAX_ID_LENGTH} characters`, field);
}

// A caller's object key is part of the path that names a problem: keep it short (bounded echo).
const joinPath = (path: string, segment: string | number) => {
  const part = typeof segment === 'string' && segment.length > MAX_ECHO_CHARS ? `${segment.slice(0, MAX_ECHO_CHARS)}…` : String(segment);
  return path ? `${path}.${part}` : part;
};

/**
 * Checks every string and object key inside a JSON-like value, and its nesting depth, without
 * recursion. `field` names the value; problems inside it are named by their dotted path
 * (`labels.team`, `calls.0.output`). `enclosingLevels`: how many levels already enclose the value.
 */
export function checkValue(value: unknown, field: string, enclosingLevels = 0): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: field, depth: enclosingLevels }];
  while (stack.length) {
    const { value: node, path, depth } = stack.pop()!;
    if (typeof node === 'string') {
      checkText(node, path);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > MAX_JSON_DEPTH) {
      // Name the member the caller nested too deep, not all 64 levels of its path.
      const segments = path.split('.');
      const where = segments.length > 4 ? `${segments.slice(0, 4).join('.')}…` : path;
      throw invalidArgument(`${where} nests deeper than ${MAX_JSON_DEPTH} levels`, where, { max_depth: MAX_JSON_DEPTH });
    }
    if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--)
        stack.push({ value: node[index], path: joinPath(path, index), depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(node as Record<string, unknown>);
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, item] = entries[index]!;
      const problem = textProblem(key);
      if (problem) throw invalidArgument(`a key of ${path || 'the value'} ${problem}`, path);
      stack.push({ value: item, path: joinPath(path, key), depth: depth + 1 });
    }
  }
}
