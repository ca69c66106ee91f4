// Length limits for the short texts every resource carries, decided once (documented in
// docs/api/README.md, "Input rules and limits"). Services call these; the REST shim never does.
import { invalidArgument } from './errors.js';

export const TEXT_LIMITS = {
  /** Names of agents, skills, providers, models, memories, the workspace. */
  name: 200,
  /** Descriptions. */
  description: 4000,
  /** Revision notes. */
  note: 2000,
  /** Session and thread titles. */
  title: 500,
  /** A model's name at its provider (`provider_model`). */
  providerModel: 256,
} as const;

/** A required name: 1 to 200 characters, not only whitespace. */
export function validateName(name: unknown, field = 'name'): string {
  if (typeof name !== 'string' || name.trim() === '' || name.length > TEXT_LIMITS.name)
    throw invalidArgument(`${field} must be 1 to ${TEXT_LIMITS.name} characters`, field);
  return name;
}

/** Optional text (null or absent → ''): a string of at most `limit` characters. */
function optionalText(value: unknown, limit: number, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string' || value.length > limit)
    throw invalidArgument(`${field} must be a string of at most ${limit} characters`, field);
  return value;
}

/** An optional name (null or absent → ''): at most 200 characters. */
export const validateOptionalName = (name: unknown, field = 'name') => optionalText(name, TEXT_LIMITS.name, field);
/** A description (null or absent → ''): at most 4000 characters. */
export const validateDescription = (description: unknown, field = 'description') =>
  optionalText(description, TEXT_LIMITS.description, field);
/** A revision note (null or absent → ''): at most 2000 characters. */
export const validateNote = (note: unknown, field = 'note') => optionalText(note, TEXT_LIMITS.note, field);
/** A title (null or absent → ''): at most 500 characters. */
export const validateTitle = (title: unknown, field = 'title') => optionalText(title, TEXT_LIMITS.title, field);

/** A model's name at its provider: 1 to 256 characters. */
export function validateProviderModel(value: unknown, field = 'provider_model'): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > TEXT_LIMITS.providerModel) {
    throw invalidArgument(`${field} (the provider’s name for the model) must be 1 to ${TEXT_LIMITS.providerModel} characters`, field);
  }
  return value;
}
