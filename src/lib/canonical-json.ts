// One canonical JSON form (sorted keys, no insignificant whitespace) so that "identical
// configuration" and request digests are well defined.
import { createHash } from 'node:crypto';

/**
 * Sorted keys, no whitespace, `undefined` members dropped (`null` in arrays), non-finite numbers as
 * null. Iterative, not recursive: input is capped at 64 levels (src/lib/input-rules.ts), but
 * documents built elsewhere (model output, tool arguments) must not be able to overflow the stack.
 */
export function canonicalize(value: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or a literal piece of punctuation.
  const stack: ({ value: unknown } | string)[] = [{ value }];
  while (stack.length) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const node = item.value;
    if (node === null || typeof node !== 'object') {
      out.push(typeof node === 'number' && !Number.isFinite(node) ? 'null' : (JSON.stringify(node) ?? 'null'));
      continue;
    }
    const work: ({ value: unknown } | string)[] = [];
    if (Array.isArray(node)) {
      work.push('[');
      node.forEach((element, index) => {
        if (index) work.push(',');
        work.push({ value: element === undefined ? null : element });
      });
      work.push(']');
    } else {
      const entries = Object.entries(node as Record<string, unknown>)
        .filter(([, member]) => member !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      work.push('{');
      entries.forEach(([key, member], index) => {
        work.push(`${index ? ',' : ''}${JSON.stringify(key)}:`);
        work.push({ value: member });
      });
      work.push('}');
    }
    for (let index = work.length - 1; index >= 0; index--) stack.push(work[index]!);
  }
  return out.join('');
}

export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export function digestOf(value: unknown): string {
  return `sha256:${sha256Hex(canonicalize(value))}`;
}

/** Deep equality under the canonical form. */
export function canonicallyEqual(a: unknown, b: unknown): boolean {
  return canonicalize(a) === canonicalize(b);
}
