// The schemas many provider types share, declared once: the credentials (a required API key, an
// optional one — a server that may sit behind an authenticating proxy — or none at all) and the empty
// configuration. The key is write-only, so no answer ever shows it.
import type { JsonSchema } from './registry.js';

const apiKey = { type: 'string', minLength: 1, writeOnly: true };

export const apiKeyCredential: JsonSchema = {
  type: 'object',
  properties: { api_key: apiKey },
  required: ['api_key'],
  additionalProperties: false,
};

export const optionalApiKeyCredential: JsonSchema = {
  type: 'object',
  properties: { api_key: apiKey },
  additionalProperties: false,
};

export const noCredential: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/** A type with nothing to configure. */
export const noConfiguration: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };
