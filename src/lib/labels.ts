// Labels: a map of string to string. Keys follow the Kubernetes-like shape most tools accept
// (optional DNS prefix, then 1–63 characters of [A-Za-z0-9._-] starting and ending alphanumeric);
// values are at most 256 characters of printable text.
import Type from 'typebox';
import { invalidArgument, quoteInput, MAX_ECHO_CHARS } from './errors.js';
import { readDocument } from './json-documents.js';

export const MAX_LABELS = 32;
export const MAX_SELECTORS = 8;
const KEY = /^(?:[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?\/)?[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
const MAX_VALUE = 256;

export type Labels = Record<string, string>;

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
    // eslint-disable-next-line no-control-regex -- label values must be printable: control characters are what this finds
    if (item.length > MAX_VALUE || /[\u0000-\u001f\u007f]/.test(item)) {
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
