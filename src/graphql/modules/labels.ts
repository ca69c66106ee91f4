// Labels as typed key/value pairs. Every labelled type keeps its `labels` map (JSON: a map's keys are
// the caller's, so it has no fixed shape a GraphQL type could name) and gains `labelList`, the same
// labels as `[Label!]!`, which code generators can type and UIs can iterate without parsing.
import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import type { Types } from './common.js';
import { entriesByKey } from '../../features/agents/documents/config-document.js';

export interface Label {
  key: string;
  value: string;
}

export const LabelRef = builder.objectRef<Label>('Label').implement({
  description: 'One label: a key and its value.',
  fields: (t) => ({
    key: t.exposeString('key'),
    value: t.exposeString('value'),
  }),
});

/**
 * A label map as pairs, ordered by key (code point order, so the order is the same on every
 * server and does not depend on how the database happens to keep the map's members).
 */
export function labelPairs(labels: unknown): Label[] {
  if (!labels || typeof labels !== 'object' || Array.isArray(labels)) return [];
  return entriesByKey(labels as Record<string, unknown>)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([key, value]) => ({ key, value }));
}

export const LABEL_LIST_DESCRIPTION = 'the labels as key/value pairs, ordered by key; the same labels as the `labels` map';

/** Adds `labelList: [Label!]!` to a type whose values carry a `labels` map. */
export function withLabelList<T extends { labels: unknown }>(ref: ObjectRef<Types, T>): void {
  builder.objectField(ref, 'labelList', (t) =>
    t.field({ type: [LabelRef], description: LABEL_LIST_DESCRIPTION, resolve: (row) => labelPairs(row.labels) }),
  );
}
