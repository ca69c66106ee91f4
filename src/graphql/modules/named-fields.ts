// What the named resources of a workspace (templates, connections, memories, providers, models,
// assets, agents, skills, and the workspace itself) show and take alike: a name, a description and a
// label map, and — all but the workspace — the workspace they belong to. One place for those fields,
// so the resources keep the same names, types and nullability.
import type { InputFieldBuilder, ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import type { Types } from './common.js';
import { withLabelList } from './labels.js';

interface NamedRow {
  name: string;
  description: string;
  labels: unknown;
}

/** Adds `name`, `description`, `labels` (the map, JSON: outputs stay JSON within v1) and `labelList` (the pairs) to a resource's type. */
export function withNameAndLabels<T extends NamedRow>(ref: ObjectRef<Types, T>): void {
  // Refs are invariant in their row type, so the shared row's fields are added through unknown; every
  // row of `ref` has them (`T extends NamedRow`).
  builder.objectFields(ref as unknown as ObjectRef<Types, NamedRow>, (t) => ({
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    labels: t.expose('labels', { type: 'JSON' }),
  }));
  withLabelList(ref);
}

/** A named resource of a workspace: `workspaceId` and the fields of `withNameAndLabels`. */
export function withNamedResourceFields<T extends NamedRow & { workspaceId: string }>(ref: ObjectRef<Types, T>): void {
  builder.objectField(ref as unknown as ObjectRef<Types, { workspaceId: string }>, 'workspaceId', (t) => t.exposeString('workspaceId'));
  withNameAndLabels(ref);
}

/**
 * The `name`, `description` and `labels` fields of a create or update input, all optional (a create
 * input whose service requires a name declares `name` itself after these).
 */
export function nameAndLabelInputs(t: InputFieldBuilder<Types, 'InputObject'>) {
  return { name: t.string(), description: t.string(), labels: t.field({ type: 'Labels' }) };
}

interface ConfiguredRow {
  config: unknown;
  enabled: boolean;
  credentialCiphertext: string | null;
}

/**
 * The `config`, `enabled` and `credentialConfigured` fields of a resource holding a configuration
 * and a write-only credential (providers, connections): the credential itself is never shown, only
 * whether one is stored.
 */
export function withConfigAndCredential<T extends ConfiguredRow>(ref: ObjectRef<Types, T>): void {
  builder.objectFields(ref as unknown as ObjectRef<Types, ConfiguredRow>, (t) => ({
    config: t.expose('config', { type: 'JSON' }),
    enabled: t.exposeBoolean('enabled'),
    credentialConfigured: t.boolean({
      description: 'the credential itself is never returned',
      resolve: (row) => row.credentialCiphertext !== null,
    }),
  }));
}
