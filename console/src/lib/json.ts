// JSON objects typed into a text area (a configuration, labels, run options). The messages name the
// field, so the form can show them as they are.

/** The object, nothing for a blank field, or a problem naming `field`. */
export function readJsonObject(text: string, field: string): { value?: Record<string, unknown>; problem?: string } {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `${field} is not JSON: ${(error as Error).message}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: `${field} must be a JSON object.` };
  return { value: value as Record<string, unknown> };
}

/**
 * readJsonObject for a label map (the `Labels` scalar): every value must be a string. The service
 * checks keys and lengths itself and names the label at fault.
 */
export function readJsonLabels(text: string, field: string): { value?: Record<string, string>; problem?: string } {
  const { value, problem } = readJsonObject(text, field);
  if (!value) return { problem };
  const labels: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') return { problem: `${field}: the value of ${JSON.stringify(key)} must be a string.` };
    labels[key] = item;
  }
  return { value: labels };
}

/** readJsonObject for a form that catches: blank means `{}`, a problem is thrown as an Error. */
export function parseJsonObject(text: string, field: string): Record<string, unknown> {
  const { value, problem } = readJsonObject(text, field);
  if (problem) throw new Error(problem);
  return value ?? {};
}

/**
 * A JSON value the service answered (a `JSON` scalar: a configuration, settings) as an object's members;
 * anything but an object reads as empty, so a form never breaks on an unexpected shape.
 */
export function jsonObject(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
