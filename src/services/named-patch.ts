// The fields every named, labelled resource's update shares, checked the same way everywhere.
import { validateLabels } from '../lib/labels.js';
import { validateDescription, validateName } from '../lib/text-fields.js';

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
