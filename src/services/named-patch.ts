// The fields every named, labelled resource's create and update share, checked the same way everywhere.
import { validateLabels } from '../lib/labels.js';
import { validateDescription, validateName } from '../lib/text-fields.js';
import type { Actor } from './deps.js';

export interface NamedPatch {
  name?: unknown;
  description?: unknown;
  labels?: unknown;
  enabled?: boolean | null;
}

/**
 * The update data for the name, description, labels and enabled flag a patch gives (checked in that
 * order; a field the patch leaves out, or a null `enabled`, is left out; null labels clear them).
 */
export function namedPatchData(patch: NamedPatch): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (patch.name !== undefined) data.name = validateName(patch.name);
  if (patch.description !== undefined) data.description = validateDescription(patch.description);
  if (patch.labels !== undefined) data.labels = validateLabels(patch.labels ?? {});
  if (patch.enabled !== undefined && patch.enabled !== null) data.enabled = patch.enabled;
  return data;
}

/** The name, description and labels a new resource's input gives, checked in that order (no labels: none). */
export function newNamedFields(input: NamedPatch) {
  return {
    name: validateName(input.name),
    description: validateDescription(input.description),
    labels: input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels),
  };
}

/** The columns every new named resource of the caller's workspace starts with (enabled unless the input says otherwise). */
export function newNamedRow(actor: Actor, id: string, named: ReturnType<typeof newNamedFields>, enabled: boolean | null | undefined) {
  return {
    id,
    workspaceId: actor.workspaceId,
    ...named,
    enabled: enabled ?? true,
    createdById: actor.principalId,
    updatedById: actor.principalId,
  };
}
