// The schemas many provider types share, declared once with TypeBox: the credentials (a required API
// key, an optional one — a server that may sit behind an authenticating proxy — or none at all), the
// empty configuration and an endpoint member. The key is write-only, so no answer
// ever shows it.
import Type, { type TSchemaOptions } from 'typebox';

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

/** Maps (`additionalProperties: value`) are written as the stored documents write them. */
export { mapOf } from '../features/agents/documents/schema-parts.js';
