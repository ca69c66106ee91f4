// The canonical pretty JSON of a configuration and a line diff between two of them. Canonical means
// keys sorted at every level, so two revisions differ only where their configurations do, whatever
// order their members were stored in.

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  return value;
}

export type DiffLine = { kind: 'same' | 'added' | 'removed'; text: string };

/**
 * A line diff by longest common subsequence: lines only in `before` are removed, lines only in `after`
 * added. Configurations are small (hundreds of lines), so the quadratic table is fine.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const width = b.length + 1;
  // common[i * width + j]: the length of the longest common subsequence of a[i…] and b[j…].
  const common = new Int32Array((a.length + 1) * width);
  const at = (i: number, j: number) => common[i * width + j] ?? 0;
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      common[i * width + j] = a[i] === b[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i++] ?? '' });
      j++;
    } else if (j >= b.length || (i < a.length && at(i + 1, j) >= at(i, j + 1))) lines.push({ kind: 'removed', text: a[i++] ?? '' });
    else lines.push({ kind: 'added', text: b[j++] ?? '' });
  }
  return lines;
}
