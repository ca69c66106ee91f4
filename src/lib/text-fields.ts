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
  if (typeof name !== 'string' || name.trim() === '' || name.length > TEXT_LIMITS.name) throw invalidArgument(`${field} must be 1 to ${TEXT_LIMITS.name} characters`, field);
  return name;
}

/** An optional name (null or absent → ''): at most 200 characters. */
export function validateOptionalName(name: unknown, field = 'name'): string {
  if (name === undefined || name === null) return '';
  if (typeof name !== 'string' || name.length > TEXT_LIMITS.name) throw invalidArgument(`${field} must be at most ${TEXT_LIMITS.name} characters`, field);
  return name;
}

/** A description (null or absent → ''): at most 4000 characters. */
export function validateDescription(description: unknown, field = 'description'): string {
  if (description === undefined || description === null) return '';
  if (typeof description !== 'string' || description.length > TEXT_LIMITS.description) throw invalidArgument(`${field} must be at most ${TEXT_LIMITS.description} characters`, field);
  return description;
}

/** A revision note (null or absent → ''): at most 2000 characters. */
export function validateNote(note: unknown, field = 'note'): string {
  if (note === undefined || note === null) return '';
  if (typeof note !== 'string' || note.length > TEXT_LIMITS.note) throw invalidArgument(`${field} must be at most ${TEXT_LIMITS.note} characters`, field);
  return note;
}

/** A title (null or absent → ''): at most 500 characters. */
export function validateTitle(title: unknown, field = 'title'): string {
  if (title === undefined || title === null) return '';
  if (typeof title !== 'string' || title.length > TEXT_LIMITS.title) throw invalidArgument(`${field} must be a string of at most ${TEXT_LIMITS.title} characters`, field);
  return title;
}

/** A model's name at its provider: 1 to 256 characters. */
export function validateProviderModel(value: unknown, field = 'provider_model'): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > TEXT_LIMITS.providerModel) {
    throw invalidArgument(`${field} (the provider’s name for the model) must be 1 to ${TEXT_LIMITS.providerModel} characters`, field);
  }
  return value;
}
