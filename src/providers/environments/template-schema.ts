// Members of an environment template's config that several types declare alike: the image, the
// working directory, the environment variables, a map of short strings. The REST golden file
// compares each type's description member by member, so every builder keeps the member order its
// types already had (description first for the container-like types).
import type { JsonSchema } from '../registry.js';

/** The image a container, pod, machine or sandbox starts from; `extra` members (a pattern) come before `type`. */
export const imageMember = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  description,
  minLength: 1,
  maxLength: 512,
  ...extra,
  type: 'string',
});

/** An absolute path inside the instance where commands start. */
export const workingDirectoryMember = (description: string): JsonSchema => ({
  description,
  maxLength: 1024,
  pattern: '^/',
  type: 'string',
});

/** Environment variables of the instance and every command (at most 100, values unbounded). */
export const envMember = (description: string): JsonSchema => ({
  description,
  maxProperties: 100,
  type: 'object',
  additionalProperties: { type: 'string' },
});

/** A map of strings (environment variables, labels, metadata) of a hosted sandbox, each value at most 32 KiB. */
export const stringMapMember = (description: string, maxProperties: number): JsonSchema => ({
  description,
  maxProperties,
  type: 'object',
  additionalProperties: { type: 'string', maxLength: 32768 },
});

/** What an image-based template's common members say about its type's instances. */
export interface ImageTemplateDescriptions {
  image: string;
  workingDirectory: string;
  env: string;
}

/**
 * The config of a template whose instances start from an image (a container, pod or machine):
 * `image` (required), `working_directory` and `env`, then the type's own members; unknown members are refused.
 */
export const imageTemplateSchema = (described: ImageTemplateDescriptions, own: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  required: ['image'],
  additionalProperties: false,
  properties: {
    image: imageMember(described.image),
    working_directory: workingDirectoryMember(described.workingDirectory),
    env: envMember(described.env),
    ...own,
  },
});
