// Labels as people type them. A form takes one `key=value` (or `key:value`) a line or comma; a list's
// filter takes `key:value` selectors, the API's own syntax, sent as they are. The service validates keys
// and values (and names a bad one); here we only split text and refuse what is certainly a mistake.

import type { LabelPairFragment } from '../../generated/graphql.ts';

export type Labels = Record<string, string>;

/** A label as the API lists it (`labelList`, ordered by key). */
export type LabelPair = LabelPairFragment;

/** Thrown for an entry with no separator; the message names the entry, for the form to show. */
export class LabelsError extends Error {}

/** `team:core, tier:gold` (commas or lines) → ['team:core', 'tier:gold']; blanks are dropped. */
export function parseLabelSelectors(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * Label entries → a labels map. Each entry is `key=value` or `key:value` (whichever separator comes
 * first), one a line or comma-separated; an entry without a separator throws a LabelsError.
 */
export function parseLabels(text: string): Labels {
  const labels: Labels = {};
  for (const entry of parseLabelSelectors(text)) {
    const at = entry.search(/[:=]/);
    if (at <= 0) throw new LabelsError(`Labels: "${entry}" is not key=value`);
    labels[entry.slice(0, at).trim()] = entry.slice(at + 1).trim();
  }
  return labels;
}

/** A labels map or list → one `key=value` a line (the form's own format); `separator` may be ':'. */
export function formatLabels(labels: Labels | LabelPair[] | null | undefined, separator: '=' | ':' = '='): string {
  return labelPairs(labels)
    .map((label) => `${label.key}${separator}${label.value}`)
    .join('\n');
}

/** The labels of a row as short `key=value` words, for a table cell. */
export function labelWords(labels: Labels | LabelPair[] | null | undefined): string {
  return labelPairs(labels)
    .map((label) => `${label.key}=${label.value}`)
    .join(', ');
}

function labelPairs(labels: Labels | LabelPair[] | null | undefined): LabelPair[] {
  if (!labels) return [];
  if (Array.isArray(labels)) return labels;
  return Object.entries(labels).map(([key, value]) => ({ key, value: String(value) }));
}

/** parseLabels for a form that shows the problem beside the field instead of catching. */
export function readLabels(text: string): { labels: Labels } | { error: string } {
  try {
    return { labels: parseLabels(text) };
  } catch (error) {
    if (error instanceof LabelsError) return { error: error.message };
    throw error;
  }
}
