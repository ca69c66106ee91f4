// Labels: a map of string to string. Keys follow the Kubernetes-like shape most tools accept
// (optional DNS prefix, then 1–63 characters of [A-Za-z0-9._-] starting and ending alphanumeric);
// values are at most 256 characters of printable text.
import Type, { type Static } from 'typebox';
import { invalidArgument, quoteInput, MAX_ECHO_CHARS } from './errors.js';
import { readDocument } from './json-documents.js';

export const MAX_LABELS = 32;
export const MAX_SELECTORS = 8;
const KEY_PATTERN = '^(?:[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?\\/)?[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$';
const KEY = new RegExp(KEY_PATTERN);
const MAX_VALUE = 256;
// eslint-disable-next-line no-control-regex -- label values must be printable: control characters are what this finds
const UNPRINTABLE = /[\u0000-\u001f\u007f]/;

export const LABELS_DESCRIPTION = `a map of label key to value: at most ${MAX_LABELS} labels; keys an optional DNS prefix and \`/\`, then 1 to 63 characters of [A-Za-z0-9._-] starting and ending alphanumeric; values at most ${MAX_VALUE} printable characters`;

/**
 * A label map as written by a caller, defined once: its TypeScript type (`Labels`), the `Labels`
 * GraphQL scalar's JSON Schema and `validateLabels` (which names the member at fault) all follow it.
 */
export const LabelsSchema = Type.Record(
  Type.String({ pattern: KEY_PATTERN }),
  Type.String({ maxLength: MAX_VALUE, pattern: `^[^${UNPRINTABLE.source.slice(1, -1)}]*$` }),
  {
    maxProperties: MAX_LABELS,
    additionalProperties: false,
    description: LABELS_DESCRIPTION,
  },
);
export type Labels = Static<typeof LabelsSchema>;

/** A stored label map: every one went through validateLabels, so only its shape is checked on a read. */
const StoredLabels = Type.Record(Type.String(), Type.String());

/** Reads a `labels` column (`column`: `table.labels`, named when the stored map is not one). */
export const storedLabels = (labels: unknown, column: string): Labels => readDocument(StoredLabels, labels, column);

export function validateLabels(value: unknown, field = 'labels', max = MAX_LABELS): Labels {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(`${field} must be an object mapping strings to strings`, field);
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > max) throw invalidArgument(`${field} may carry at most ${max} labels`, field);
  for (const [key, item] of entries) {
    if (!KEY.test(key))
      throw invalidArgument(
        `${field} key ${quoteInput(key)} is not a valid label key`,
        `${field}.${key.length > MAX_ECHO_CHARS ? `${key.slice(0, MAX_ECHO_CHARS)}…` : key}`,
      );
    if (typeof item !== 'string') throw invalidArgument(`${field}.${key} must be a string`, `${field}.${key}`);
    if (item.length > MAX_VALUE || UNPRINTABLE.test(item)) {
      throw invalidArgument(`${field}.${key} must be at most ${MAX_VALUE} printable characters`, `${field}.${key}`);
    }
  }
  return Object.fromEntries(entries) as Labels;
}

export interface LabelSelector {
  key: string;
  value: string;
}

/** Parses repeated `label=key:value` selectors; at most 8, all must match. */
export function parseLabelSelectors(selectors: readonly string[] | null | undefined): LabelSelector[] {
  if (!selectors || selectors.length === 0) return [];
  if (selectors.length > MAX_SELECTORS) throw invalidArgument(`at most ${MAX_SELECTORS} label selectors are allowed`, 'label');
  return selectors.map((selector) => {
    const colon = selector.indexOf(':');
    if (colon <= 0) throw invalidArgument(`label selector ${quoteInput(selector)} must be key:value`, 'label');
    return { key: selector.slice(0, colon), value: selector.slice(colon + 1) };
  });
}

/** A Prisma `where` fragment for a jsonb `labels` column (all selectors must match). */
export function labelsWhere(selectors: LabelSelector[]): { AND: { labels: { path: string[]; equals: string } }[] } | Record<string, never> {
  if (selectors.length === 0) return {};
  return { AND: selectors.map(({ key, value }) => ({ labels: { path: [key], equals: value } })) };
}
