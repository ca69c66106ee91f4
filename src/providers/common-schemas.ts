// The schemas many provider types share, declared once with TypeBox: the credentials (a required API
// key, an optional one — a server that may sit behind an authenticating proxy — or none at all), the
// empty configuration, an endpoint member and a map of strings. The key is write-only, so no answer
// ever shows it.
import Type, { type Static, type TSchema, type TSchemaOptions, type TUnsafe } from 'typebox';

const apiKey = (options: TSchemaOptions = {}) => Type.String({ minLength: 1, writeOnly: true, ...options });

/** A credential of one required API key (`description`: what the key is, where the vendor says more). */
export const apiKeyCredentialOf = (description?: string) =>
  Type.Object({ api_key: apiKey(description === undefined ? {} : { description }) }, { additionalProperties: false });

export const ApiKeyCredential = apiKeyCredentialOf();
export const OptionalApiKeyCredential = Type.Object({ api_key: Type.Optional(apiKey()) }, { additionalProperties: false });
export const NoCredential = Type.Object({}, { additionalProperties: false });
/** A type with nothing to configure. */
export const NoConfiguration = Type.Object({}, { additionalProperties: false });

/** An endpoint member: a URI (`description` says its default or what it points at). */
export const uriMember = (description: string, options: TSchemaOptions = {}) => Type.String({ format: 'uri', description, ...options });

/**
 * A map from the author's keys to values of one schema (`additionalProperties: value`), written as
 * such rather than as TypeBox's Record, whose `patternProperties` would change the published schema.
 */
export const mapOf = <V extends TSchema>(value: V, options: TSchemaOptions = {}): TUnsafe<Record<string, Static<V>>> =>
  Type.Unsafe<Record<string, Static<V>>>({ ...options, type: 'object', additionalProperties: value });
