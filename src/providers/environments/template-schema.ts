// What environment types declare alike, with TypeBox: members of a template's config (the image, the
// working directory, the environment variables, a map of short strings), the config of an image-based
// template, and the typed reads of what a driver is handed — the provider's config and credential and
// the template's config, each read as the type's schema says (each was checked against it when written).
import Type, { type Static, type TProperties, type TSchema, type TSchemaOptions } from 'typebox';
import { readDocument } from '../../lib/json-documents.js';
import { mapOf } from '../common-schemas.js';
import type { EnvironmentDriverContext } from '../environment-driver.js';

/** The image a container, pod, machine or sandbox starts from. */
export const imageMember = (description: string, options: TSchemaOptions = {}) =>
  Type.String({ description, minLength: 1, maxLength: 512, ...options });

/** An absolute path inside the instance where commands start. */
export const workingDirectoryMember = (description: string) => Type.String({ description, maxLength: 1024, pattern: '^/' });

/** A relative subdirectory of an instance that is a directory of a real machine (`local`, `envd`). */
export const relativeWorkingDirectoryMember = () =>
  Type.Optional(
    Type.String({
      maxLength: 1024,
      description: "a relative subdirectory of the environment's directory where commands start (created on provisioning)",
    }),
  );

/** Environment variables of the instance and every command (at most 100, values unbounded). */
export const envMember = (description: string) => mapOf(Type.String(), { description, maxProperties: 100 });

/** A map of strings (environment variables, labels, metadata) of a hosted sandbox, each value at most 32 KiB. */
export const stringMapMember = (description: string, maxProperties: number) =>
  mapOf(Type.String({ maxLength: 32768 }), { description, maxProperties });

/** What an image-based template's common members say about its type's instances. */
export interface ImageTemplateDescriptions {
  image: string;
  workingDirectory: string;
  env: string;
}

/**
 * The config of a template whose instances start from an image (a container, pod or machine):
 * `image` (required), `working_directory` and `env`, then the type's own members (optional); unknown
 * members are refused.
 */
export const imageTemplateSchema = <P extends TProperties>(described: ImageTemplateDescriptions, own: P) =>
  Type.Object(
    {
      image: imageMember(described.image),
      working_directory: Type.Optional(workingDirectoryMember(described.workingDirectory)),
      env: Type.Optional(envMember(described.env)),
      ...own,
    },
    { additionalProperties: false },
  );

/**
 * The typed reads of an environment type's documents: `config` and `credential` of its provider (from
 * a driver's context) and `template`, a template's config (`ctx.environmentConfig` or a provisioning
 * request's `config`).
 */
export function environmentDocuments<C extends TSchema, K extends TSchema, E extends TSchema>(schemas: {
  configuration: C;
  credential: K;
  template: E;
}) {
  return {
    config: (ctx: Pick<EnvironmentDriverContext, 'providerConfig'>): Static<C> =>
      readDocument(schemas.configuration, ctx.providerConfig, 'providers.config'),
    credential: (ctx: Pick<EnvironmentDriverContext, 'credential'>): Static<K> | null =>
      ctx.credential === null ? null : readDocument(schemas.credential, ctx.credential, 'providers.credential_ciphertext'),
    template: (config: Record<string, unknown>): Static<E> => readDocument(schemas.template, config, 'environment_templates.config'),
  };
}
